import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import {
  attachTagsSql,
  deleteTagStatements,
  tagUses,
  tagUsesDeleted,
  detachTagsStatement,
  findTag,
  findTaggableEntities,
  findTagsByIds,
  insertTagIfNameFree,
  listTagsByFilter as queryTagsByFilter,
  listTagsOfEntity,
  listTagsWithCounts,
  countTagged,
  renameTagIfNameFree,
  tagsCarried,
  type EntityFilter,
  type TaggableEntity,
} from "../../db/repositories/tag.repository";
import { AppError } from "../../lib/errors";
import { newId, ROOT_GROUP_ID } from "../../lib/ids";
import { fileAuditStatement, requireEntityAccess, visibility } from "../access";
import { eventStatement } from "../events";
import { returnedRows, runBatch } from "../../db/repositories/asset.repository";
import type { GlobalChange } from "../../db/repositories/library-crossing.repository";
import { countedEverywhere, type CountsElsewhere, type LibraryScope } from "../../db/repositories/library-scope";
import type { Actor, RequestContext } from "../access";

/** A tag (SPEC §3). */
export interface TagInfo {
  tag_id: string;
  tag_name: string;
}

/** A tag with the number of assets and groups carrying it. */
export interface TagWithCount extends TagInfo {
  count: number;
}

export type { TaggableEntity };

function toInfo(row: { id: string; name: string; count: number }): TagWithCount {
  return { tag_id: row.id, tag_name: row.name, count: row.count };
}

function notFoundMessage(type: TaggableEntity["type"]): string {
  return type === "asset" ? ru.assets.notFound : ru.groups.notFound;
}

/**
 * Tags by name (optionally those whose name contains `q`, case-insensitively, Cyrillic included), one page, each
 * with the number of entities carrying it that the caller may read. Tag names are a shared vocabulary every
 * signed-in user sees; how many files carry one is not. `elsewhere` counts the uses in libraries in their shards.
 */
export async function listTags(
  rc: RequestContext,
  actor: Actor,
  opts: { q?: string; skip: number; take: number },
  elsewhere?: CountsElsewhere,
): Promise<TagWithCount[]> {
  const vis = await visibility(rc, actor);
  return (await countedEverywhere((scope) => listTagsWithCounts(rc.db, { ...opts, vis, scope }), elsewhere)).map(toInfo);
}

/** The known tags among `ids` (unknown ids are left out), counted over what the caller may read. */
export async function listTagsByIds(
  rc: RequestContext,
  actor: Actor,
  ids: readonly string[],
  elsewhere?: CountsElsewhere,
): Promise<TagWithCount[]> {
  if (ids.length === 0) return [];
  const vis = await visibility(rc, actor);
  const unique = [...new Set(ids)];
  return (await countedEverywhere((scope) => findTagsByIds(rc.db, unique, vis, scope), elsewhere, unique)).map(toInfo);
}

/**
 * How many entities the caller may read carry each of tags `ids`, in the libraries `scope` names: one library's share
 * of a list's counts, asked of its shard (`CountsElsewhere`).
 */
export async function tagCounts(rc: RequestContext, actor: Actor, ids: string[], scope: LibraryScope): Promise<[string, number][]> {
  return (await countTagged(rc.db, ids, await visibility(rc, actor), scope)).map((row) => [row.id, Number(row.count)]);
}

/**
 * The tags the filter's entities the caller may read carry, in the libraries `scope` names, `limit` at most: one
 * library's share of a filtered list (`CarriedElsewhere`).
 */
export async function tagsCarriedBy(rc: RequestContext, actor: Actor, filter: EntityFilter, scope: LibraryScope, limit: number) {
  return tagsCarried(rc.db, filter, await visibility(rc, actor), scope, limit);
}

/**
 * For a list filtered by entities, the tags those of the libraries in their shards carry (each asked in its shard),
 * or null when one of them carries more than a call brings back (`CARRIED_ELSEWHERE_MAX`).
 */
export type CarriedElsewhere = (filter: EntityFilter) => Promise<string[] | null>;

/** The tags one library may name to a filtered list, at most: past it, the catalog's copy answers alone. */
export const CARRIED_ELSEWHERE_MAX = 5_000;

/**
 * Tags matching a name fragment and/or carried by the given entities (or by any entity of `entity_type`). Only
 * entities the caller may see are considered, so the answer never reveals how others' assets are tagged. With
 * libraries in their shards (decision 051, step 2.3) the entities are looked for where each library lives — the
 * catalog's own, and each shard's (`carried`, asked beside the caller's visibility) — and the list is of the tags
 * found; its counts are summed the same way (`counts`).
 */
