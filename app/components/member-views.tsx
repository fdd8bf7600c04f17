import { Link } from "@remix-run/react";
import { useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import type { Action } from "../lib/abilities";
import { LocalTime } from "./local-time";
import type { GroupMember } from "../lib/library-api";
import { opensInEditor } from "../lib/editor-kind";
import { formatBytes } from "../lib/media-kind";
import { mimeLabel } from "../lib/mime-label";
import { moveFocus, type MoveKey } from "../lib/selection";
import { longPress } from "./context-menu";
import { FavouriteStar } from "./favourite-star";
import { GuardedButton } from "./guarded-button";
import { Icon } from "./icons";
import { Thumbnail } from "./thumbnail";
import { ReviewBadge } from "./reviews/review-badge";
import { CommentCountBadge } from "./comments/comment-count-badge";
import { healable, SETTLE_MS, untilSettled, type HealTarget } from "../lib/heal-preview";

export interface MemberViewProps {
  groupId: string;
  items: GroupMember[];
  selected: Set<string>;
  onToggle: (id: string) => void;
  /** a click on an item's checkbox, or a shift-click anywhere on it: `range` adds everything from the last click */
  onPick?: (id: string, range: boolean) => void;
  /** why the caller may not do `action` on the member (null: may); absent: everything is offered */
  refusal?: (member: GroupMember, action: Action) => string | null;
  /** right click, long press, the context-menu key or Shift+F10 on a member: its menu at (x, y) */
  onMenu?: (member: GroupMember, x: number, y: number) => void;
  onRename: (member: GroupMember) => void;
  onMove: (member: GroupMember) => void;
  onDelete: (member: GroupMember) => void;
  /** 'Поделиться': opens the share dialog for the member */
  onShare?: (member: GroupMember) => void;
  /** «Загрузить новую версию» of a file: asks for the file and queues it as the file's next version */
  onNewVersion?: (member: GroupMember) => void;
  /** drag and drop: members dragged onto a folder move into it */
  onDropInto: (targetGroupId: string, ids: string[]) => void;
  /** where an item opens (default: the viewer inside `groupId`); a collection opens its files from its own page */
  hrefOf?: (member: GroupMember) => string;
  /** drag and drop among files: the dragged ones are put before the file dropped on (a collection's order) */
  onReorder?: (ids: string[], beforeId: string) => void;
}

export const DRAG_TYPE = "application/x-mam-members";

function defaultHref(groupId: string, m: GroupMember) {
  return m.el_type === "group" ? `/mam/${m.el_id}` : `/mam/${groupId}/asset/${m.el_id}`;
}

function hrefOf(props: MemberViewProps, m: GroupMember) {
  return props.hrefOf ? props.hrefOf(m) : defaultHref(props.groupId, m);
}

/** Right click, long press and shift-click on a tile or row (the checkbox handles its own clicks). */
function pointerProps(m: GroupMember, props: MemberViewProps) {
  const open = (x: number, y: number) => props.onMenu?.(m, x, y);
  return {
    ...(props.onMenu
      ? {
          onContextMenu: (e: React.MouseEvent) => {
            e.preventDefault();
            open(e.clientX, e.clientY);
          },
          ...longPress(open),
        }
      : {}),
    onClickCapture: (e: React.MouseEvent) => {
      if (!e.shiftKey || !props.onPick || (e.target as HTMLElement).closest("input, button")) return;
      // Shift-click selects a range instead of opening the item (or a new browser window).
      e.preventDefault();
      e.stopPropagation();
      props.onPick(m.el_id, true);
    },
  };
}

/** The checkbox of a member: a click toggles it, a shift-click adds the range from the previous click. */
function SelectBox({ m, props, className }: { m: GroupMember; props: MemberViewProps; className?: string }) {
  return (
    <input
      type="checkbox"
      className={className}
      checked={props.selected.has(m.el_id)}
      onChange={() => (props.onPick ? undefined : props.onToggle(m.el_id))}
      onClick={(e) => props.onPick?.(m.el_id, e.shiftKey)}
      aria-label={`${ru.library.select}: ${m.el_info.name}`}
      // One tab stop per grid (the item's name): Space selects from there.
      tabIndex={-1}
    />
  );
}

const MOVE_KEYS = new Set<string>(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"]);

/** Items of a screenful: PageUp/PageDown move by this many (whole rows of the grid). */
function pageOf(items: HTMLElement[], columns: number): number {
  const rowHeight = items[0]?.getBoundingClientRect().height || 1;
  return Math.max(1, Math.floor(window.innerHeight / rowHeight)) * Math.max(1, columns);
}

/**
 * The roving tab stop of a grid or list (issue 28): one item's name is in the tab order, the others are reached with
 * the keys; the stop follows the focus, and stays on the first item until one is focused (or when it left the list).
 */
function useTabStop(items: GroupMember[]) {
  const [current, setCurrent] = useState<string | null>(null);
  const stop = current && items.some((m) => m.el_id === current) ? current : (items[0]?.el_id ?? null);
  return {
    tabIndexOf: (id: string) => (id === stop ? 0 : -1),
    onFocus: (e: React.FocusEvent<HTMLElement>) => {
      const id = (e.target as HTMLElement).closest<HTMLElement>("[data-member]")?.dataset.member;
      if (id && id !== current) setCurrent(id);
    },
  };
}

/** How many items the first row of a grid holds (1 for a list, whose rows stack). */
function columnsOf(items: HTMLElement[]): number {
  if (items.length === 0) return 1;
  const top = items[0].offsetTop;
  const n = items.findIndex((el) => el.offsetTop !== top);
  return n < 0 ? items.length : n;
}

/**
 * Keyboard use of a grid or list: arrows, Home/End and PageUp/PageDown move the focus between items' names (the one tab
 * stop, `useTabStop`), Enter opens the focused
 * one (the link's own behaviour), Space selects it, the context-menu key or Shift+F10 opens its menu.
 */
function keyboardProps(props: MemberViewProps, grid: boolean) {
  return {
    onKeyDown: (e: React.KeyboardEvent<HTMLElement>) => {
      const target = e.target as HTMLElement;
      if (target.closest("input, button, select, textarea")) return;
      const items = [...e.currentTarget.querySelectorAll<HTMLElement>("[data-member]")];
      const current = target.closest<HTMLElement>("[data-member]");
      const index = current ? items.indexOf(current) : -1;
      const member = index >= 0 ? props.items.find((m) => m.el_id === items[index].dataset.member) : undefined;
      if (MOVE_KEYS.has(e.key) && !e.altKey && !e.ctrlKey && !e.metaKey) {
        if (!grid && (e.key === "ArrowLeft" || e.key === "ArrowRight")) return;
        e.preventDefault();
        const columns = grid ? columnsOf(items) : 1;
        const next = moveFocus(index, e.key as MoveKey, columns, items.length, pageOf(items, columns));
        items[next]?.querySelector<HTMLElement>("[data-focus-target]")?.focus();
      } else if (e.key === " " && member) {
        e.preventDefault();
        if (props.onPick) props.onPick(member.el_id, e.shiftKey);
        else props.onToggle(member.el_id);
      } else if ((e.key === "ContextMenu" || (e.key === "F10" && e.shiftKey)) && member && props.onMenu) {
        e.preventDefault();
        const box = target.getBoundingClientRect();
        props.onMenu(member, box.left + 12, box.bottom - 4);
      }
    },
  };
}

function dragProps(m: GroupMember, props: MemberViewProps) {
  return {
    ...pointerProps(m, props),
    draggable: true,
    onDragStart: (e: React.DragEvent) => {
      const ids = props.selected.has(m.el_id) ? [...props.selected] : [m.el_id];
      e.dataTransfer.setData(DRAG_TYPE, JSON.stringify(ids));
      e.dataTransfer.effectAllowed = "move";
    },
    ...(m.el_type === "asset" && props.onReorder
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
            if (ids.length) props.onReorder?.(ids, m.el_id);
          },
        }
      : {}),
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

/** Types the Worker previews itself (codecs, text cards): a fresh one is left to its task before a browser heals it. */
const WORKER_PREVIEWED = new Set(["image/jpeg", "image/png", "image/webp", "application/pdf"]);
const WORKER_SETTLE_MS = 2 * 60_000;

/** Milliseconds until a grid tile may heal the file (0: now). */
function untilHealable(m: Extract<GroupMember, { el_type: "asset" }>): number {
  const mime = m.el_info.mimetype.split(";")[0].trim().toLowerCase();
  return untilSettled(m.el_info.mtime, WORKER_PREVIEWED.has(mime) ? WORKER_SETTLE_MS : SETTLE_MS);
}

/**
 * What a grid tile may heal (decision 029): a file without a preview whose original this caller may fetch; a type
 * the Worker previews itself only once its processing has had time to finish.
 */
function healTargetOf(m: GroupMember, props: MemberViewProps): HealTarget | null {
  if (m.el_type !== "asset" || !m.el_info.var || !m.el_info.ver || !healable(m.el_info.mimetype)) return null;
  // Only where the rights are known to allow fetching the original (no refused request for a picture).
  if (!props.refusal || props.refusal(m, "download")) return null;
  if (untilHealable(m) > 0) return null;
  return { assetId: m.el_id, version: m.el_info.ver, variantId: m.el_info.var, mime: m.el_info.mimetype, bytes: m.el_info.var_size };
}

function MemberThumbnail({ m, size, props, scrub = false }: { m: GroupMember; size: number; props: MemberViewProps; scrub?: boolean }) {
  // A tile shown while its file is still settling (uploaded a moment ago elsewhere) is rendered again once it has,
  // so it heals then rather than on the next reload of the folder.
  const settling = m.el_type === "asset" && !m.el_info.preview && healable(m.el_info.mimetype) ? untilHealable(m) : 0;
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (settling <= 0) return;
    const timer = setTimeout(() => setTick((n) => n + 1), settling + 100);
    return () => clearTimeout(timer);
    // `settling` shrinks on every render: the timer is set per file, per change and per tick, not per render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [m.el_id, m.el_info.mtime, settling > 0, tick]);
  return m.el_type === "asset" ? (
    <Thumbnail type="asset" mime={m.el_info.mimetype} preview={m.el_info.preview} size={size} heal={healTargetOf(m, props)} scrub={scrub} />
  ) : (
    <Thumbnail type="group" size={size} />
  );
}

function RowActions({ m, props }: { m: GroupMember; props: MemberViewProps }) {
  return (
    <span className="row-actions">
      {/* Not tab stops: the item's menu (Shift+F10, the context-menu key) offers the same actions. */}
      <FavouriteStar id={m.el_id} type={m.el_type} name={m.el_info.name} tabIndex={-1} />
      {m.el_type === "asset" && opensInEditor(m.el_info.name, m.el_info.mimetype) && props.refusal?.(m, "download") ? (
        // The editor opens the original: without download it would only fail.
        <GuardedButton
          className="icon-btn"
        tabIndex={-1}
          reason={ru.rights.editorDenied}
          aria-label={`${ru.editor.openInEditor}: ${m.el_info.name}`}
          onClick={() => undefined}
        >
          <Icon name="text" size={16} />
        </GuardedButton>
      ) : m.el_type === "asset" && opensInEditor(m.el_info.name, m.el_info.mimetype) && (
        <Link
          className="icon-btn"
        tabIndex={-1}
          to={`/editor/${m.el_id}`}
          title={ru.editor.openInEditor}
          aria-label={`${ru.editor.openInEditor}: ${m.el_info.name}`}
          onClick={(e) => e.stopPropagation()}
        >
          <Icon name="text" size={16} />
        </Link>
      )}
      <GuardedButton
        className="icon-btn"
        tabIndex={-1}
        reason={props.refusal?.(m, "rename") ?? null}
        title={ru.library.rename}
        aria-label={`${ru.library.rename}: ${m.el_info.name}`}
        onClick={() => props.onRename(m)}
      >
        <Icon name="edit" size={16} />
      </GuardedButton>
      {m.el_type === "asset" && props.onNewVersion && (
        <button
          type="button"
          className="icon-btn"
        tabIndex={-1}
          title={ru.fileVersions.uploadNew}
          aria-label={ru.fileVersions.uploadNewOf(m.el_info.name)}
          onClick={() => props.onNewVersion?.(m)}
        >
          <Icon name="upload" size={16} />
        </button>
      )}
      <GuardedButton
        className="icon-btn"
        tabIndex={-1}
        reason={props.refusal?.(m, "move") ?? null}
        title={ru.library.move}
        aria-label={`${ru.library.move}: ${m.el_info.name}`}
        onClick={() => props.onMove(m)}
      >
        <Icon name="move" size={16} />
      </GuardedButton>
      {props.onShare && (
        <button
          type="button"
          className="icon-btn"
        tabIndex={-1}
          title={ru.sharing.share}
          aria-label={`${ru.sharing.share}: ${m.el_info.name}`}
          onClick={() => props.onShare?.(m)}
        >
          <Icon name="share" size={16} />
        </button>
      )}
      <GuardedButton
        className="icon-btn"
        tabIndex={-1}
        reason={props.refusal?.(m, "delete") ?? null}
        title={ru.library.delete}
        aria-label={`${ru.library.delete}: ${m.el_info.name}`}
        onClick={() => props.onDelete(m)}
      >
        <Icon name="trash" size={16} />
      </GuardedButton>
      {props.onMenu && (
        // Phones: a tile has no room for every action, so it shows this one button opening the member's menu.
        <button
          type="button"
          className="icon-btn row-actions-more"
          tabIndex={-1}
          aria-haspopup="menu"
          title={ru.common.moreActions}
          aria-label={`${ru.common.moreActions}: ${m.el_info.name}`}
          onClick={(e) => {
            e.stopPropagation();
            const box = e.currentTarget.getBoundingClientRect();
            props.onMenu?.(m, box.left, box.bottom);
          }}
        >
          <Icon name="more" size={16} />
        </button>
      )}
    </span>
  );
}

/** Tags shown in a row: the first few as chips, the rest counted (all of them in the tooltip). */
const SHOWN_TAGS = 3;

function MemberTags({ tags }: { tags: GroupMember["el_info"]["tags"] }) {
  if (tags.length === 0) return <span className="muted">—</span>;
  const rest = tags.length - SHOWN_TAGS;
  return (
    <span className="member-tags" title={tags.map((t) => t.tag_name).join(", ")}>
      {tags.slice(0, SHOWN_TAGS).map((t) => (
        <span key={t.tag_id} className="chip chip-small">
          {t.tag_name}
        </span>
      ))}
      {rest > 0 && <span className="chip chip-small chip-more">+{rest}</span>}
    </span>
  );
}

export function MemberList(props: MemberViewProps) {
  const tabStop = useTabStop(props.items);
  return (
    <table className="table members-table" {...keyboardProps(props, false)} onFocus={tabStop.onFocus}>
      <thead>
        <tr>
          <th className="check-col" />
          <th>{ru.mam.columns.name}</th>
          <th>{ru.library.type}</th>
          <th className="tags-col">{ru.library.tags}</th>
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
              <SelectBox m={m} props={props} />
            </td>
            <td>
              <span className="name-cell">
                <MemberThumbnail m={m} size={32} props={props} />
                <Link to={hrefOf(props, m)} data-focus-target tabIndex={tabStop.tabIndexOf(m.el_id)}>
                  {m.el_info.name}
                </Link>
                {m.el_type === "asset" && <CommentCountBadge counts={m.el_info.comments} className="row-comments" />}
              </span>
            </td>
            <td>{m.el_type === "group" ? ru.mam.group : mimeLabel(m.el_info.mimetype)}</td>
            <td className="tags-col">
              <MemberTags tags={m.el_info.tags} />
            </td>
            <td className="num">{m.el_type === "group" ? "—" : formatBytes(m.el_info.var_size)}</td>
            <td className="num">{m.el_type === "group" || !m.el_info.ver ? "—" : m.el_info.ver}</td>
            <td className="date-col"><LocalTime iso={m.el_info.mtime ?? m.el_info.ctime} /></td>
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
  const tabStop = useTabStop(props.items);
  return (
    <div className="member-grid" {...keyboardProps(props, true)} onFocus={tabStop.onFocus}>
      {props.items.map((m) => (
        <div
          key={m.el_id}
          data-member={m.el_id}
          className={`tile${props.selected.has(m.el_id) ? " selected" : ""}`}
          {...dragProps(m, props)}
        >
          <SelectBox m={m} props={props} className="tile-check" />
          {/* A second way in for the pointer only: out of the tab order and of the accessibility tree (the name below is the
              item's one link there), so a screen reader does not meet a nameless link. */}
          <Link to={hrefOf(props, m)} className="tile-media" tabIndex={-1} aria-hidden="true">
            <MemberThumbnail m={m} size={96} props={props} scrub />
          </Link>
          <div className="tile-meta">
            <Link to={hrefOf(props, m)} className="tile-name" title={m.el_info.name} data-focus-target tabIndex={tabStop.tabIndexOf(m.el_id)}>
              {m.el_info.name}
            </Link>
            <div className="tile-sub">
              {m.el_type === "group"
                ? ru.mam.group
                : `${mimeLabel(m.el_info.mimetype)} · ${formatBytes(m.el_info.var_size)}${m.el_info.ver ? ` · v${m.el_info.ver}` : ""}`}
            </div>
            {m.el_type === "asset" && <ReviewBadge status={m.el_info.review_status} className="tile-review" />}
            {m.el_type === "asset" && <CommentCountBadge counts={m.el_info.comments} className="tile-comments" />}
          </div>
          <RowActions m={m} props={props} />
        </div>
      ))}
    </div>
  );
}
