import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { GlobalStatement } from "../library-shard-import";
import { catalogStatement, type Reach } from "./library-crossing.repository";
import type { Database } from "../client";
import { assetClasses, assets, assetVersions, fieldTemplates, fieldValues, groups, lists, users, variants } from "../schema/index";
import type { FieldEntityType } from "../schema/field-values";
import type { Statement } from "./asset.repository";
import { visibleSql, type Visibility } from "./access.repository";
import { foldedSql, foldName, inIds } from "./tag.repository";
import { inLibraryScope, type LibraryScope } from "./library-scope";

const dialect = new SQLiteAsyncDialect();

// ---------------------------------------------------------------------------------------------------------------
// Templates

export function listTemplateRows(db: Database, opts: { name?: string; skip: number; take: number }) {
  return db
    .select()
    .from(fieldTemplates)
    .where(opts.name ? sql`instr(${foldedSql(fieldTemplates.name)}, ${foldName(opts.name)}) > 0` : undefined)
    .orderBy(asc(fieldTemplates.priority), asc(foldedSql(fieldTemplates.name)), asc(fieldTemplates.id))
    .limit(opts.take)
    .offset(opts.skip);
}

export function findTemplatesByIds(db: Database, ids: readonly string[]) {
  return db
    .select()
    .from(fieldTemplates)
    .where(inIds(fieldTemplates.id, ids))
    .orderBy(asc(fieldTemplates.priority), asc(foldedSql(fieldTemplates.name)), asc(fieldTemplates.id));
}

export function findTemplate(db: Database, id: string) {
  return db.select().from(fieldTemplates).where(eq(fieldTemplates.id, id)).get();
}

/** Templates mapped to any of the given external keys (import of technical metadata). */
export function findTemplatesByExtsysKeys(db: Database, keys: readonly string[]) {
  return db.select().from(fieldTemplates).where(inIds(fieldTemplates.extsysKey, keys));
}

/** Inserts a template unless its case-folded name is taken: one statement. Answers whether it was inserted. */
export async function insertTemplateIfNameFree(db: Database, row: typeof fieldTemplates.$inferInsert): Promise<boolean> {
  const result = await db.run(
    sql`insert or ignore into ${fieldTemplates} (id, name, field_type, setup, priority, extsys, extsys_key, ctime, mtime)
        select ${row.id}, ${row.name}, ${row.fieldType}, ${JSON.stringify(row.setup ?? {})}, ${row.priority ?? 0}, ${row.extsys ?? null},
               ${row.extsysKey ?? null}, ${row.ctime}, ${row.mtime}
        where not exists (select 1 from ${fieldTemplates} where ${foldedSql(fieldTemplates.name)} = ${foldName(row.name)})`,
  );
  return result.meta.changes > 0;
}

/** Changes a template unless the new name is taken by another; answers whether a row changed. */
export async function updateTemplateIfNameFree(
  db: Database,
  id: string,
  change: {
    name?: string;
    fieldType?: string;
    setup?: Record<string, unknown>;
    priority?: number;
    extsys?: string | null;
    extsysKey?: string | null;
    mtime: number;
  },
): Promise<boolean> {
  const sets = [sql`mtime = ${change.mtime}`];
  if (change.name !== undefined) sets.push(sql`name = ${change.name}`);
  if (change.fieldType !== undefined) sets.push(sql`field_type = ${change.fieldType}`);
  if (change.setup !== undefined) sets.push(sql`setup = ${JSON.stringify(change.setup)}`);
  if (change.priority !== undefined) sets.push(sql`priority = ${change.priority}`);
  if (change.extsys !== undefined) sets.push(sql`extsys = ${change.extsys}`);
  if (change.extsysKey !== undefined) sets.push(sql`extsys_key = ${change.extsysKey}`);
  const nameFree =
    change.name === undefined
      ? sql``
      : sql` and not exists (select 1 from ${fieldTemplates} t2 where t2.id <> ${id} and ${foldedSql(sql`t2.name`)} = ${foldName(
          change.name,
        )})`;
  const result = await db.run(sql`update ${fieldTemplates} set ${sql.join(sets, sql`, `)} where ${fieldTemplates.id} = ${id}${nameFree}`);
  return result.meta.changes > 0;
}

