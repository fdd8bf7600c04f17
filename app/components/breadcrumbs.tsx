import { Link } from "@remix-run/react";
import { ru } from "../i18n/ru";
import { ROOT_GROUP_ID } from "../lib/root-group";
import { DRAG_TYPE } from "./member-views";

/** The path from 'Доступные Файлы' to a group; each crumb is a link and (except the root) a drop target. */
export function Breadcrumbs({
  path,
  onDropInto,
}: {
  path: { group_id: string; group_name: string }[];
  onDropInto?: (target: string, ids: string[]) => void;
}) {
  return (
    <nav className="breadcrumbs" aria-label={ru.library.breadcrumbs}>
      {path.map((p, i) => (
        <span key={p.group_id} className="crumb">
          {i > 0 && <span className="crumb-sep">/</span>}
          <Link
            to={p.group_id === ROOT_GROUP_ID ? "/mam" : `/mam/${p.group_id}`}
            onDragOver={(e) => p.group_id !== ROOT_GROUP_ID && e.dataTransfer.types.includes(DRAG_TYPE) && e.preventDefault()}
            onDrop={(e) => {
              const raw = e.dataTransfer.getData(DRAG_TYPE);
              if (!raw || !onDropInto || p.group_id === ROOT_GROUP_ID) return;
              e.preventDefault();
              onDropInto(p.group_id, JSON.parse(raw) as string[]);
            }}
          >
            {p.group_name}
          </Link>
        </span>
      ))}
    </nav>
  );
}
