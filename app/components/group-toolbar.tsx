import { ru } from "../i18n/ru";
import type { Action } from "../lib/abilities";
import type { SortKey, SortOrder } from "../lib/library-api";
import { GuardedButton } from "./guarded-button";
import { Icon } from "./icons";
import { OverflowToolbar } from "./overflow-menu";
import { UploadButton } from "./upload-button";

interface Props {
  title: string;
  /** «12 элементов» under the title */
  itemCount?: string;
  view: "grid" | "list";
  sort: SortKey;
  order: SortOrder;
  selectedCount: number;
  onView: (v: "grid" | "list") => void;
  onSort: (s: SortKey) => void;
  onOrder: (o: SortOrder) => void;
  onCreate: () => void;
  onUpload: (files: File[]) => void;
  onBulkMove: () => void;
  onBulkTags: () => void;
  onBulkDelete: () => void;
  onClearSelection: () => void;
  /** more bulk actions (e.g. setting a metadata field), shown before 'delete' */
  extraBulk?: React.ReactNode;
  /** the folder's own extra actions (e.g. «Скачать папку»), shown before 'new folder' while nothing is selected */
  extraFolder?: React.ReactNode;
  /**
   * Why an action is refused (app/lib/abilities.ts): createFolder and upload for the folder, move, tags and delete
   * for the selection. A refused action stays visible, disabled, with the reason as its tooltip.
   */
  refusals?: Partial<Record<Action, string | null>>;
}

/** Title, actions, view and sort controls of a folder; turns into the bulk-action bar while items are selected. */
export function GroupToolbar(p: Props) {
  const why = (action: Action) => p.refusals?.[action] ?? null;
  return (
    <div className="page-header group-toolbar">
      <div>
        <h1 className="page-title">{p.title}</h1>
        {p.itemCount && (
          <div className="page-subtitle" data-testid="folder-count">
            {p.itemCount}
          </div>
        )}
      </div>
      {p.selectedCount > 0 ? (
        <OverflowToolbar className="toolbar bulk-bar" label={ru.library.selection}>
          <span className="muted" data-overflow="never">
            {ru.library.selected(p.selectedCount)}
          </span>
          <GuardedButton reason={why("move")} onClick={p.onBulkMove}>
            <Icon name="move" size={16} />
            {ru.library.move}
          </GuardedButton>
          <GuardedButton reason={why("tags")} onClick={p.onBulkTags}>
            <Icon name="tag" size={16} />
            {ru.library.tags}
          </GuardedButton>
          {p.extraBulk}
          <GuardedButton className="btn btn-danger-outline" reason={why("delete")} onClick={p.onBulkDelete}>
            <Icon name="trash" size={16} />
            {ru.library.delete}
          </GuardedButton>
          <button type="button" className="btn btn-ghost" onClick={p.onClearSelection}>
            {ru.library.clearSelection}
          </button>
        </OverflowToolbar>
      ) : (
        <OverflowToolbar className="toolbar" label={ru.library.actions}>
          <label className="select-wrap">
            <span className="visually-hidden">{ru.library.sortBy}</span>
            <select className="input select" value={p.sort} onChange={(e) => p.onSort(e.target.value as SortKey)}>
              <option value="name">{ru.library.sortName}</option>
              <option value="mtime">{ru.library.sortDate}</option>
              <option value="size">{ru.library.sortSize}</option>
            </select>
          </label>
          <button
            type="button"
            className="icon-btn"
            title={p.order === "asc" ? ru.library.ascending : ru.library.descending}
            onClick={() => p.onOrder(p.order === "asc" ? "desc" : "asc")}
          >
            {p.order === "asc" ? "↑" : "↓"}
          </button>
          <div className="segmented">
            <button
              type="button"
              className={`icon-btn${p.view === "grid" ? " active" : ""}`}
              title={ru.library.gridView}
              aria-pressed={p.view === "grid"}
              onClick={() => p.onView("grid")}
            >
              <Icon name="grid" size={16} />
            </button>
            <button
              type="button"
              className={`icon-btn${p.view === "list" ? " active" : ""}`}
              title={ru.library.listView}
              aria-pressed={p.view === "list"}
              onClick={() => p.onView("list")}
            >
              <Icon name="list" size={16} />
            </button>
          </div>
          {p.extraFolder}
          <GuardedButton reason={why("createFolder")} data-overflow-priority="1" onClick={p.onCreate}>
            <Icon name="plus" size={16} />
            {ru.library.newFolder}
          </GuardedButton>
          {/* The main action stays in the row (its Uppy dialog lives next to it and must not be hidden with it). */}
          <span className="toolbar-item" data-overflow="never">
            <UploadButton onFiles={p.onUpload} refused={why("upload")} />
          </span>
        </OverflowToolbar>
      )}
    </div>
  );
}
