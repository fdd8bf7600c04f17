import { useRef, useState } from "react";
import { ru } from "../../i18n/ru";
import { LocalTime } from "../local-time";
import * as lib from "../../lib/library-api";
import { formatBytes, mediaKind } from "../../lib/media-kind";
import { showToast } from "../../lib/toast";
import { queueNewVersion } from "../../lib/upload-file";
import { Icon } from "../icons";
import { GuardedButton } from "../guarded-button";
import { denial } from "../../lib/abilities";
import { variantLevel } from "../../../workers/services/library/pure";
import { ConfirmDialog, Modal } from "../modal";
import { useLevels } from "../share-dialog";
import { VersionCompare } from "./version-compare";
import * as api from "./versions-api";

/** One version as the list shows it: its number, time, comment and ready variants (main one first). */
export interface VersionGroup {
  version: number;
  ctime: string;
  desc: string | null;
  rows: lib.VersionRow[];
}

/** The rows of GET /api/asset/versions (one per variant, newest version first) grouped by version. */
export function groupVersions(rows: readonly lib.VersionRow[]): VersionGroup[] {
  const byVersion = new Map<number, VersionGroup>();
  for (const row of rows) {
    const group = byVersion.get(row.version) ?? { version: row.version, ctime: row.ctime, desc: row.desc, rows: [] };
    group.rows.push(row);
    byVersion.set(row.version, group);
  }
  return [...byVersion.values()].sort((a, b) => b.version - a.version);
}

type Dialog = { kind: "delete"; version: number } | { kind: "comment"; version: number; desc: string | null } | { kind: "compare"; pair: [VersionGroup, VersionGroup] };

/**
 * The viewer's versions: upload a new one (through the upload queue, like any upload), restore an older one as the
 * newest (a new version copying it), delete one (not the last), edit a version's comment, and compare two image
 * versions side by side. The server decides what the caller may do; a refusal comes back as a toast.
 */
