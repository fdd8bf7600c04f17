import { Link } from "@remix-run/react";
import { ru } from "../i18n/ru";
import { formatDateTime } from "../lib/format";
import type { GroupMember } from "../lib/library-api";
import { opensInEditor } from "../lib/editor-kind";
import { formatBytes } from "../lib/media-kind";
import { mimeLabel } from "../lib/mime-label";
import { Icon } from "./icons";
import { Thumbnail } from "./thumbnail";

export interface MemberViewProps {
  groupId: string;
  items: GroupMember[];
  selected: Set<string>;
  onToggle: (id: string) => void;
  onRename: (member: GroupMember) => void;
  onMove: (member: GroupMember) => void;
  onDelete: (member: GroupMember) => void;
  /** 'Поделиться': opens the share dialog for the member */
  onShare?: (member: GroupMember) => void;
  /** «Загрузить новую версию» of a file: asks for the file and queues it as the file's next version */
  onNewVersion?: (member: GroupMember) => void;
  /** drag and drop: members dragged onto a folder move into it */
  onDropInto: (targetGroupId: string, ids: string[]) => void;
}

export const DRAG_TYPE = "application/x-mam-members";

function hrefOf(groupId: string, m: GroupMember) {
  return m.el_type === "group" ? `/mam/${m.el_id}` : `/mam/${groupId}/asset/${m.el_id}`;
}

function dragProps(m: GroupMember, props: MemberViewProps) {
  return {
    draggable: true,
    onDragStart: (e: React.DragEvent) => {
      const ids = props.selected.has(m.el_id) ? [...props.selected] : [m.el_id];
      e.dataTransfer.setData(DRAG_TYPE, JSON.stringify(ids));
      e.dataTransfer.effectAllowed = "move";
    },
    ...(m.el_type === "group"
      ? {
          onDragOver: (e: React.DragEvent) => {
            if (e.dataTransfer.types.includes(DRAG_TYPE)) {
              e.preventDefault();
              e.currentTarget.classList.add("drop-target");
            }
          },
          onDragLeave: (e: React.DragEvent) => e.currentTarget.classList.remove("drop-target"),
          onDrop: (e: React.DragEvent) => {
            e.currentTarget.classList.remove("drop-target");
            const raw = e.dataTransfer.getData(DRAG_TYPE);
            if (!raw) return;
            e.preventDefault();
            e.stopPropagation();
            const ids = (JSON.parse(raw) as string[]).filter((id) => id !== m.el_id);
            if (ids.length) props.onDropInto(m.el_id, ids);
          },
        }
      : {}),
  };
}

function MemberThumbnail({ m, size }: { m: GroupMember; size: number }) {
  return m.el_type === "asset" ? (
    <Thumbnail type="asset" mime={m.el_info.mimetype} preview={m.el_info.preview} size={size} />
  ) : (
    <Thumbnail type="group" size={size} />
  );
}

function RowActions({ m, props }: { m: GroupMember; props: MemberViewProps }) {
  return (
    <span className="row-actions">
      {m.el_type === "asset" && opensInEditor(m.el_info.name, m.el_info.mimetype) && (
        <Link
          className="icon-btn"
          to={`/editor/${m.el_id}`}
          title={ru.editor.openInEditor}
          aria-label={`${ru.editor.openInEditor}: ${m.el_info.name}`}
          onClick={(e) => e.stopPropagation()}
        >
          <Icon name="text" size={16} />
        </Link>
      )}
      <button
        type="button"
        className="icon-btn"
        title={ru.library.rename}
        aria-label={`${ru.library.rename}: ${m.el_info.name}`}
        onClick={() => props.onRename(m)}
      >
        <Icon name="edit" size={16} />
      </button>
      {m.el_type === "asset" && props.onNewVersion && (
        <button
          type="button"
          className="icon-btn"
          title={ru.fileVersions.uploadNew}
          aria-label={ru.fileVersions.uploadNewOf(m.el_info.name)}
          onClick={() => props.onNewVersion?.(m)}
        >
          <Icon name="upload" size={16} />
        </button>
      )}
      <button
        type="button"
        className="icon-btn"
        title={ru.library.move}
        aria-label={`${ru.library.move}: ${m.el_info.name}`}
        onClick={() => props.onMove(m)}
      >
        <Icon name="move" size={16} />
      </button>
      {props.onShare && (
        <button
          type="button"
          className="icon-btn"
          title={ru.sharing.share}
          aria-label={`${ru.sharing.share}: ${m.el_info.name}`}
          onClick={() => props.onShare?.(m)}
        >
          <Icon name="share" size={16} />
        </button>
      )}
      <button
        type="button"
        className="icon-btn"
        title={ru.library.delete}
        aria-label={`${ru.library.delete}: ${m.el_info.name}`}
        onClick={() => props.onDelete(m)}
      >
        <Icon name="trash" size={16} />
      </button>
    </span>
  );
}

export function MemberList(props: MemberViewProps) {
  return (
    <table className="table members-table">
      <thead>
        <tr>
          <th className="check-col" />
          <th>{ru.mam.columns.name}</th>
          <th>{ru.library.type}</th>
          <th className="num">{ru.library.size}</th>
          <th className="num">{ru.library.version}</th>
          <th>{ru.mam.columns.modified}</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {props.items.map((m) => (
          <tr key={m.el_id} data-member={m.el_id} className={props.selected.has(m.el_id) ? "selected" : undefined} {...dragProps(m, props)}>
            <td className="check-col">
              <input
                type="checkbox"
                checked={props.selected.has(m.el_id)}
                onChange={() => props.onToggle(m.el_id)}
                aria-label={`${ru.library.select}: ${m.el_info.name}`}
              />
            </td>
            <td>
              <span className="name-cell">
                <MemberThumbnail m={m} size={32} />
                <Link to={hrefOf(props.groupId, m)}>{m.el_info.name}</Link>
              </span>
            </td>
            <td>{m.el_type === "group" ? ru.mam.group : mimeLabel(m.el_info.mimetype)}</td>
            <td className="num">{m.el_type === "group" ? "—" : formatBytes(m.el_info.var_size)}</td>
            <td className="num">{m.el_type === "group" || !m.el_info.ver ? "—" : m.el_info.ver}</td>
            <td>{formatDateTime(m.el_info.mtime ?? m.el_info.ctime)}</td>
            <td>
              <RowActions m={m} props={props} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function MemberGrid(props: MemberViewProps) {
  return (
    <div className="member-grid">
      {props.items.map((m) => (
        <div
          key={m.el_id}
          data-member={m.el_id}
          className={`tile${props.selected.has(m.el_id) ? " selected" : ""}`}
          {...dragProps(m, props)}
        >
          <input
            type="checkbox"
            className="tile-check"
            checked={props.selected.has(m.el_id)}
            onChange={() => props.onToggle(m.el_id)}
            aria-label={`${ru.library.select}: ${m.el_info.name}`}
          />
          <Link to={hrefOf(props.groupId, m)} className="tile-media">
            <MemberThumbnail m={m} size={96} />
          </Link>
          <div className="tile-meta">
            <Link to={hrefOf(props.groupId, m)} className="tile-name" title={m.el_info.name}>
              {m.el_info.name}
            </Link>
            <div className="tile-sub">
              {m.el_type === "group"
                ? ru.mam.group
                : `${mimeLabel(m.el_info.mimetype)} · ${formatBytes(m.el_info.var_size)}${m.el_info.ver ? ` · v${m.el_info.ver}` : ""}`}
            </div>
          </div>
          <RowActions m={m} props={props} />
        </div>
      ))}
    </div>
  );
}
