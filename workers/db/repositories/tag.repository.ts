import { and, asc, eq, ne, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Database } from "../client";
import type { GlobalStatement } from "../library-shard-import";
import { catalogStatement, type Reach } from "./library-crossing.repository";
import { visibleSql, type Visibility } from "./access.repository";
import { inLibraryScope, type LibraryScope } from "./library-scope";
import { assets, entityTags, groups, tags } from "../schema/index";

/**
 * Case folding for the catalog's case-insensitive names (tags, classes, storages). SQLite's `lower()` folds ASCII
 * only, so 'Тег' and 'тег' would count as different names: `foldedSql` also folds the Cyrillic capitals of Russian,
 * Ukrainian and Belarusian with nested `replace()` (D1 caps expression depth at 100, so the list stays short), and
 * `foldName` does exactly the same in JavaScript, so a value folded here compares equal to one folded in SQL.
 * Other scripts compare case-sensitively beyond ASCII.
 */
const FOLD_PAIRS: [string, string][] = [];
for (let c = 0x0410; c <= 0x042f; c++) FOLD_PAIRS.push([String.fromCharCode(c), String.fromCharCode(c + 0x20)]);
for (const c of [0x0401, 0x0404, 0x0406, 0x0407, 0x040e]) FOLD_PAIRS.push([String.fromCharCode(c), String.fromCharCode(c + 0x50)]);
FOLD_PAIRS.push(["\u0490", "\u0491"]);
const FOLD_MAP = new Map(FOLD_PAIRS);
const FOLD_CHARS = new RegExp(`[A-Z${FOLD_PAIRS.map(([upper]) => upper).join("")}]`, "g");

/** The JavaScript twin of `foldedSql`. @example foldName("Ёлка NEW") // "ёлка new" */
export function foldName(name: string): string {
  return name.replace(FOLD_CHARS, (ch) => FOLD_MAP.get(ch) ?? ch.toLowerCase());
}

/** SQL expression folding a text column the same way as `foldName` (the constant pairs are literals, not params). */
export function foldedSql(column: SQLWrapper): SQL {
  let expr = `lower(__col__)`;
  for (const [upper, lower] of FOLD_PAIRS) expr = `replace(${expr}, '${upper}', '${lower}')`;
  const [before, after] = expr.split("__col__");
  return sql`${sql.raw(before)}${column}${sql.raw(after)}`;
}

/** `column IN (ids)` through `json_each`, so a list of any length is one bound parameter (D1 allows 100 per query). */
export function inIds(column: SQLWrapper, ids: readonly string[]): SQL {
  return sql`${column} in (select value from json_each(${JSON.stringify(ids)}))`;
}

/** `%` and `_` in a user's filter are literal characters, not wildcards. */
export function containsFolded(column: SQLWrapper, q: string): SQL {
  return sql`instr(${foldedSql(column)}, ${foldName(q)}) > 0`;
}

/**
 * How many entities carry the tag, counting only those the caller may read: a count is something people learn, so
 * it obeys the same visibility as the lists (`visibleTaggedEntity`). Administrators (null) count every row. Only the
 * entities of the libraries `scope` names count (each library in its shard counts its own, `countTagged`).
 */
function taggedCount(vis: Visibility | null, scope: LibraryScope) {
  return sql<number>`(select count(*) from ${entityTags} where ${entityTags.tagId} = ${tags.id}${taggedIn(vis, scope)})`.mapWith(Number);
}

/** The condition on an `entity_tags` row that it counts: visible to the caller, of the libraries `scope` names. */
function taggedIn(vis: Visibility | null, scope: LibraryScope): SQL {
  const visible = vis === null ? sql`` : sql` and ${visibleTaggedEntity(vis)}`;
  return scope === "all" ? visible : sql`${visible} and ${inLibraryScope(scope, sql`${entityTags.entityId}`)}`;
}

/** How many entities the caller may read carry each of tags `ids`, in the libraries `scope` names (tags carried by none left out). */
export async function countTagged(db: Database, ids: readonly string[], vis: Visibility | null, scope: LibraryScope) {
  return db.all<{ id: string; count: number }>(
    sql`select ${entityTags.tagId} as id, count(*) as count from ${entityTags}
        where ${inIds(entityTags.tagId, ids)}${taggedIn(vis, scope)} group by ${entityTags.tagId}`,
  );
}

/** One page of tags with the number of entities carrying each, optionally filtered by a name fragment. */
export function listTagsWithCounts(
  db: Database,
  opts: { q?: string; vis: Visibility | null; skip: number; take: number; scope: LibraryScope },
) {
  return db
    .select({ id: tags.id, name: tags.name, count: taggedCount(opts.vis, opts.scope) })
    .from(tags)
    .where(opts.q ? containsFolded(tags.name, opts.q) : undefined)
    .orderBy(asc(foldedSql(tags.name)), asc(tags.id))
    .limit(opts.take)
    .offset(opts.skip);
}

