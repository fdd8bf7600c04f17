import { asc, eq, sql } from "drizzle-orm";
import type { Database } from "../client";
import { assetClasses, assets, groups } from "../schema/index";
import type { Reach } from "./library-crossing.repository";
import { foldName, foldedSql, inIds } from "./tag.repository";

const columns = { id: assetClasses.id, name: assetClasses.name, defFields: assetClasses.defFields };

export function listAssetClasses(db: Database, opts: { skip: number; take: number }) {
  return db
    .select(columns)
    .from(assetClasses)
    .orderBy(asc(foldedSql(assetClasses.name)), asc(assetClasses.id))
    .limit(opts.take)
    .offset(opts.skip);
}

export function findAssetClassesByIds(db: Database, ids: readonly string[]) {
  return db
    .select(columns)
    .from(assetClasses)
    .where(inIds(assetClasses.id, ids))
    .orderBy(asc(foldedSql(assetClasses.name)), asc(assetClasses.id));
}

export function findAssetClass(db: Database, id: string) {
  return db.select(columns).from(assetClasses).where(eq(assetClasses.id, id)).get();
}

/** Inserts a class unless one with the same case-folded name exists: one statement. Answers whether it was inserted. */
export async function insertAssetClassIfNameFree(
  db: Database,
  row: { id: string; name: string; defFields: string[]; ctime: number },
): Promise<boolean> {
  const result = await db.run(
    sql`insert or ignore into ${assetClasses} (id, name, def_fields, ctime, mtime)
        select ${row.id}, ${row.name}, ${JSON.stringify(row.defFields)}, ${row.ctime}, ${row.ctime}
        where not exists (select 1 from ${assetClasses} where ${foldedSql(assetClasses.name)} = ${foldName(row.name)})`,
  );
  return result.meta.changes > 0;
}

/** Changes name and/or fields unless the new name is taken (case-folded) by another class; answers whether it changed. */
export async function updateAssetClassIfNameFree(
  db: Database,
  id: string,
  change: { name?: string; defFields?: string[]; mtime: number },
): Promise<boolean> {
  const sets = [sql`mtime = ${change.mtime}`];
  if (change.name !== undefined) sets.push(sql`name = ${change.name}`);
  if (change.defFields !== undefined) sets.push(sql`def_fields = ${JSON.stringify(change.defFields)}`);
  const nameFree =
    change.name === undefined
      ? sql``
      : sql` and not exists (select 1 from ${assetClasses} c2 where c2.id <> ${id} and ${foldedSql(sql`c2.name`)} = ${foldName(change.name)})`;
  const result = await db.run(
    sql`update or ignore ${assetClasses} set ${sql.join(sets, sql`, `)} where ${assetClasses.id} = ${id}${nameFree}`,
  );
  return result.meta.changes > 0;
}

/**
 * Deletes a class only while no asset (trash included) and no group uses it: the check and the delete are one
 * statement, so an asset given the class concurrently cannot be left pointing at nothing.
 */
export async function deleteAssetClassIfUnused(db: Database, id: string): Promise<boolean> {
  const result = await db.run(
    sql`delete from ${assetClasses} where ${assetClasses.id} = ${id}
        and not exists (select 1 from ${assets} where ${assets.classId} = ${id})
        and not exists (select 1 from ${groups} where ${groups.defaultClass} = ${id})`,
  );
  return result.meta.changes > 0;
}

/** The files of class `id`, trash included: its uses in libraries, counted in each (`countReached`). */
export const classFiles = (id: string): Reach => ({ entities: "SELECT id FROM assets WHERE class_id = ?1", binds: [id] });

/** The folders whose new files take class `id`. */
export const classFolders = (id: string): Reach => ({ entities: "SELECT id FROM groups WHERE default_class = ?1", binds: [id] });
