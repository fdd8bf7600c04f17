import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { Icon } from "../components/icons";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";
import { formatDateTime } from "../lib/format";
import { fetchTrash, restoreAsset, restoreGroup } from "../lib/library-api";

export const meta: MetaFunction = () => [{ title: `${ru.library.trash} — ${ru.app.name}` }];

type Trash = Awaited<ReturnType<typeof fetchTrash>>;

/** The trash: folders and files deleted in the last 30 days, each restorable where it was. */
export default function TrashRoute() {
  const [trash, setTrash] = useState<Trash | null>(null);
  const load = useCallback(() => void fetchTrash().then(setTrash, () => undefined), []);
  useEffect(load, [load]);
  const rows = trash
    ? [
        ...trash.groups.map((g) => ({ id: g.group_id, name: g.group_name, type: "group" as const, deleted: g.deleted_at })),
        ...trash.assets.map((a) => ({ id: a.asset_id, name: a.name, type: "asset" as const, deleted: a.deleted_at })),
      ]
    : [];
  return (
    <>
      <PageHeader title={ru.library.trash} subtitle={ru.library.trashHint} />
      {trash && rows.length === 0 ? (
        <section className="panel empty">
          <span className="empty-icon">
            <Icon name="trash" size={26} />
          </span>
          <div className="empty-title">{ru.library.trashEmpty}</div>
          <Link to="/mam">{ru.screens.backToFiles}</Link>
        </section>
      ) : (
        <section className="panel">
          <table className="table">
            <thead>
              <tr>
                <th>{ru.mam.columns.name}</th>
                <th>{ru.library.type}</th>
                <th>{ru.library.deletedAt}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-member={r.id}>
                  <td className="name-cell">{r.name}</td>
                  <td>{r.type === "group" ? ru.mam.group : ru.mam.asset}</td>
                  <td>{formatDateTime(r.deleted)}</td>
                  <td>
                    <button
                      type="button"
                      className="btn btn-ghost"
                      onClick={() => void (r.type === "group" ? restoreGroup(r.id) : restoreAsset(r.id)).then(load, () => undefined)}
                    >
                      <Icon name="restore" size={16} />
                      {ru.library.restore}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}
