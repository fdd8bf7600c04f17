import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../client";
import type { GlobalStatement } from "../library-shard-import";
import { catalogStatement, type Reach } from "./library-crossing.repository";
import { assets, groups, taxa, taxonMembers } from "../schema/index";
import { visibleSql, type Visibility } from "./access.repository";
import { foldedSql, foldName, inIds } from "./tag.repository";
import { inLibraryScope, type LibraryScope } from "./library-scope";

/**
 * The taxon's direct members the caller may read (null visibility, administrators: every member), of the libraries
 * `scope` names (each library in its shard counts its own, `countMembers`). A count is something people learn, so it
 * is filtered exactly like `membersOf` lists them.
 */
function memberCount(vis: Visibility | null, scope: LibraryScope) {
  return sql<number>`(select count(*) from ${taxonMembers} mc where mc.taxon_id = ${taxa.id}${memberIn(vis, scope)})`.mapWith(Number);
}

/** How many members the caller may read each of taxa `ids` has directly, in the libraries `scope` names (none: left out). */
export function countMembers(db: Database, ids: readonly string[], vis: Visibility | null, scope: LibraryScope) {
  return db.all<{ id: string; count: number }>(
    sql`select mc.taxon_id as id, count(*) as count from ${taxonMembers} mc
        where ${inIds(sql`mc.taxon_id`, ids)}${memberIn(vis, scope)} group by mc.taxon_id`,
  );
}

/** The condition on a member row `mc` that it counts: visible to the caller, of the libraries `scope` names. */
function memberIn(vis: Visibility | null, scope: LibraryScope) {
  const inScope = scope === "all" ? sql`` : sql` and ${inLibraryScope(scope, sql`mc.object_id`)}`;
  const visible =
    vis === null
      ? sql``
      : sql` and ((mc.object_type = 'asset' and exists (select 1 from ${assets} ca where ca.id = mc.object_id and ca.deleted_at is null and ${visibleSql(
          vis,
          "asset",
          sql`ca.id`,
          sql`ca.owner_id`,
        )})) or (mc.object_type = 'group' and exists (select 1 from ${groups} cg where cg.id = mc.object_id and cg.deleted_at is null and ${visibleSql(
          vis,
          "group",
          sql`cg.id`,
          sql`cg.owner_id`,
        )})))`;
  return sql`${visible}${inScope}`;
}

/** Trees: the taxa without a parent, by name, each with its root's members the caller may read. */
export function listTrees(db: Database, vis: Visibility | null, scope: LibraryScope = "all") {
  return db
    .select({ id: taxa.id, name: taxa.name, ctime: taxa.ctime, count: memberCount(vis, scope) })
    .from(taxa)
    .where(isNull(taxa.parentId))
    .orderBy(asc(foldedSql(taxa.name)), asc(taxa.id));
}

/** Every taxon of a tree with its direct member count (of what the caller may read), by name (the service nests them). */
export function taxaOfTree(db: Database, treeId: string, vis: Visibility | null, scope: LibraryScope = "all") {
  return db
    .select({ id: taxa.id, parentId: taxa.parentId, name: taxa.name, count: memberCount(vis, scope) })
    .from(taxa)
    .where(eq(taxa.treeId, treeId))
    .orderBy(asc(foldedSql(taxa.name)), asc(taxa.id));
}

export function findTaxon(db: Database, id: string) {
  return db.select().from(taxa).where(eq(taxa.id, id)).get();
}

/** A child of `parentId` (or a tree, when null) whose folded name equals `name`. */
export function findChildByName(db: Database, parentId: string | null, name: string, exceptId?: string) {
  return db
    .select()
    .from(taxa)
    .where(
      and(
        parentId === null ? isNull(taxa.parentId) : eq(taxa.parentId, parentId),
        sql`${foldedSql(taxa.name)} = ${foldName(name)}`,
        exceptId ? sql`${taxa.id} <> ${exceptId}` : undefined,
      ),
    )
    .get();
}