export function VersionList({
  asset,
  rows,
  groupId,
  onChanged,
}: {
  asset: lib.AssetInfo & { asset_id: string };
  rows: lib.VersionRow[];
  groupId?: string;
  onChanged: () => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [picked, setPicked] = useState<number[]>([]);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  // What the caller may do here (SPEC §7 entity-access): actions they lack the level for stay visible, disabled,
  // with the reason; while the levels load they wait («Проверяем права…»).
  const levels = useLevels(asset.asset_id);
  const may = (level: "create" | "update" | "delete") => !!levels && (levels.includes(level) || levels.includes("superuser"));
  // Versions create-version made whose bytes are not committed (issue 29) are listed apart: never current, no
  // downloads, previews or comparisons; an empty one can be removed.
  const versions = groupVersions(rows.filter((r) => r.state === "ready"));
  const open = rows.filter((r) => r.state !== "ready");
  const latest = versions[0]?.version ?? 0;
  const comparable = (g: VersionGroup) => mediaKind(g.rows[0].mime_type) === "image";
  const pickedGroups = versions.filter((g) => picked.includes(g.version));

  const togglePick = (version: number) =>
    setPicked((current) => (current.includes(version) ? current.filter((v) => v !== version) : [...current, version].slice(-2)));

  const restore = async (version: number) => {
    setBusy(version);
    try {
      const made = await api.restoreVersion(asset.asset_id, version);
      showToast({ title: ru.library.versions, message: ru.fileVersions.restored(version, made.version), kind: "info" });
      onChanged();
    } catch {
      // the API client showed the error
    } finally {
      setBusy(null);
    }
  };

  const dropEmpty = async (version: number) => {
    setBusy(version);
    try {
      await api.dropEmptyVersion(asset.asset_id, version);
      showToast({ title: ru.library.versions, message: ru.fileVersions.emptyDropped(version), kind: "info" });
      onChanged();
    } catch {
      // the API client showed the error (409 once bytes began to arrive)
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="panel viewer-section versions-panel" aria-label={ru.library.versions}>
      <div className="versions-head">
        <h2>{ru.library.versions}</h2>
        <div className="versions-tools">
          <button
            type="button"
            className="btn"
            disabled={pickedGroups.length !== 2}
            title={ru.fileVersions.comparePick}
            onClick={() => pickedGroups.length === 2 && setDialog({ kind: "compare", pair: [pickedGroups[1], pickedGroups[0]] })}
          >
            <Icon name="image" size={16} />
            {ru.fileVersions.compare}
          </button>
          <input
            ref={input}
            type="file"
            hidden
            data-testid="new-version-input"
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = "";
              if (file) void queueNewVersion(asset.asset_id, groupId ?? null, file, asset.name);
            }}
          />
          <GuardedButton className="btn btn-primary" reason={denial(levels, "newVersion", "asset")} onClick={() => input.current?.click()}>
            <Icon name="upload" size={16} />
            {ru.fileVersions.uploadNew}
          </GuardedButton>
        </div>
      </div>
      {open.map((row) => (
        <div key={row.variant_id} className="version-block version-open" data-version={row.version} data-state={row.state}>
          <div className="version-head">
            <div className="version-title">
              <strong>{ru.library.versionN(row.version)}</strong>
              <span className={`chip version-state version-state-${row.state}`}>{ru.fileVersions.states[row.state]}</span>
              <span className="muted"><LocalTime iso={row.ctime} /></span>
            </div>
            <div className="version-actions">
              {row.state === "empty" && may("update") && (
                <button
                  type="button"
                  className="icon-btn"
                  title={ru.fileVersions.dropEmpty}
                  aria-label={`${ru.fileVersions.dropEmpty}: ${ru.library.versionN(row.version)}`}
                  disabled={busy !== null}
                  onClick={() => void dropEmpty(row.version)}
                >
                  <Icon name="trash" size={15} />
                </button>
              )}
            </div>
          </div>
          <p className="muted version-desc">{ru.fileVersions.stateHints[row.state]}</p>
        </div>
      ))}
      {versions.length === 0 && <p className="muted">{ru.library.noBytes}</p>}
      {versions.some(comparable) && versions.length > 1 && <p className="muted versions-hint">{ru.fileVersions.comparePick}</p>}
      {versions.map((g) => (
        <div key={g.version} className="version-block" data-version={g.version}>
          <div className="version-head">
            <div className="version-title">
              {comparable(g) && versions.length > 1 && (
                <input
                  type="checkbox"
                  checked={picked.includes(g.version)}
                  onChange={() => togglePick(g.version)}
                  aria-label={ru.fileVersions.compareSelect(g.version)}
                />
              )}
              <strong>{ru.library.versionN(g.version)}</strong>
              {g.version === latest && <span className="chip active version-current">{ru.fileVersions.current}</span>}
              <span className="muted"><LocalTime iso={g.ctime} /></span>
            </div>
            <div className="version-actions">
              {g.version !== latest && (
                <GuardedButton
                  className="btn btn-ghost btn-sm"
                  reason={denial(levels, "newVersion", "asset")}
                  title={ru.fileVersions.restoreHint}
                  disabled={busy !== null}
                  onClick={() => void restore(g.version)}
                >
                  <Icon name="restore" size={15} />
                  {ru.fileVersions.restore}
                </GuardedButton>
              )}
              <GuardedButton
                className="icon-btn"
                reason={denial(levels, "rename", "asset")}
                title={g.desc ? ru.fileVersions.editComment : ru.fileVersions.addComment}
                aria-label={`${g.desc ? ru.fileVersions.editComment : ru.fileVersions.addComment}: ${ru.library.versionN(g.version)}`}
                onClick={() => setDialog({ kind: "comment", version: g.version, desc: g.desc })}
              >
                <Icon name="edit" size={15} />
              </GuardedButton>
              {versions.length > 1 && (
                <GuardedButton
                  className="icon-btn"
                  reason={denial(levels, "delete", "asset")}
                  title={ru.fileVersions.delete}
                  aria-label={`${ru.fileVersions.delete}: ${ru.library.versionN(g.version)}`}
                  onClick={() => setDialog({ kind: "delete", version: g.version })}
                >
                  <Icon name="trash" size={15} />
                </GuardedButton>
              )}
            </div>
          </div>
          {g.desc && <p className="version-desc">{g.desc}</p>}
          {g.rows.map((row) => (
            <div key={row.variant_id} className="variant-row">
              <span className="chip" title={row.variant_type}>
                {ru.library.variantTypes[row.variant_type] ?? row.variant_type}
              </span>
              <span className="variant-name">{row.variant_name}</span>
              <span className="muted num">{formatBytes(row.content_size)}</span>
              <GuardedButton
                className="btn btn-ghost"
                reason={variantLevel(row.variant_type) === "download" ? denial(levels, "download", "asset") : null}
                onClick={() => void lib.downloadVariant(asset.asset_id, row.variant_id).catch(() => undefined)}
              >
                <Icon name="download" size={16} />
                {ru.library.download}
              </GuardedButton>
            </div>
          ))}
        </div>
      ))}

      {dialog?.kind === "delete" && (
        <ConfirmDialog
          title={ru.fileVersions.deleteTitle(dialog.version)}
          text={ru.fileVersions.deleteText}
          confirm={ru.fileVersions.delete}
          onConfirm={() =>
            api.deleteVersion(asset.asset_id, dialog.version).then(() => {
              showToast({ title: ru.library.versions, message: ru.fileVersions.deleted(dialog.version), kind: "info" });
              setPicked((p) => p.filter((v) => v !== dialog.version));
              onChanged();
            })
          }
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "comment" && (
        <CommentDialog
          version={dialog.version}
          initial={dialog.desc ?? ""}
          onSubmit={(desc) => api.setVersionComment(asset.asset_id, dialog.version, desc || null).then(onChanged)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "compare" && (
        <VersionCompare
          fileId={asset.asset_id}
          name={asset.name}
          pair={dialog.pair}
          onClose={() => {
            // The comparison is done: its two ticks go with it, so the next one starts from a clean list.
            setPicked([]);
            setDialog(null);
          }}
        />
      )}
    </section>
  );
}

/** The comment of one version: a short text, saved as `desc` (empty clears it). */
function CommentDialog({
  version,
  initial,
  onSubmit,
  onClose,
}: {
  version: number;
  initial: string;
  onSubmit: (desc: string) => Promise<unknown>;
  onClose: () => void;
}) {
  const [text, setText] = useState(initial);
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    try {
      await onSubmit(text.trim());
      onClose();
    } catch {
      // the API client showed the error; the dialog stays for a correction
    }
  };
  return (
    <Modal title={ru.fileVersions.commentTitle(version)} onClose={onClose}>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor="version-comment">{ru.fileVersions.comment}</label>
          <textarea
            id="version-comment"
            className="input textarea"
            rows={4}
            maxLength={1000}
            value={text}
            placeholder={ru.fileVersions.commentPlaceholder}
            onChange={(e) => setText(e.target.value)}
          />
        </div>
        <div className="modal-actions">
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            {ru.common.cancel}
          </button>
          <button type="submit" className="btn btn-primary">
            {ru.common.save}
          </button>
        </div>
      </form>
    </Modal>
  );
}
