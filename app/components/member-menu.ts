import { ru } from "../i18n/ru";
import type { Action } from "../lib/abilities";
import type { MenuItem } from "./context-menu";

/** What the context menu of one or several items can do; an absent handler leaves its entry out. */
export interface MenuHandlers {
  open?: () => void;
  /** text files: open the original in the text editor */
  openInEditor?: () => void;
  rename?: () => void;
  move?: () => void;
  tags?: () => void;
  newVersion?: () => void;
  share?: () => void;
  access?: () => void;
  /** administrators only: list in the shop (decision 022) */
  sell?: () => void;
  /** folders only: mount it through the local disk helper */
  openOnDisk?: () => void;
  download?: () => void;
  delete?: () => void;
}

const ENTRIES: { key: keyof MenuHandlers; action: Action | null; label: string; icon: MenuItem["icon"]; danger?: boolean }[] = [
  { key: "open", action: null, label: ru.rights.open, icon: "chevron" },
  // The editor opens the original, so it needs download (saving needs update, which the editor itself checks).
  { key: "openInEditor", action: "download", label: ru.editor.openInEditor, icon: "text" },
  { key: "rename", action: "rename", label: ru.library.rename, icon: "edit" },
  { key: "move", action: "move", label: ru.library.move, icon: "move" },
  { key: "tags", action: "tags", label: ru.library.tags, icon: "tag" },
  { key: "newVersion", action: "newVersion", label: ru.fileVersions.uploadNew, icon: "upload" },
  { key: "download", action: "download", label: ru.library.download, icon: "download" },
  { key: "share", action: "share", label: ru.sharing.share, icon: "share" },
  { key: "access", action: "access", label: ru.admin.accessEditor.button, icon: "admin" },
  { key: "sell", action: null, label: ru.shop.sell, icon: "shop" },
  { key: "openOnDisk", action: "openOnDisk", label: ru.diskHelper.action, icon: "download" },
  { key: "delete", action: "delete", label: ru.library.delete, icon: "trash", danger: true },
];

/**
 * The context-menu entries for the same actions as the toolbar, in the toolbar's order; `refusal` says why an action
 * is refused (the entry stays, disabled, with the reason as its tooltip).
 */
export function menuItems(handlers: MenuHandlers, refusal: (action: Action) => string | null): MenuItem[] {
  return ENTRIES.flatMap((entry) => {
    const run = handlers[entry.key];
    if (!run) return [];
    return [{ key: entry.key, label: entry.label, icon: entry.icon, danger: entry.danger, refused: entry.action ? refusal(entry.action) : null, onSelect: run }];
  });
}