export function insertTaxonStatement(db: Database, row: typeof taxa.$inferInsert) {
  return db.insert(taxa).values(row);
}

/** Ids of a taxon and all its descendants (recursive, one statement). */
export async function subtreeIds(db: Database, id: string): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    sql`with recursive sub(id) as (select ${id} union all select t.id from ${taxa} t join sub on t.parent_id = sub.id) select id from sub`,
  );
  return rows.map((r) => r.id);
}

/** The folders and files classified under taxa `ids`. */
export const taxaMembers = (ids: readonly string[]): Reach => ({
  entities: "SELECT object_id FROM taxon_members WHERE taxon_id IN (SELECT value FROM json_each(?1))",
  binds: [JSON.stringify(ids)],
});

/** Every member of taxa `ids` taken out: in the catalog, and in each library's shard (decision 050). */
export const taxaMembersDeleted = (ids: readonly string[]): GlobalStatement => ({
  sql: "DELETE FROM taxon_members WHERE taxon_id IN (SELECT value FROM json_each(?1)) RETURNING 1",
  binds: [JSON.stringify(ids)],
});

export function deleteTaxaStatements(db: Database, ids: readonly string[]) {
  return [
    catalogStatement(taxaMembersDeleted(ids)),
    sql`delete from ${taxa} where id in (select value from json_each(${JSON.stringify(ids)})) returning 1`,
  ];
}

export function updateTaxonStatement(db: Database, id: string, set: { name?: string; parentId?: string }) {
  return db.update(taxa).set(set).where(eq(taxa.id, id));
}

export function addMemberStatement(
  db: Database,
  row: { taxonId: string; objectId: string; objectType: "asset" | "group"; treeId: string; now: number },
) {
  return sql`insert or ignore into ${taxonMembers} (taxon_id, object_id, object_type, tree_id, ctime)
    values (${row.taxonId}, ${row.objectId}, ${row.objectType}, ${row.treeId}, ${row.now})`;
}

export function deleteMemberStatement(db: Database, taxonId: string, objectId: string) {
  return db.delete(taxonMembers).where(and(eq(taxonMembers.taxonId, taxonId), eq(taxonMembers.objectId, objectId)));
}

/**
 * Members of the given taxa that exist, are not in the trash and are readable (null visibility: all), with their
 * names, paged. One statement.
 */
export function membersOf(
  db: Database,
  taxonIds: readonly string[],
  vis: Visibility | null,
  page: { skip: number; take: number },
  scope: LibraryScope = "all",
) {
  const inScope = scope === "all" ? sql`` : sql` and ${inLibraryScope(scope, sql`m.object_id`)}`;
  return db.all<{ taxon_id: string; object_id: string; object_type: "asset" | "group"; name: string }>(
    sql`select m.taxon_id, m.object_id, m.object_type, coalesce(a.name, g.name) as name
        from ${taxonMembers} m
        left join ${assets} a on m.object_type = 'asset' and a.id = m.object_id and a.deleted_at is null and ${visibleSql(
      vis,
      "asset",
      sql`a.id`,
      sql`a.owner_id`,
    )}
        left join ${groups} g on m.object_type = 'group' and g.id = m.object_id and g.deleted_at is null and ${visibleSql(
      vis,
      "group",
      sql`g.id`,
      sql`g.owner_id`,
    )}
        where m.taxon_id in (select value from json_each(${JSON.stringify(taxonIds)})) and (a.id is not null or g.id is not null)${inScope}
        order by name, m.object_id
        limit ${page.take} offset ${page.skip}`,
  );
}

/** The taxa an object is classified under (for the viewer). */
export function taxaOfObject(db: Database, objectId: string) {
  return db
    .select({ id: taxa.id, name: taxa.name, treeId: taxa.treeId })
    .from(taxonMembers)
    .innerJoin(taxa, eq(taxa.id, taxonMembers.taxonId))
    .where(eq(taxonMembers.objectId, objectId))
    .orderBy(asc(foldedSql(taxa.name)));
}