/** The tags among `ids`; `vis` decides what their counts include (null: every entity, for administrators and checks). */
export function findTagsByIds(db: Database, ids: readonly string[], vis: Visibility | null = null, scope: LibraryScope = "all") {
  return db
    .select({ id: tags.id, name: tags.name, count: taggedCount(vis, scope) })
    .from(tags)
    .where(inIds(tags.id, ids))
    .orderBy(asc(foldedSql(tags.name)), asc(tags.id));
}

export function findTag(db: Database, id: string) {
  return db.select().from(tags).where(eq(tags.id, id)).get();
}

/** SQL condition: the entity-tag row `et` points at an asset or group that exists, is not in the trash and is visible. */
function visibleTaggedEntity(vis: Visibility | null): SQL {
  const assetVisible = sql`exists (select 1 from ${assets} where ${assets.id} = ${entityTags.entityId} and ${
    entityTags.entityType
  } = 'asset' and ${assets.deletedAt} is null and ${visibleSql(vis, "asset", sql`${assets.id}`, sql`${assets.ownerId}`)})`;
  const groupVisible = sql`exists (select 1 from ${groups} where ${groups.id} = ${entityTags.entityId} and ${
    entityTags.entityType
  } = 'group' and ${groups.deletedAt} is null and ${visibleSql(vis, "group", sql`${groups.id}`, sql`${groups.ownerId}`)})`;
  return sql`(${assetVisible} or ${groupVisible})`;
}

/** Which entities a tag list is filtered by: the given ones, and/or any of a type. */
export interface EntityFilter {
  entityType?: "asset" | "group";
  entityIds?: readonly string[];
}

/** The condition on an `entity_tags` row that it is one of the filter's, visible to the caller, of `scope`'s libraries. */
function carriedBy(filter: EntityFilter, vis: Visibility | null, scope: LibraryScope): SQL {
  return sql`${filter.entityIds !== undefined ? sql`${inIds(entityTags.entityId, filter.entityIds)} and ` : sql``}${
    filter.entityType ? sql`${entityTags.entityType} = ${filter.entityType} and ` : sql``
  }${visibleTaggedEntity(vis)} and ${inLibraryScope(scope, sql`${entityTags.entityId}`)}`;
}

/**
 * The tags the filter's entities the caller may read carry, in the libraries `scope` names, `limit` at most: one
 * library's share of a filtered list (`listTagsByFilter`'s `carried`). Named entities are looked up by id; a type
 * alone is asked tag by tag (each tag in use, until one visible entity of the type carries it), never by visiting
 * every tagged entity of a library and deciding its visibility.
 */
export async function tagsCarried(db: Database, filter: EntityFilter, vis: Visibility | null, scope: LibraryScope, limit: number) {
  const rows = await db.all<{ id: string }>(
    filter.entityIds !== undefined
      ? sql`select distinct ${entityTags.tagId} as id from ${entityTags} where ${carriedBy(filter, vis, scope)} limit ${limit}`
      : sql`select d.tag_id as id from (select distinct tag_id from ${entityTags}) d
            where exists (select 1 from ${entityTags} where ${entityTags.tagId} = d.tag_id and ${carriedBy(filter, vis, scope)})
            limit ${limit}`,
  );
  return rows.map((row) => row.id);
}

/**
 * Tags whose name contains `q` and/or that are carried by the filter's entities. Only entities the caller may read
 * count (null visibility: all), so the filter never reveals another user's tagging. `carried`: the tags the filter's
 * entities carry, found beforehand where their libraries live (`tagsCarried`); otherwise looked for here.
 */
export function listTagsByFilter(
  db: Database,
  opts: EntityFilter & {
    q?: string;
    vis: Visibility | null;
    skip: number;
    take: number;
    scope: LibraryScope;
    carried?: readonly string[];
  },
) {
  const filtered = opts.entityIds !== undefined || opts.entityType !== undefined;
  // One condition or the other, never both in one: D1's parser refuses the visibility's nesting one level deeper.
  const byEntity = opts.carried
    ? inIds(tags.id, opts.carried)
    : filtered
    ? sql`exists (select 1 from ${entityTags} where ${entityTags.tagId} = ${tags.id} and ${carriedBy(opts, opts.vis, "all")})`
    : undefined;
  return db
    .select({ id: tags.id, name: tags.name, count: taggedCount(opts.vis, opts.scope) })
    .from(tags)
    .where(and(opts.q ? containsFolded(tags.name, opts.q) : undefined, byEntity))
    .orderBy(asc(foldedSql(tags.name)), asc(tags.id))
    .limit(opts.take)
    .offset(opts.skip);
}

