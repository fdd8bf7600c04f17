/** The statements of the background purge of a trashed subtree, chunk by chunk. */
import { sql } from "drizzle-orm";
import type { Database } from "../client";
import { inList, subtreeOf } from "./group.repository";

/** Up to `limit` asset memberships inside a subtree: the next chunk a purge handles. */
export function assetMembershipsInSubtree(db: Database, id: string, limit: number) {
  return db.all<{ group_id: string; el_id: string }>(sql`
    select m.group_id, m.el_id from group_closure c join group_members m on m.group_id = c.descendant
    where c.ancestor = ${id} and m.el_type = 'asset' limit ${limit}`);
}

/** Which of the assets are also members of a group outside the subtree (they survive the purge). */
export async function assetsAlsoOutside(db: Database, id: string, assetIds: readonly string[]): Promise<Set<string>> {
  const rows = await db.all<{ el_id: string }>(sql`
    select distinct el_id from group_members where el_id in ${inList(assetIds)} and group_id not in ${subtreeOf(id)}`);
  return new Set(rows.map((r) => r.el_id));
}

/** Removes the given memberships (group, element) pairs. */
export function deleteMembershipPairsStatement(pairs: readonly { group_id: string; el_id: string }[]) {
  return sql`delete from group_members where (group_id, el_id) in
    (select json_extract(value, '$.group_id'), json_extract(value, '$.el_id') from json_each(${JSON.stringify(pairs)}))`;
}

/** The deepest groups of a subtree first: the next chunk of groups a purge deletes. */
export async function deepestInSubtree(db: Database, id: string, limit: number): Promise<string[]> {
  const rows = await db.all<{ descendant: string }>(sql`
    select descendant from group_closure where ancestor = ${id} order by depth desc, descendant limit ${limit}`);
  return rows.map((r) => r.descendant);
}

/** Deletes groups (leaves of what remains of a subtree) with their closure rows, memberships, tags, field values and taxa memberships. */
export function deleteGroupsStatements(groupIds: readonly string[]) {
  const ids = inList(groupIds);
  return [
    sql`delete from group_members where group_id in ${ids}`,
    sql`delete from group_members where el_id in ${ids} and el_type = 'group'`,
    sql`delete from entity_tags where entity_id in ${ids}`,
    sql`delete from field_values where entity_id in ${ids}`,
    sql`delete from taxon_members where object_id in ${ids}`,
    // Rules on the groups or naming them as groups of users, their switches and their users go with them.
    sql`delete from access_rules where obj_id in ${ids} or subj_id in ${ids}`,
    sql`delete from access_inheritance where entity_id in ${ids}`,
    sql`delete from user_group_members where group_id in ${ids}`,
    sql`delete from group_closure where descendant in ${ids} or ancestor in ${ids}`,
    sql`delete from groups where id in ${ids}`,
  ];
}
