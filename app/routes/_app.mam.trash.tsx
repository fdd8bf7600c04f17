import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { Icon } from "../components/icons";
import { ConfirmDialog } from "../components/modal";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";
import { LocalTime } from "../components/local-time";
import { fetchTrash, purgeTrashed, restoreAsset, restoreGroup, type TrashLocation } from "../lib/library-api";
import { mimeLabel } from "../lib/mime-label";
import { ROOT_GROUP_ID } from "../lib/root-group";
import { showToast } from "../lib/toast";

export const meta: MetaFunction = () => [{ title: `${ru.library.trash} — ${ru.app.name}` }];

type Trash = Awaited<ReturnType<typeof fetchTrash>>;
interface Row {
  id: string;
  name: string;
  type: "group" | "asset";
  mime?: string;
  deleted: string;
  location: TrashLocation | null;
}
/** The purge task takes at most this many entities per call. */
const PURGE_BATCH = 500;

type Dialog = { kind: "purge"; row: Row } | { kind: "empty"; rows: Row[] };

/** The trash: folders and files deleted in the last 30 days, each restorable where it was or deleted for good. */
export default function TrashRoute() {
  const [trash, setTrash] = useState<Trash | null>(null);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  // Rows whose purge was queued: the task removes them in the background, the list drops them at once.
  const [purged, setPurged] = useState<Set<string>>(new Set());
  const load = useCallback(() => void fetchTrash().then(setTrash, () => undefined), []);
  useEffect(load, [load]);
  const rows: Row[] = trash
    ? [
        ...trash.groups.map((g) => ({ id: g.group_id, name: g.group_name, type: "group" as const, deleted: g.deleted_at, location: g.location })),
        ...trash.assets.map((a) => ({ id: a.asset_id, name: a.name, type: "asset" as const, mime: a.mimetype, deleted: a.deleted_at, location: a.location })),
      ].filter((r) => !purged.has(r.id))
    : [];

  async function purge(targets: Row[]) {
    for (let i = 0; i < targets.length; i += PURGE_BATCH) {
      await purgeTrashed(targets.slice(i, i + PURGE_BATCH).map((r) => ({ id: r.id, type: r.type })));
      setPurged((s) => new Set([...s, ...targets.slice(i, i + PURGE_BATCH).map((r) => r.id)]));
    }
    showToast({ title: ru.library.trash, message: ru.library.purgeQueued, kind: "info" });
  }

  return (
    <>
      <PageHeader
        title={ru.library.trash}
        subtitle={ru.library.trashHint}
        actions={
          rows.length > 0 && (
            <button type="button" className="btn btn-danger-outline" onClick={() => setDialog({ kind: "empty", rows })}>
              <Icon name="trash" size={16} />
              {ru.library.emptyTrash}
            </button>
          )
        }
      />
      {trash && rows.length === 0 ? (
        <section className="panel empty">
          <span className="empty-icon">
            <Icon name="trash" size={26} />
          </span>
          <div className="empty-title">{ru.library.trashEmpty}</div>
          <Link to="/mam">{ru.screens.backToFiles}</Link>
        </section>
      ) : (
        <section className="panel table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th>{ru.mam.columns.name}</th>
                <th>{ru.library.type}</th>
                <th>{ru.library.location}</th>
                <th>{ru.library.deletedAt}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-member={r.id}>
                  <td>
                    <span className="name-cell">
                      <Icon name={r.type === "group" ? "folder" : "other"} size={16} className="folder-icon" />
                      {r.name}
                    </span>
                  </td>
                  <td>{r.type === "group" ? ru.mam.group : mimeLabel(r.mime)}</td>
                  <td data-testid="trash-location">
                    {r.location ? (
                      <Link to={r.location.group_id === ROOT_GROUP_ID ? "/mam" : `/mam/${r.location.group_id}`}>{r.location.group_name}</Link>
                    ) : (
                      <span className="muted">{ru.library.locationHidden}</span>
                    )}
                  </td>
                  <td><LocalTime iso={r.deleted} /></td>
                  <td className="row-actions-cell">
                    <button
                      type="button"
                      className="btn btn-ghost"
                      onClick={() => void (r.type === "group" ? restoreGroup(r.id) : restoreAsset(r.id)).then(load, () => undefined)}
                    >
                      <Icon name="restore" size={16} />
                      {ru.library.restore}
                    </button>
                    <button
                      type="button"
                      className="btn btn-ghost danger-text"
                      aria-label={`${ru.library.purge}: ${r.name}`}
                      onClick={() => setDialog({ kind: "purge", row: r })}
                    >
                      <Icon name="trash" size={16} />
                      {ru.library.purge}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {dialog?.kind === "purge" && (
        <ConfirmDialog
          title={ru.library.purgeNamed(dialog.row.name)}
          text={ru.library.purgeText}
          confirm={ru.library.purge}
          onConfirm={() => purge([dialog.row])}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "empty" && (
        <ConfirmDialog
          title={ru.library.emptyTrashTitle(dialog.rows.length)}
          text={ru.library.emptyTrashText}
          confirm={ru.library.emptyTrash}
          onConfirm={() => purge(dialog.rows)}
          onClose={() => setDialog(null)}
        />
      )}
    </>
  );
}