/** How many classes list a template among their fields. */
export async function classesListingTemplate(db: Database, id: string): Promise<number> {
  const row = await db.get<{ n: number }>(
    sql`select count(*) as n from ${assetClasses} where exists (select 1 from json_each(${assetClasses.defFields}) where value = ${id})`,
  );
  return Number(row?.n ?? 0);
}

/** The folders and files holding values of template `id`. */
export const templateValues = (id: string): Reach => ({ entities: "SELECT entity_id FROM field_values WHERE def_id = ?1", binds: [id] });

/** Every value of template `id` deleted: in the catalog, and in each library's shard (decision 050). */
export const templateValuesDeleted = (id: string): GlobalStatement => ({
  sql: "DELETE FROM field_values WHERE def_id = ?1 RETURNING id",
  binds: [id],
});

/** The statements deleting a template with its values and removing it from every class (one batch). */
export function deleteTemplateStatements(db: Database, id: string, now: number) {
  return [
    catalogStatement(templateValuesDeleted(id)),
    sql`update ${assetClasses} set def_fields = (select coalesce(json_group_array(value), '[]') from json_each(${assetClasses.defFields}) where value <> ${id}), mtime = ${now}
        where exists (select 1 from json_each(${assetClasses.defFields}) where value = ${id})`,
    db.delete(fieldTemplates).where(eq(fieldTemplates.id, id)),
  ];
}

export function listExists(db: Database, id: string) {
  return db.select({ id: lists.id }).from(lists).where(eq(lists.id, id)).get();
}

// ---------------------------------------------------------------------------------------------------------------
// Entities and references

export interface FieldEntity {
  id: string;
  type: FieldEntityType;
  owner_id: string | null;
  class_id: string | null;
}

/** Live assets and groups among `ids` with owner and class, in one query. */
export function findFieldEntities(db: Database, ids: readonly string[]) {
  return db.all<FieldEntity>(
    sql`select ${assets.id} as id, 'asset' as type, ${assets.ownerId} as owner_id, ${assets.classId} as class_id from ${assets}
          where ${inIds(assets.id, ids)} and ${assets.deletedAt} is null
        union all
        select ${groups.id} as id, 'group' as type, ${groups.ownerId} as owner_id, ${groups.defaultClass} as class_id from ${groups}
          where ${inIds(groups.id, ids)} and ${groups.deletedAt} is null`,
  );
}

/** Users among `ids` (for user references). */
export function findUsersByIds(db: Database, ids: readonly string[]) {
  return db.select({ id: users.id }).from(users).where(inIds(users.id, ids));
}

/** A committed version of an asset by its row id. */
export function findVersionById(db: Database, assetId: string, versionId: string) {
  return db
    .select({ id: assetVersions.id, version: assetVersions.version })
    .from(assetVersions)
    .where(and(eq(assetVersions.id, versionId), eq(assetVersions.assetId, assetId)))
    .get();
}

/** A committed version of an asset by its number. */
export function findVersionByNumber(db: Database, assetId: string, version: number) {
  return db
    .select({ id: assetVersions.id, version: assetVersions.version })
    .from(assetVersions)
    .where(and(eq(assetVersions.assetId, assetId), eq(assetVersions.version, version)))
    .get();
}

/**
 * A version create-version reserved and whose bytes have not committed (its upload pending or saving), by the
 * reserving upload's id (the `variant_id` the version listing shows) or by its number. Values attached to it are
 * keyed by that upload id until the commit carries them to the version row.
 */
