import { and, eq, sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { userSettings } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { visibleBookmarks, type BookmarkNames } from "./bookmarks.service";
import type { Actor, RequestContext } from "./context";

/** The two per-user documents (SPEC §7 Users: ui_settings, bookmarks). */
export type SettingsKind = "ui_settings" | "bookmarks";

/** Largest stored document, as JSON text: settings are preferences, not a place for data. */
export const SETTINGS_MAX_BYTES = 64 * 1024;

/** Concurrent PATCHes of one document are retried this often before giving up with 409. */
const MAX_ATTEMPTS = 5;

const column = { ui_settings: userSettings.uiSettings, bookmarks: userSettings.bookmarks } as const;

/** Both documents as stored (JSON text), or undefined when the user never saved any. */
async function read(rc: RequestContext, userId: string): Promise<Record<SettingsKind, string> | undefined> {
  return rc.db
    .select({ ui_settings: sql<string>`${userSettings.uiSettings}`, bookmarks: sql<string>`${userSettings.bookmarks}` })
    .from(userSettings)
    .where(eq(userSettings.userId, userId))
    .get();
}

/** The caller's document; `{}` until something was saved. `names`: where favourites' names are read. */
export async function getSettings(
  rc: RequestContext,
  actor: Actor,
  kind: SettingsKind,
  names?: BookmarkNames,
): Promise<Record<string, unknown>> {
  const stored = (await read(rc, actor.id))?.[kind];
  const doc = stored ? (JSON.parse(stored) as Record<string, unknown>) : {};
  return kind === "bookmarks" ? visibleBookmarks(rc, actor, doc, names) : doc;
}

/**
 * Merges `patch` into the caller's document one level deep: each top-level key of the patch replaces that key, a
 * `null` value removes it, other keys stay. 413 when the result would exceed `SETTINGS_MAX_BYTES`. The write only
 * applies if the document is still the one read (compare-and-set), so concurrent PATCHes of different keys all land.
 * @example await patchSettings(rc, actor, "bookmarks", { "01…": { name: "Съёмки" }, old: null })
 */
export async function patchSettings(
  rc: RequestContext,
  actor: Actor,
  kind: SettingsKind,
  patch: Record<string, unknown>,
  names?: BookmarkNames,
): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await read(rc, actor.id);
    const before = current?.[kind];
    const next: Record<string, unknown> = before ? JSON.parse(before) : {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete next[key];
      else next[key] = value;
    }
    const text = JSON.stringify(next);
    if (new TextEncoder().encode(text).length > SETTINGS_MAX_BYTES) {
      throw new AppError("PAYLOAD_TOO_LARGE", ru.users.settingsTooLarge(SETTINGS_MAX_BYTES / 1024));
    }
    const now = Date.now();
    if (!current) {
      const inserted = await rc.db
        .insert(userSettings)
        .values({
          userId: actor.id,
          uiSettings: {},
          bookmarks: {},
          [kind === "ui_settings" ? "uiSettings" : "bookmarks"]: next,
          mtime: now,
        })
        .onConflictDoNothing()
        .run();
      if (inserted.meta.changes > 0) return kind === "bookmarks" ? visibleBookmarks(rc, actor, next, names) : next;
      continue;
    }
    const updated = await rc.db
      .update(userSettings)
      .set({ [kind === "ui_settings" ? "uiSettings" : "bookmarks"]: next, mtime: now })
      .where(and(eq(userSettings.userId, actor.id), sql`${column[kind]} = ${before}`))
      .run();
    if (updated.meta.changes > 0) return kind === "bookmarks" ? visibleBookmarks(rc, actor, next, names) : next;
  }
  throw new AppError("CONFLICT", ru.users.settingsBusy);
}
