import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { Icon } from "../components/icons";
import { ConfirmDialog } from "../components/modal";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { formatBytes } from "../lib/media-kind";
import { showToast } from "../lib/toast";
import type { DuplicateFile, DuplicateGroup } from "../../workers/services/duplicates";

export const meta: MetaFunction = () => [{ title: `${ru.duplicates.title} — ${ru.app.name}` }];

const t = ru.duplicates;
type Kind = "exact" | "similar";
interface Page {
  groups: DuplicateGroup[];
  next: string | null;
  scanned?: number;
}

/**
 * /admin/duplicates: the library's duplicate groups — files with the same bytes, and pictures whose previews are near
 * — oldest file first. «Оставить этот» keeps one file of a group and moves the others to the trash (restorable there).
 */
export default function AdminDuplicatesRoute() {
  const [kind, setKind] = useState<Kind>("exact");
  const [page, setPage] = useState<Page | null>(null);
  const [keeping, setKeeping] = useState<{ group: DuplicateGroup; file: DuplicateFile } | null>(null);

  const load = useCallback((k: Kind, after?: string) => {
    apiRequest<Page>("/api/duplicates", { query: { kind: k, after } }).then(
      (next) => setPage((prev) => (after && prev ? { ...next, groups: [...prev.groups, ...next.groups] } : next)),
      () => undefined,
    );
  }, []);
  useEffect(() => {
    setPage(null);
    load(kind);
  }, [kind, load]);

  const keep = async (group: DuplicateGroup, file: DuplicateFile) => {
    const others = group.files.filter((f) => f.asset_id !== file.asset_id).map((f) => f.asset_id);
    await apiRequest("/api/asset/delete-list", { method: "POST", body: { ids: others } });
    setPage((prev) => prev && { ...prev, groups: prev.groups.filter((g) => g.key !== group.key) });
    showToast({ title: t.title, message: t.kept(others.length), kind: "info" });
  };

  return (
    <section className="adm-section dup-admin" data-testid="admin-duplicates">
      <p className="muted dup-admin-hint">{t.adminHint}</p>
      <div className="dup-admin-kinds" role="tablist" aria-label={t.title}>
        {(["exact", "similar"] as const).map((k) => (
          <button key={k} type="button" role="tab" aria-selected={kind === k} className={`btn${kind === k ? " btn-primary" : ""}`} onClick={() => setKind(k)}>
            {t[k]}
          </button>
        ))}
      </div>
      {page && page.groups.length === 0 && (
        <div className="panel empty adm-empty-sm">
          <span className="empty-icon">
            <Icon name="other" size={26} />
          </span>
          <div className="empty-title">{t.none}</div>
        </div>
      )}
      <ul className="dup-groups">
        {page?.groups.map((group) => (
          <li key={group.key} className="panel dup-group" data-testid="duplicate-group">
            <div className="dup-group-head">{t.files(group.files.length)}</div>
            <ul className="dup-files">
              {group.files.map((file, i) => (
                <li key={file.asset_id} className="dup-file">
                  {file.preview ? <img src={file.preview} alt="" loading="lazy" /> : <span className="dup-file-icon"><Icon name="other" size={22} /></span>}
                  <div className="dup-file-main">
                    <Link to={`/asset/${file.asset_id}`} className="dup-file-name">
                      {file.name}
                    </Link>
                    <span className="muted">
                      {[file.folder ? t.inFolder(file.folder.name) : t.noFolder, formatBytes(file.size), file.distance !== undefined && i > 0 ? t.distance(file.distance) : null]
                        .filter(Boolean)
                        .join(" · ")}
                    </span>
                  </div>
                  <button type="button" className="btn" onClick={() => setKeeping({ group, file })}>
                    {t.keep}
                  </button>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      {page?.next && (
        <button type="button" className="btn" onClick={() => load(kind, page.next ?? undefined)}>
          {t.more}
        </button>
      )}
      {page?.scanned !== undefined && <p className="muted">{t.scanned(page.scanned)}</p>}
      {keeping && (
        <ConfirmDialog
          title={t.keep}
          text={t.keepConfirm(keeping.file.name, keeping.group.files.length - 1)}
          confirm={t.keep}
          onConfirm={() => keep(keeping.group, keeping.file)}
          onClose={() => setKeeping(null)}
        />
      )}
    </section>
  );
}
