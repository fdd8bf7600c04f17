import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Revisions that version cached answers, one row per scope, each bumped by triggers in the same statement as any
 * change to what its answers show, so an entry written before a change is never read after it.
 * - `shared` (migration 0023; docs/security.md «Edge cache»): what a shared link shows — the link itself (not its
 *   counters), its creator, folders, memberships, assets, versions, ready variants, previews and access rules. The
 *   cached `/sl` answers are keyed on it.
 * - `people` (migration 0052; decision 035): users' logins and names, and their removal. The kept comment lists are
 *   keyed on it beside the file's own `comment_revisions` row.
 * - `readable` (migration 0053; decision 034): what a reader may read among the files of collections — rules,
 *   inheritance, the folder tree, users' groups and confinement, and those files' owner, deletion and listings. The
 *   collections' readable-item checkpoints are valid only under the revision they were built at.
 */
export const cacheRevisions = sqliteTable("cache_revisions", {
  scope: text("scope").primaryKey(),
  revision: integer("revision", { mode: "number" }).notNull().default(0),
});