export async function listTagsByFilter(
  rc: RequestContext,
  actor: Actor,
  filter: { q?: string; entity_type?: "asset" | "group"; entity_ids?: string[]; skip: number; take: number },
  elsewhere: { counts?: CountsElsewhere; carried?: CarriedElsewhere } = {},
): Promise<TagWithCount[]> {
  const entities: EntityFilter = {
    entityType: filter.entity_type,
    entityIds: filter.entity_ids ? [...new Set(filter.entity_ids)] : undefined,
  };
  const byEntity = entities.entityType !== undefined || entities.entityIds !== undefined;
  const there = byEntity ? elsewhere.carried?.(entities) : undefined;
  there?.catch(() => undefined);
  const vis = await visibility(rc, actor);
  let carried: string[] | null | undefined;
  if (there) {
    const [here, shards] = await Promise.all([tagsCarried(rc.db, entities, vis, "own", CARRIED_ELSEWHERE_MAX + 1), there]);
    carried = shards && here.length <= CARRIED_ELSEWHERE_MAX ? [...new Set([...here, ...shards])] : null;
  }
  const query = (scope: LibraryScope) =>
    queryTagsByFilter(rc.db, { ...entities, q: filter.q, vis, skip: filter.skip, take: filter.take, scope, carried: carried ?? undefined });
  // A library carrying more tags than a call brings back: the catalog's copy answers alone, as before sharding.
  if (carried === null) return (await query("all")).map(toInfo);
  if (carried?.length === 0) return [];
  // The list is of the tags found: when they are no more than a page, their counts are asked beside it.
  const countedBeside = carried && carried.length <= filter.take ? carried : undefined;
  return (await countedEverywhere(query, elsewhere.counts, countedBeside)).map(toInfo);
}

/** Adds a tag to the vocabulary (any signed-in user); 409 when the name exists case-insensitively. */
export async function createTag(rc: RequestContext, _actor: Actor, name: string): Promise<TagInfo> {
  const now = Date.now();
  const id = newId(now);
  if (!(await insertTagIfNameFree(rc.db, { id, name, ctime: now }))) throw new AppError("CONFLICT", ru.catalog.tagExists(name));
  // SPEC §3 Tag (tag_id, tag_name), as rename answers it.
  return { tag_id: id, tag_name: name };
}

function requireAdmin(actor: Actor): void {
  if (!actor.isAdmin) throw new AppError("FORBIDDEN", ru.catalog.adminOnly);
}

/** Renames a tag everywhere it is used (administrators only); 404 unknown, 409 name taken. */
export async function renameTag(rc: RequestContext, actor: Actor, id: string, name: string): Promise<TagInfo> {
  requireAdmin(actor);
  const changed = await renameTagIfNameFree(rc.db, id, name);
  const row = await findTag(rc.db, id);
  if (!row) throw new AppError("NOT_FOUND", ru.catalog.tagNotFound);
  if (!changed) throw new AppError("CONFLICT", ru.catalog.tagExists(name));
  return { tag_id: row.id, tag_name: row.name };
}

/**
 * Deletes a tag and removes it from every entity in one batch (administrators only); 404 unknown. Its uses in
 * libraries in their shards go there too (a change across them).
 */
export async function deleteTag(
  rc: RequestContext,
  actor: Actor,
  id: string,
  across: GlobalChange,
): Promise<{ tag_id: string; detached: number }> {
  requireAdmin(actor);
  const [detached, deleted] = await across(tagUses(id), deleteTagStatements(rc.db, id), [tagUsesDeleted(id)]);
  if (deleted.meta.changes === 0) throw new AppError("NOT_FOUND", ru.catalog.tagNotFound);
  return { tag_id: id, detached: returnedRows(detached) };
}

function uniqueEntities(entities: readonly TaggableEntity[]): TaggableEntity[] {
  const seen = new Map<string, TaggableEntity>();
  for (const e of entities) if (!seen.has(e.id)) seen.set(e.id, { id: e.id, type: e.type });
  return [...seen.values()];
}

/**
 * Checks, before anything is written, that every tag exists and that the actor may update every entity: one
 * unknown tag (404), unknown entity (404) or entity without rights (403/404) refuses the whole request.
 */
async function checkTagging(rc: RequestContext, actor: Actor, tagIds: string[], entities: TaggableEntity[]) {
  const [tags, found] = await Promise.all([
    findTagsByIds(rc.db, tagIds),
    findTaggableEntities(
      rc.db,
      entities.map((e) => e.id),
    ),
  ]);
  if (tags.length !== tagIds.length) throw new AppError("NOT_FOUND", ru.catalog.tagNotFound);
  const byId = new Map(found.map((row) => [row.id, row]));
  for (const entity of entities) {
    const row = byId.get(entity.id);
    if (!row || row.type !== entity.type || entity.id === ROOT_GROUP_ID) throw new AppError("NOT_FOUND", notFoundMessage(entity.type));
    await requireEntityAccess(
      rc,
      actor,
      { id: entity.id, type: entity.type, ownerId: row.owner_id },
      "update",
      notFoundMessage(entity.type),
    );
  }
  return Object.assign(byId, { tagNames: new Map(tags.map((t) => [t.id, t.name])) });
}

