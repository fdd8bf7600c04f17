import { ru } from "../i18n/ru";
import type { AccessLevel } from "../../workers/services/access/pure";

/**
 * What a screen may offer on a file or a folder, decided from the caller's effective levels on it (GET
 * /api/auth/entity-access, POST /api/auth/entity-user-access). Each action names the levels the API checks for the
 * same call (decision 007, "Which call needs which level"), so a button is enabled exactly when its call would pass.
 */
export type Action =
  /** PATCH /asset/{id}, PATCH /group/update/{id} */
  | "rename"
  /** tags attach/detach */
  | "tags"
  /** metadata field values: fields/create, change, delete */
  | "fields"
  /** DELETE /asset/{id}, DELETE /group/delete/{id} */
  | "delete"
  /** move-members: delete on the folder the items leave (for a top-level folder: on the folder itself) */
  | "move"
  /** what is moved or listed elsewhere: its rights change with the folders that list it (decision 026) */
  | "relist"
  /** asset/create in the folder */
  | "upload"
  /** create-version on the file: 'Загрузить новую версию' */
  | "newVersion"
  /** group/create with the folder as parent */
  | "createFolder"
  /** sl/create (decision 012) */
  | "share"
  /** the 'Доступ' dialog: rule changes */
  | "access"
  /** download, play-variant with attachment */
  | "download"
  /** asset/copy: read and download on the file (create on the target is the target picker's business) */
  | "copy"
  /** restore from the trash */
  | "restore"
  /** 'Открыть на компьютере': the local disk helper reads and downloads the folder's files (uploads need create, checked per call) */
  | "openOnDisk";

export const ACTION_LEVELS: Record<Action, readonly AccessLevel[]> = {
  rename: ["update"],
  tags: ["update"],
  fields: ["update"],
  delete: ["delete"],
  move: ["delete"],
  relist: ["acl"],
  upload: ["create"],
  newVersion: ["create"],
  createFolder: ["create"],
  share: ["read", "acl"],
  access: ["acl"],
  download: ["download"],
  copy: ["read", "download"],
  restore: ["delete"],
  openOnDisk: ["read", "download"],
};

/** Levels as the API lists them; null while they are not known yet. */
export type Levels = readonly string[] | null | undefined;

/** Whether these levels allow the action. `superuser` implies every level; unknown levels allow nothing. */
export function canDo(levels: Levels, action: Action): boolean {
  if (!levels) return false;
  if (levels.includes("superuser")) return true;
  return ACTION_LEVELS[action].every((level) => levels.includes(level));
}

/**
 * Why the action is not offered, in words for a tooltip; null when it is allowed. `kind` is what the levels are on:
 * the file or folder acted upon (for upload, createFolder and move: the folder they happen in).
 */
export function denial(levels: Levels, action: Action, kind: "asset" | "group"): string | null {
  if (canDo(levels, action)) return null;
  if (!levels) return ru.rights.checking;
  return ru.rights.denied[action](kind);
}

/**
 * The answer for several items at once (bulk actions): null when every item allows the action, the item's own
 * reason when there is one item, otherwise a reason that speaks of the selection.
 */
export function denialForAll(items: readonly { levels: Levels; kind: "asset" | "group" }[], action: Action): string | null {
  const refused = items.filter((item) => !canDo(item.levels, action));
  if (refused.length === 0) return null;
  if (items.length === 1) return denial(refused[0].levels, action, refused[0].kind);
  return refused.some((item) => !item.levels) ? ru.rights.checking : ru.rights.deniedSelection[action];
}

/**
 * Why moving these members out of the folder is refused: `delete` on the folder they leave, then `acl` on each of
 * them (decision 026: where an entity is listed is part of its rights). A folder's contents are checked by the server.
 */
export function moveDenial(folder: Levels, items: readonly { levels: Levels; kind: "asset" | "group" }[]): string | null {
  return denial(folder, "move", "group") ?? (items.length ? denialForAll(items, "relist") : null);
}

/**
 * A member's levels in a folder listing: its own answer when the batched check has given one, otherwise the
 * folder's levels (members inherit them unless a rule of their own says otherwise, which the batch then reports).
 */
export function memberLevels(own: ReadonlyMap<string, readonly string[]>, folder: Levels, id: string): Levels {
  return own.get(id) ?? folder;
}