export function findReservation(db: Database, assetId: string, by: { id: string } | { version: number }) {
  return db
    .select({ id: variants.id, version: sql<number>`${variants.reservedVersion}` })
    .from(variants)
    .where(
      and(
        eq(variants.assetId, assetId),
        sql`${variants.status} in ('pending', 'saving')`,
        "id" in by ? eq(variants.id, by.id) : eq(variants.reservedVersion, by.version),
        sql`${variants.reservedVersion} is not null`,
      ),
    )
    .get();
}

/**
 * Forgets the values attached to reservations among `variantIds` that no longer hold a version (cancelled, aborted or
 * deleted): run in the same batch as the statement that ends them, after it, so no value outlives its version.
 */
export function dropReservationValuesStatement(db: Database, variantIds: readonly string[]) {
  return db
    .delete(fieldValues)
    .where(
      and(
        inIds(fieldValues.versionId, variantIds),
        sql`not exists (select 1 from ${variants} v where v.id = ${fieldValues.versionId} and v.status in ('pending', 'saving'))`,
      ),
    );
}

/**
 * Settles values just written against reservations among `variantIds`, at the end of the batch that wrote them: an
 * upload that committed between the check and the write moves them to its version row; one that was cancelled
 * meanwhile takes them with it. So a value never stays keyed by a reservation that no longer holds a version.
 */
export function settleReservationValuesStatements(db: Database, variantIds: readonly string[]): Statement[] {
  if (variantIds.length === 0) return [];
  const ids = JSON.stringify([...new Set(variantIds)]);
  return [
    sql`update ${fieldValues}
      set version = (select av.version from variants v join asset_versions av on av.id = v.version_id where v.id = field_values.version_id),
          version_id = (select v.version_id from variants v where v.id = field_values.version_id)
      where version_id in (select value from json_each(${ids}))
        and exists (select 1 from variants v where v.id = field_values.version_id and v.status = 'ready' and v.version_id is not null)`,
    dropReservationValuesStatement(db, variantIds),
  ];
}

/**
 * The media duration in seconds of an asset's version (the latest when null), when a processing step has recorded
 * one in the technical properties or fields of a variant; null when unknown.
 */