/**
 * The `asset.tags` / `group.tags` audit entries of the tagging events: one per file or folder that changes, naming
 * the tags (their names now, kept as they were).
 */
function taggingAudit(
  rc: RequestContext,
  actor: Actor,
  change: "added" | "removed",
  events: readonly { entityType: string; entityId: string; data: { tag_id: string } }[],
  tagNames: Map<string, string>,
) {
  const byEntity = new Map<string, { type: "asset" | "group"; names: string[] }>();
  for (const e of events) {
    if (e.entityType !== "asset" && e.entityType !== "group") continue;
    const entry = byEntity.get(e.entityId) ?? { type: e.entityType, names: [] };
    entry.names.push(tagNames.get(e.data.tag_id) ?? e.data.tag_id);
    byEntity.set(e.entityId, entry);
  }
  if (byEntity.size === 0) return [];
  return [
    fileAuditStatement(rc, {
      actorId: actor.id,
      verb: "tags",
      targets: [...byEntity].map(([id, e]) => ({ type: e.type, id, details: { [change]: e.names } })),
    }),
  ];
}

/** The `tag.attached` / `tag.detached` events of the pairs that change (global events, in the same batch). */
async function taggingEvents(
  rc: RequestContext,
  actor: Actor,
  type: "tag.attached" | "tag.detached",
  tagIds: string[],
  entities: TaggableEntity[],
  owners: Map<string, { owner_id: string | null }>,
) {
  const present = await rc.db.all<{ tag_id: string; entity_id: string }>(
    sql`select tag_id, entity_id from entity_tags where tag_id in (select value from json_each(${JSON.stringify(
      tagIds,
    )})) and entity_id in (select value from json_each(${JSON.stringify(entities.map((e) => e.id))}))`,
  );
  const has = new Set(present.map((p) => `${p.tag_id}:${p.entity_id}`));
  return tagIds.flatMap((tagId) =>
    entities
      .filter((e) => has.has(`${tagId}:${e.id}`) === (type === "tag.detached"))
      .map((e) => ({
        type,
        entityType: e.type,
        entityId: e.id,
        ownerId: owners.get(e.id)?.owner_id ?? null,
        actorId: actor.id,
        data: { tag_id: tagId },
      })),
  );
}

/**
 * Puts every tag on every entity, all or nothing; pairs already present stay. Needs update rights on each entity.
 * @example await attachTags(rc, actor, { tag_ids: [tagId], entities: [{ id: assetId, type: "asset" }] })
 */
export async function attachTags(
  rc: RequestContext,
  actor: Actor,
  input: { tag_ids: string[]; entities: TaggableEntity[] },
): Promise<{ changed: number }> {
  const tagIds = [...new Set(input.tag_ids)];
  const entities = uniqueEntities(input.entities);
  if (tagIds.length === 0 || entities.length === 0) return { changed: 0 };
  const owners = await checkTagging(rc, actor, tagIds, entities);
  const events = await taggingEvents(rc, actor, "tag.attached", tagIds, entities, owners);
  const [result] = await runBatch(rc.db, [
    attachTagsSql(tagIds, entities),
    ...(events.length ? [eventStatement(rc, events)] : []),
    ...taggingAudit(rc, actor, "added", events, owners.tagNames),
  ]);
  return { changed: returnedRows(result) };
}

/** Removes every tag from every entity, all or nothing, with the same checks as `attachTags`. */
export async function detachTags(
  rc: RequestContext,
  actor: Actor,
  input: { tag_ids: string[]; entities: TaggableEntity[] },
): Promise<{ changed: number }> {
  const tagIds = [...new Set(input.tag_ids)];
  const entities = uniqueEntities(input.entities);
  if (tagIds.length === 0 || entities.length === 0) return { changed: 0 };
  const owners = await checkTagging(rc, actor, tagIds, entities);
  const events = await taggingEvents(rc, actor, "tag.detached", tagIds, entities, owners);
  const detach = detachTagsStatement(
    rc.db,
    tagIds,
    entities.map((e) => e.id),
  );
  const [result] = await runBatch(rc.db, [
    detach,
    ...(events.length ? [eventStatement(rc, events)] : []),
    ...taggingAudit(rc, actor, "removed", events, owners.tagNames),
  ]);
  return { changed: returnedRows(result) };
}

/** The tags an asset or group carries; 404 unless the actor may read it. */
export async function tagsForEntity(rc: RequestContext, actor: Actor, id: string): Promise<TagInfo[]> {
  const [entity] = await findTaggableEntities(rc.db, [id]);
  if (!entity) throw new AppError("NOT_FOUND", ru.catalog.entityNotFound);
  await requireEntityAccess(rc, actor, { id, type: entity.type, ownerId: entity.owner_id }, "read", ru.catalog.entityNotFound);
  return (await listTagsOfEntity(rc.db, id)).map((row) => ({ tag_id: row.id, tag_name: row.name }));
}
