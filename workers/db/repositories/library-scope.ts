import { sql, type SQL } from "drizzle-orm";

/**
 * Which libraries' rows a list or count across libraries reads (decision 051, step 2.3): `"own"`, the catalog's own
 * libraries — its copy of every library that lives in its shard left out, each shard answering for its own — and every
 * shared file (decision 047: listed in two libraries, who may see it depends on folders and rules no one shard holds,
 * so the catalog's copy answers for it); `"shard"`, inside a shard, its rows but its shared files; `{ library }`, one
 * switched library's rows in the catalog's copy (its shared files left to `"own"`), read while a change across holds
 * its shard; `"all"`, the catalog with its copies, as before sharding (a page too deep to merge).
 */
export type LibraryScope = "own" | "shard" | "all" | { library: string };

/** Whether folder or file `id` (an SQL expression) is of the libraries `scope` names: a directory probe or two per row. */
export function inLibraryScope(scope: LibraryScope, id: SQL): SQL {
  if (scope === "all") return sql`1`;
  if (scope === "shard") return sql`not exists (select 1 from shard_shared s where s.asset_id = ${id})`;
  return scope === "own"
    ? sql`not exists (select 1 from id_directory d join library_directory l on l.library_id = d.library_id
        where d.id = ${id} and l.state = 'shard' and not ${listedOutside(id, sql`d.library_id`)})`
    : sql`exists (select 1 from id_directory d where d.id = ${id} and d.library_id = ${scope.library})
        and not ${listedOutside(id, sql`${scope.library}`)}`;
}

/** Whether file `id` is listed in a folder of a library other than `library` (its home's): a shared file. */
function listedOutside(id: SQL, library: SQL): SQL {
  return sql`exists (select 1 from group_members m where m.el_id = ${id} and m.el_type = 'asset'
    and not exists (select 1 from id_directory g where g.id = m.group_id and g.library_id = ${library}))`;
}

/** For a list's global rows (tags, taxa), by id, how many of their uses the libraries in their shards hold. */
export type CountsElsewhere = (ids: string[]) => Promise<Map<string, number>>;

/**
 * A list whose rows count uses in libraries (decision 051, step 2.3): without `elsewhere` (no library lives in a shard)
 * counted over the catalog alone; with it, over the catalog's own libraries, then each row's count in the shards added
 * — asked beside the list when its rows are known beforehand (`ids`), after it otherwise.
 */
export async function countedEverywhere<T extends { id: string; count: number }>(
  list: (scope: LibraryScope) => Promise<T[]>,
  elsewhere: CountsElsewhere | undefined,
  ids?: string[],
): Promise<T[]> {
  if (!elsewhere) return list("all");
  const [rows, known] = await Promise.all([list("own"), ids && elsewhere(ids)]);
  if (rows.length === 0) return rows;
  const more = known ?? (await elsewhere(rows.map((row) => row.id)));
  return rows.map((row) => ({ ...row, count: row.count + (more.get(row.id) ?? 0) }));
}