export async function mediaDuration(db: Database, assetId: string, versionId: string | null): Promise<number | null> {
  const row = await db.get<{ d: unknown }>(
    sql`select coalesce(json_extract(${variants.techProps}, '$.duration'), json_extract(${variants.techFields}, '$.duration'),
                        json_extract(${variants.techFields}, '$.format.duration')) as d
        from ${variants}
        where ${variants.assetId} = ${assetId} and ${variants.status} = 'ready'
          and ${
            versionId
              ? sql`${variants.versionId} = ${versionId}`
              : sql`${variants.versionId} = (select id from ${assetVersions} where asset_id = ${assetId} order by version desc limit 1)`
          }
          and d is not null
        limit 1`,
  );
  const n = Number(row?.d);
  return row && Number.isFinite(n) && n > 0 ? n : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Values

export interface ValueFilter {
  /** values whose range contains this instant (untimed values are left out) */
  pts?: number;
  /** values whose range overlaps [from, to] (untimed values are left out) */
  range?: [number, number];
  /** values of this version number plus values of the asset as a whole */
  version?: number;
  defs?: readonly string[];
}

export function listValuesOfEntity(db: Database, entityId: string, filter: ValueFilter) {
  const conditions: SQL[] = [eq(fieldValues.entityId, entityId)];
  if (filter.pts !== undefined) conditions.push(sql`${fieldValues.ptsStart} <= ${filter.pts} and ${fieldValues.ptsEnd} >= ${filter.pts}`);
  if (filter.range) conditions.push(sql`${fieldValues.ptsStart} <= ${filter.range[1]} and ${fieldValues.ptsEnd} >= ${filter.range[0]}`);
  if (filter.version !== undefined) conditions.push(sql`(${fieldValues.version} is null or ${fieldValues.version} = ${filter.version})`);
  if (filter.defs) conditions.push(inIds(fieldValues.defId, filter.defs));
  return db
    .select()
    .from(fieldValues)
    .where(and(...conditions))
    .orderBy(asc(fieldValues.defId), sql`${fieldValues.ptsStart} is not null`, asc(fieldValues.ptsStart), asc(fieldValues.id));
}

export function findValue(db: Database, entityId: string, id: string) {
  return db
    .select()
    .from(fieldValues)
    .where(and(eq(fieldValues.id, id), eq(fieldValues.entityId, entityId)))
    .get();
}

/** How many untimed values an entity has for a template (and version). */
export async function countUntimedValues(db: Database, entityId: string, defId: string, versionId: string | null, exceptId?: string) {
  const row = await db.get<{ n: number }>(
    sql`select count(*) as n from ${fieldValues} where ${fieldValues.entityId} = ${entityId} and ${fieldValues.defId} = ${defId}
        and ${fieldValues.ptsStart} is null and ${
      versionId === null ? sql`${fieldValues.versionId} is null` : sql`${fieldValues.versionId} = ${versionId}`
    }
        ${exceptId ? sql`and ${fieldValues.id} <> ${exceptId}` : sql``}`,
  );
  return Number(row?.n ?? 0);
}

/** The templates among `defIds` for which the entity has at least one value. */
export async function filledDefs(db: Database, entityId: string, defIds: readonly string[], exceptIds: readonly string[] = []) {
  const rows = await db.all<{ def_id: string }>(
    sql`select distinct def_id from ${fieldValues} where ${fieldValues.entityId} = ${entityId} and ${inIds(fieldValues.defId, defIds)}
        and ${fieldValues.id} not in (select value from json_each(${JSON.stringify(exceptIds)}))`,
  );
  return new Set(rows.map((r) => r.def_id));
}

export function findClassDefs(db: Database, classId: string) {
  return db
    .select({ id: assetClasses.id, name: assetClasses.name, defFields: assetClasses.defFields })
    .from(assetClasses)
    .where(eq(assetClasses.id, classId))
    .get();
}

export type ValueCondition =
  | { op: "eq"; column: "text" | "num"; value: string | number }
  | { op: "range"; min?: number; max?: number }
  | { op: "prefix"; value: string };

/**
 * Entities having a value of `defId` matching the condition: one index range scan on (def_id, value_text|value_num,
 * entity_id) plus, for non-administrators, the access rules' visibility of the entity. Distinct entities, paged.
 * Also answers the time D1 spent executing the SQL (`sqlMs`), which the API reports in `Server-Timing`.
 */
export async function entitiesByCondition(
  db: Database,
  opts: {
    defId: string;
    condition: ValueCondition;
    entityType?: FieldEntityType;
    vis: Visibility | null;
    skip: number;
    take: number;
    scope: LibraryScope;
  },
) {
  const c = opts.condition;
  const match =
    c.op === "eq"
      ? c.column === "text"
        ? sql`fv.value_text = ${c.value}`
        : sql`fv.value_num = ${c.value}`
      : c.op === "prefix"
      ? sql`fv.value_text >= ${c.value} and fv.value_text < ${`${c.value}\uffff`}`
      : sql`fv.value_num is not null${c.min !== undefined ? sql` and fv.value_num >= ${c.min}` : sql``}${
          c.max !== undefined ? sql` and fv.value_num <= ${c.max}` : sql``
        }`;
  const visible = sql`((fv.entity_type = 'asset' and exists (select 1 from ${assets} a where a.id = fv.entity_id and a.deleted_at is null
      and ${visibleSql(opts.vis, "asset", sql`a.id`, sql`a.owner_id`)}))
    or (fv.entity_type = 'group' and exists (select 1 from ${groups} g where g.id = fv.entity_id and g.deleted_at is null
      and ${visibleSql(opts.vis, "group", sql`g.id`, sql`g.owner_id`)})))`;
  const query = dialect.sqlToQuery(
    sql`select fv.entity_id, fv.entity_type, fv.id as field_id, fv.data, fv.pts_start, fv.pts_end
        from ${fieldValues} fv
        where fv.def_id = ${opts.defId} and ${match}${
      opts.entityType ? sql` and fv.entity_type = ${opts.entityType}` : sql``
    } and ${visible}${opts.scope === "all" ? sql`` : sql` and ${inLibraryScope(opts.scope, sql`fv.entity_id`)}`}
        group by fv.entity_id
        order by fv.entity_id
        limit ${opts.take} offset ${opts.skip}`,
  );
  const result = await db.$client
    .prepare(query.sql)
    .bind(...query.params)
    .all<{
      entity_id: string;
      entity_type: FieldEntityType;
      field_id: string;
      data: string;
      pts_start: number | null;
      pts_end: number | null;
    }>();
  return { rows: result.results, sqlMs: result.meta.duration };
}

/** Removes every value of the given entities; for purges (include it in the purge batch). */
export function deleteValuesOfEntitiesStatement(db: Database, entityIds: readonly string[]) {
  return db.delete(fieldValues).where(inIds(fieldValues.entityId, entityIds));
}

export interface NewValueRow {
  id: string;
  entityId: string;
  entityType: FieldEntityType;
  defId: string;
  versionId: string | null;
  version: number | null;
  ptsStart: number | null;
  ptsEnd: number | null;
  data: unknown;
  valueText: string | null;
  valueNum: number | null;
  userId: string | null;
  ctime: number;
  mtime: number;
}

export function insertValueStatement(db: Database, row: NewValueRow) {
  return db.insert(fieldValues).values(row);
}

/**
 * One statement inserting the same value on many entities (bulk set): the entity list travels as one JSON parameter
 * and ids are generated from `idPrefix` plus the entity's position, so 1,000 rows are a single INSERT … SELECT.
 */
export function bulkInsertValuesStatement(
  db: Database,
  opts: {
    entities: readonly { id: string; type: FieldEntityType }[];
    ids: readonly string[];
    defId: string;
    data: unknown;
    valueText: string | null;
    valueNum: number | null;
    userId: string;
    now: number;
  },
) {
  const rows = opts.entities.map((e, i) => [opts.ids[i], e.id, e.type]);
  return sql`insert into ${fieldValues} (id, entity_id, entity_type, def_id, version_id, version, pts_start, pts_end, data, value_text, value_num, user_id, ctime, mtime)
    select json_extract(r.value, '$[0]'), json_extract(r.value, '$[1]'), json_extract(r.value, '$[2]'), ${
      opts.defId
    }, null, null, null, null,
           ${JSON.stringify(opts.data)}, ${opts.valueText}, ${opts.valueNum}, ${opts.userId}, ${opts.now}, ${opts.now}
    from json_each(${JSON.stringify(rows)}) r
    returning 1`;
}

/** Removes the untimed, version-less values of a template on many entities (bulk replace). */
export function deleteUntimedValuesStatement(db: Database, defId: string, entityIds: readonly string[]) {
  return sql`delete from ${fieldValues} where ${fieldValues.defId} = ${defId} and ${inIds(fieldValues.entityId, entityIds)}
    and ${fieldValues.ptsStart} is null and ${fieldValues.versionId} is null`;
}

/** Removes the untimed values of the given templates for one asset version (import replaces what it imported before). */
export function deleteVersionValuesStatement(db: Database, entityId: string, versionId: string | null, defIds: readonly string[]) {
  return sql`delete from ${fieldValues} where ${fieldValues.entityId} = ${entityId} and ${inIds(fieldValues.defId, defIds)}
    and ${fieldValues.ptsStart} is null and ${
    versionId === null ? sql`${fieldValues.versionId} is null` : sql`${fieldValues.versionId} = ${versionId}`
  }`;
}

export function updateValueStatement(db: Database, id: string, set: Partial<NewValueRow>) {
  return db.update(fieldValues).set(set).where(eq(fieldValues.id, id));
}

export function deleteValueStatement(db: Database, id: string) {
  return db.delete(fieldValues).where(eq(fieldValues.id, id));
}
