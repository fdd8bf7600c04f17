import { sql, type SQL } from "drizzle-orm";

/**
 * Which libraries' rows a list across libraries reads (decision 051, step 2.3): `"own"`, those the database holds as
 * their own — in the catalog, its copy of every library that lives in its shard left out, each shard answering for
 * its own; inside a shard (whose directories are empty), all its rows; `{ library }`, one switched library's rows in
 * the catalog's copy, read while a change across holds its shard; `"all"`, the catalog with its copies, as before
 * sharding (a page too deep to merge).
 */
export type LibraryScope = "own" | "all" | { library: string };

/** Whether folder or file `id` (an SQL expression) is of the libraries `scope` names: one directory probe per row. */
export function inLibraryScope(scope: LibraryScope, id: SQL): SQL {
  if (scope === "all") return sql`1`;
  return scope === "own"
    ? sql`not exists (select 1 from id_directory d join library_directory l on l.library_id = d.library_id
        where d.id = ${id} and l.state = 'shard')`
    : sql`exists (select 1 from id_directory d where d.id = ${id} and d.library_id = ${scope.library})`;
}