/** A tag whose name folds to the same value as `name` (other than `exceptId`). */
export function findTagByName(db: Database, name: string, exceptId?: string) {
  return db
    .select({ id: tags.id, name: tags.name })
    .from(tags)
    .where(and(sql`${foldedSql(tags.name)} = ${foldName(name)}`, exceptId ? ne(tags.id, exceptId) : undefined))
    .get();
}

/**
 * Inserts the tag unless a tag with the same folded name exists: one statement, so two concurrent creations of
 * 'Тег' and 'тег' cannot both succeed. Answers whether it was inserted.
 */
export async function insertTagIfNameFree(db: Database, row: { id: string; name: string; ctime: number }): Promise<boolean> {
  const result = await db.run(
    sql`insert or ignore into ${tags} (id, name, ctime) select ${row.id}, ${row.name}, ${row.ctime}
        where not exists (select 1 from ${tags} where ${foldedSql(tags.name)} = ${foldName(row.name)})`,
  );
  return result.meta.changes > 0;
}

/** Renames a tag unless another tag has the same folded name; answers whether a row changed. */
export async function renameTagIfNameFree(db: Database, id: string, name: string): Promise<boolean> {
  const result = await db.run(
    sql`update ${tags} set name = ${name} where ${tags.id} = ${id}
        and not exists (select 1 from ${tags} t2 where t2.id <> ${id} and ${foldedSql(sql`t2.name`)} = ${foldName(name)})`,
  );
  return result.meta.changes > 0;
}

/** The folders and files a tag is on. */
export const tagUses = (id: string): Reach => ({ entities: "SELECT entity_id FROM entity_tags WHERE tag_id = ?1", binds: [id] });

/** Every use of a tag deleted: in the catalog, and in each library's shard (decision 050). */
export const tagUsesDeleted = (id: string): GlobalStatement => ({
  sql: "DELETE FROM entity_tags WHERE tag_id = ?1 RETURNING entity_id",
  binds: [id],
});

/** The statements deleting a tag and every use of it (run them in one batch). */
export function deleteTagStatements(db: Database, id: string) {
  return [catalogStatement(tagUsesDeleted(id)), db.delete(tags).where(eq(tags.id, id))];
}

export interface TaggableEntity {
  id: string;
  type: "asset" | "group";
}

/** Assets and groups (not in the trash) among `ids`, with their owner, in one query. */
export function findTaggableEntities(db: Database, ids: readonly string[]) {
  return db.all<{ id: string; type: "asset" | "group"; owner_id: string | null }>(
    sql`select ${assets.id} as id, 'asset' as type, ${assets.ownerId} as owner_id from ${assets}
          where ${inIds(assets.id, ids)} and ${assets.deletedAt} is null
        union all
        select ${groups.id} as id, 'group' as type, ${groups.ownerId} as owner_id from ${groups}
          where ${inIds(groups.id, ids)} and ${groups.deletedAt} is null`,
  );
}

/** Adds every tag to every entity (existing pairs stay): one statement whatever the sizes. */
export function attachTagsStatement(db: Database, tagIds: readonly string[], entities: readonly TaggableEntity[]) {
  return db.run(attachTagsSql(tagIds, entities));
}

/** `attachTagsStatement` as raw SQL, for a batch with other statements (`runBatch`). */
export function attachTagsSql(tagIds: readonly string[], entities: readonly TaggableEntity[]): SQL {
  return sql`insert or ignore into ${entityTags} (tag_id, entity_id, entity_type)
        select t.value, json_extract(e.value, '$.id'), json_extract(e.value, '$.type')
        from json_each(${JSON.stringify(tagIds)}) t, json_each(${JSON.stringify(entities)}) e
        returning 1`;
}

/** Removes every tag from every entity: one statement. */
export function detachTagsStatement(db: Database, tagIds: readonly string[], entityIds: readonly string[]) {
  return db
    .delete(entityTags)
    .where(and(inIds(entityTags.tagId, tagIds), inIds(entityTags.entityId, entityIds)))
    .returning({ id: entityTags.entityId });
}

/**
 * Removes all tags from the given entities; for the purge of assets and groups (include it in the purge batch).
 * @example await db.batch([...purgeStatements, detachAllTagsStatement(db, assetIds)])
 */
export function detachAllTagsStatement(db: Database, entityIds: readonly string[]) {
  return db.delete(entityTags).where(inIds(entityTags.entityId, entityIds));
}

/** The tags an entity carries, by name. */
export function listTagsOfEntity(db: Database, entityId: string) {
  return db
    .select({ id: tags.id, name: tags.name })
    .from(entityTags)
    .innerJoin(tags, eq(tags.id, entityTags.tagId))
    .where(eq(entityTags.entityId, entityId))
    .orderBy(asc(foldedSql(tags.name)), asc(tags.id));
}
