import { sql } from "drizzle-orm";
import type { Database } from "../client";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { runBatch } from "./asset.repository";

/**
 * What each library holds in the catalog, as moving it into its own shard would take it (decision 043): a library is
 * a top-level folder and its subtree; its assets are those listed in its folders (an asset listed in several
 * libraries counts in each, and is reported as such). Every figure comes from one batch: one round trip, each
 * statement one pass grouped by library.
 */

/** The folders of every library: `folder` lies in the subtree of top-level folder `library`. */
const LIBRARY_FOLDERS = sql`lib AS (
  SELECT c.descendant AS folder, c.ancestor AS library
  FROM group_closure c JOIN groups t ON t.id = c.ancestor
  WHERE t.parent_id = ${ROOT_GROUP_ID} AND t.id <> ${ROOT_GROUP_ID})`;
/** The assets of every library, each once per library. */
const LIBRARY_ASSETS = sql`placed AS (
  SELECT DISTINCT gm.el_id AS asset, lib.library FROM group_members gm JOIN lib ON lib.folder = gm.group_id
  WHERE gm.el_type = 'asset')`;

export interface LibraryRows {
  id: string;
  name: string;
  folders: number;
  memberships: number;
  assets: number;
  /** of `assets`: those listed in another library too */
  shared: number;
  versions: number;
  variants: number;
  /** bytes of the variants' files (in R2: not moved, only their rows) */
  fileBytes: number;
  previews: number;
  comments: number;
  fieldValues: number;
  rules: number;
  links: number;
}

export interface LibraryPlanRows {
  libraries: LibraryRows[];
  /** assets listed in no folder of any library */
  unplaced: number;
  /** the catalog database's size as D1 reports it */
  catalogBytes: number;
}

type Row = Record<string, number | string | null>;

/** Each statement's rows keyed by library. */
function byLibrary(result: D1Result): Map<string, Row> {
  return new Map((result.results as Row[]).map((row) => [String(row.library), row]));
}

export async function libraryPlanRows(db: Database): Promise<LibraryPlanRows> {
  const [folders, members, assets, shared, folderRefs, unplaced] = await runBatch(db, [
    sql`WITH ${LIBRARY_FOLDERS}
        SELECT t.id AS library, t.name, count(*) AS folders FROM lib JOIN groups t ON t.id = lib.library
        GROUP BY t.id ORDER BY t.name, t.id`,
    sql`WITH ${LIBRARY_FOLDERS}
        SELECT lib.library, count(*) AS memberships FROM group_members gm JOIN lib ON lib.folder = gm.group_id
        GROUP BY lib.library`,
    sql`WITH ${LIBRARY_FOLDERS}, ${LIBRARY_ASSETS}
        SELECT p.library, count(*) AS assets,
          sum((SELECT count(*) FROM asset_versions v WHERE v.asset_id = p.asset)) AS versions,
          sum((SELECT count(*) FROM variants r WHERE r.asset_id = p.asset)) AS variants,
          sum((SELECT coalesce(sum(r.content_size), 0) FROM variants r WHERE r.asset_id = p.asset)) AS file_bytes,
          sum((SELECT count(*) FROM previews w WHERE w.asset_id = p.asset)) AS previews,
          sum((SELECT count(*) FROM comments m WHERE m.asset_id = p.asset)) AS comments,
          sum((SELECT count(*) FROM field_values f WHERE f.entity_id = p.asset)) AS field_values,
          sum((SELECT count(*) FROM access_rules a WHERE a.obj_id = p.asset)) AS rules,
          sum((SELECT count(*) FROM shortlinks s WHERE s.entity_id = p.asset)) AS links
        FROM placed p GROUP BY p.library`,
    sql`WITH ${LIBRARY_FOLDERS}, ${LIBRARY_ASSETS}, spread AS (SELECT asset FROM placed GROUP BY asset HAVING count(*) > 1)
        SELECT p.library, count(*) AS shared FROM placed p JOIN spread s ON s.asset = p.asset GROUP BY p.library`,
    sql`WITH ${LIBRARY_FOLDERS}
        SELECT lib.library,
          sum((SELECT count(*) FROM access_rules a WHERE a.obj_id = lib.folder)) AS rules,
          sum((SELECT count(*) FROM shortlinks s WHERE s.entity_id = lib.folder)) AS links
        FROM lib GROUP BY lib.library`,
    sql`SELECT count(*) AS n FROM assets a
        WHERE NOT EXISTS (SELECT 1 FROM group_members gm WHERE gm.el_id = a.id AND gm.el_type = 'asset')`,
  ]);
  const [memberRows, assetRows, sharedRows, folderRows] = [members, assets, shared, folderRefs].map(byLibrary);
  const n = (row: Row | undefined, column: string) => Number(row?.[column] ?? 0);
  const libraries = (folders.results as Row[]).map((row): LibraryRows => {
    const id = String(row.library);
    const [m, a, sh, f] = [memberRows.get(id), assetRows.get(id), sharedRows.get(id), folderRows.get(id)];
    return {
      id,
      name: String(row.name),
      folders: n(row, "folders"),
      memberships: n(m, "memberships"),
      assets: n(a, "assets"),
      shared: n(sh, "shared"),
      versions: n(a, "versions"),
      variants: n(a, "variants"),
      fileBytes: n(a, "file_bytes"),
      previews: n(a, "previews"),
      comments: n(a, "comments"),
      fieldValues: n(a, "field_values"),
      rules: n(a, "rules") + n(f, "rules"),
      links: n(a, "links") + n(f, "links"),
    };
  });
  return {
    libraries,
    unplaced: n((unplaced.results as Row[])[0], "n"),
    catalogBytes: Number((unplaced.meta as { size_after?: number }).size_after ?? 0),
  };
}
