import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Revisions that version the edge cache (migration 0023; docs/security.md «Edge cache»). One row, scope `shared`:
 * bumped by triggers in the same statement as any change to what a shared link shows — the link itself (not its
 * counters), its creator, folders, memberships, assets, versions, ready variants, previews and access rules. The
 * cached `/sl` answers are keyed on it, so an entry written before a change is never read after it.
 */
export const cacheRevisions = sqliteTable("cache_revisions", {
  scope: text("scope").primaryKey(),
  revision: integer("revision", { mode: "number" }).notNull().default(0),
});
