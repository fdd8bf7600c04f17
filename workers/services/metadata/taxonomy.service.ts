import { ru } from "../../../shared/i18n/ru";
import { returnedRows, runBatch, type Statement } from "../../db/repositories/asset.repository";
import {
  addMemberStatement,
  deleteMemberStatement,
  deleteTaxaStatements,
  taxaMembers,
  taxaMembersDeleted,
  findChildByName,
  findTaxon,
  insertTaxonStatement,
  listTrees,
  membersOf,
  subtreeIds,
  taxaOfObject,
  taxaOfTree,
  countMembers,
  updateTaxonStatement,
} from "../../db/repositories/taxonomy.repository";
import { countReached } from "../../db/reach-count";
import type { TaxonRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId, ROOT_GROUP_ID } from "../../lib/ids";
import { visibility } from "../access";
import type { GlobalChange } from "../../db/repositories/library-crossing.repository";
import { countedEverywhere, type CountsElsewhere, type LibraryScope } from "../../db/repositories/library-scope";
import type { Actor, RequestContext } from "../access";
import { requireFieldEntity } from "./field-value.service";
import { requireMetadataAdmin } from "./field-template.service";

/**
 * The id standing for "all taxonomies" in `create/{treeId}`: the first segment of the path then names a new tree.
 * It is the same all-`f` id as the virtual root group, so clients need one constant.
 */
export const TAXONOMY_FOREST_ID = ROOT_GROUP_ID;

export interface TaxonNode {
  taxon_id: string;
  name: string;
  members: number;
  children: TaxonNode[];
}

export interface TreeInfo {
  tree_id: string;
  name: string;
  members: number;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_DEPTH = 20;

/** `Спорт / Футбол / Клубы` → ['Спорт', 'Футбол', 'Клубы']; 400 on an empty or over-long segment. */
export function parseTaxonPath(path: string): string[] {
  const segments = path.split("/").map((s) => s.trim());
  if (segments.length > MAX_DEPTH || segments.some((s) => s.length === 0 || s.length > 100 || CONTROL.test(s))) {
    throw new AppError("BAD_REQUEST", ru.errors.invalidField("path", ru.metadata.pathSegment));
  }
  return segments;
}

/**
 * The taxonomies, each with the members of its root the caller may read. Any signed-in user. `elsewhere` counts the
 * members in libraries in their shards.
 */
export async function treeList(rc: RequestContext, actor: Actor, elsewhere?: CountsElsewhere): Promise<TreeInfo[]> {
  const vis = await visibility(rc, actor);
  const trees = await countedEverywhere((scope) => listTrees(rc.db, vis, scope), elsewhere);
  return trees.map((t) => ({ tree_id: t.id, name: t.name, members: t.count }));
}

/**
 * How many members the caller may read each of taxa `ids` has directly, in the libraries `scope` names: one library's
 * share of a list's counts, asked of its shard (`CountsElsewhere`).
 */
export async function taxonCounts(rc: RequestContext, actor: Actor, ids: string[], scope: LibraryScope): Promise<[string, number][]> {
  return (await countMembers(rc.db, ids, await visibility(rc, actor), scope)).map((row) => [row.id, Number(row.count)]);
}

async function requireTree(rc: RequestContext, treeId: string): Promise<TaxonRow> {
  const root = await findTaxon(rc.db, treeId);
  if (!root || root.parentId !== null) throw new AppError("NOT_FOUND", ru.metadata.treeNotFound);
  return root;
}

async function requireTaxonOfTree(rc: RequestContext, treeId: string, taxonId: string): Promise<TaxonRow> {
  const taxon = await findTaxon(rc.db, taxonId);
  if (!taxon || taxon.treeId !== treeId) throw new AppError("NOT_FOUND", ru.metadata.taxonNotFound);
  return taxon;
}

/**
 * One taxonomy as a nested tree (children by name), built from one query; counts cover what the caller may read
 * (`elsewhere`: in libraries in their shards too).
 */
export async function taxonomyTree(rc: RequestContext, actor: Actor, treeId: string, elsewhere?: CountsElsewhere): Promise<TaxonNode> {
  const [, vis] = await Promise.all([requireTree(rc, treeId), visibility(rc, actor)]);
  const rows = await countedEverywhere((scope) => taxaOfTree(rc.db, treeId, vis, scope), elsewhere);
  const nodes = new Map(rows.map((r) => [r.id, { taxon_id: r.id, name: r.name, members: r.count, children: [] as TaxonNode[] }]));
  for (const r of rows) if (r.parentId) nodes.get(r.parentId)?.children.push(nodes.get(r.id)!);
  return nodes.get(treeId)!;
}

/**
 * Creates the taxa of `path` below a tree, like `mkdir -p`: segments that exist are reused, the rest are created
 * in one batch (administrators). `treeId` = TAXONOMY_FOREST_ID starts a new taxonomy named by the first segment.
 * 409 when the whole path exists already.
 */
export async function createTaxon(
  rc: RequestContext,
  actor: Actor,
  treeId: string,
  path: string,
): Promise<{ taxon_id: string; tree_id: string; created: number }> {
  requireMetadataAdmin(actor);
  const segments = parseTaxonPath(path);
  const now = Date.now();
  const statements: Statement[] = [];
  let parent: TaxonRow | null = treeId === TAXONOMY_FOREST_ID ? null : await requireTree(rc, treeId);
  let tree = parent?.id ?? null;
  let creating = false;
  for (const name of segments) {
    const existing = creating ? undefined : await findChildByName(rc.db, parent?.id ?? null, name);
    if (existing) {
      parent = existing;
      tree ??= existing.id;
      continue;
    }
    creating = true;
    const id = newId(now);
    tree ??= id;
    const row = { id, treeId: tree, parentId: parent?.id ?? null, name, ctime: now };
    statements.push(insertTaxonStatement(rc.db, row));
    parent = row;
  }
  if (statements.length === 0) throw new AppError("CONFLICT", ru.metadata.taxonExists(segments.at(-1)!));
  await runBatch(rc.db, statements);
  return { taxon_id: parent!.id, tree_id: tree!, created: statements.length };
}

/**
 * Renames and/or moves a taxon within its tree (administrators). A move under itself or a descendant is refused
 * (400), as is moving a root or into another tree; a name taken among the new siblings answers 409.
 */
export async function changeTaxon(
  rc: RequestContext,
  actor: Actor,
  treeId: string,
  taxonId: string,
  change: { name?: string; parent_id?: string },
): Promise<{ taxon_id: string; name: string; parent_id: string | null }> {
  requireMetadataAdmin(actor);
  const taxon = await requireTaxonOfTree(rc, treeId, taxonId);
  const name = change.name !== undefined ? parseTaxonPath(change.name.replaceAll("/", "\u0000"))[0] : taxon.name;
  let parentId = taxon.parentId;
  if (change.parent_id !== undefined && change.parent_id !== taxon.parentId) {
    if (taxon.parentId === null) throw new AppError("BAD_REQUEST", ru.metadata.taxonRootMove);
    const target = await findTaxon(rc.db, change.parent_id);
    if (!target) throw new AppError("NOT_FOUND", ru.metadata.taxonNotFound);
    if (target.treeId !== treeId) throw new AppError("BAD_REQUEST", ru.metadata.taxonOtherTree);
    if ((await subtreeIds(rc.db, taxonId)).includes(target.id)) throw new AppError("BAD_REQUEST", ru.metadata.taxonCycle);
    parentId = target.id;
  }
  if (await findChildByName(rc.db, parentId, name, taxonId)) throw new AppError("CONFLICT", ru.metadata.taxonExists(name));
  await runBatch(rc.db, [updateTaxonStatement(rc.db, taxonId, { name, ...(parentId ? { parentId } : {}) })]);
  return { taxon_id: taxonId, name, parent_id: parentId };
}

/**
 * Deletes a taxon with its descendants (administrators). While the subtree has members or sub-taxa it is refused
 * with 409 naming them, unless `force`: then taxa and memberships go in one batch. Deleting a root deletes the tree.
 */
export async function deleteTaxon(
  rc: RequestContext,
  actor: Actor,
  treeId: string,
  taxonId: string,
  force: boolean,
  across: GlobalChange,
): Promise<{ taxon_id: string; taxa_removed: number; members_removed: number }> {
  requireMetadataAdmin(actor);
  await requireTaxonOfTree(rc, treeId, taxonId);
  const ids = await subtreeIds(rc.db, taxonId);
  if (!force) {
    // Its members counted in every library, each shard asked (decision 051, step 2.4).
    const [members, children] = [await countReached(rc, taxaMembers(ids)), ids.length - 1];
    if (members > 0 || children > 0) throw new AppError("CONFLICT", ru.metadata.taxonHasContent(members, children));
  }
  const [members, removed] = await across(taxaMembers(ids), deleteTaxaStatements(rc.db, ids), [taxaMembersDeleted(ids)]);
  return { taxon_id: taxonId, taxa_removed: returnedRows(removed), members_removed: returnedRows(members) };
}

/** Classifies an asset or group under a taxon: needs update on the object (like tagging). Idempotent. */
export async function addTaxonMember(rc: RequestContext, actor: Actor, taxonId: string, objectId: string): Promise<{ added: boolean }> {
  const taxon = await findTaxon(rc.db, taxonId);
  if (!taxon) throw new AppError("NOT_FOUND", ru.metadata.taxonNotFound);
  const entity = await requireFieldEntity(rc, actor, objectId, "update");
  const [result] = await runBatch(rc.db, [
    addMemberStatement(rc.db, { taxonId, objectId, objectType: entity.type, treeId: taxon.treeId, now: Date.now() }),
  ]);
  return { added: result.meta.changes > 0 };
}

export async function delTaxonMember(rc: RequestContext, actor: Actor, taxonId: string, objectId: string): Promise<{ removed: boolean }> {
  if (!(await findTaxon(rc.db, taxonId))) throw new AppError("NOT_FOUND", ru.metadata.taxonNotFound);
  await requireFieldEntity(rc, actor, objectId, "update");
  const [result] = await runBatch(rc.db, [deleteMemberStatement(rc.db, taxonId, objectId)]);
  if (result.meta.changes === 0) throw new AppError("NOT_FOUND", ru.metadata.entityNotFound);
  return { removed: true };
}

/** The taxa whose members a taxon's list shows: itself, with `deep` its whole subtree (404 for a taxon not of the tree). */
export async function listedTaxa(rc: RequestContext, taxonId: string, treeId: string, deep: boolean): Promise<string[]> {
  await requireTaxonOfTree(rc, treeId, taxonId);
  return deep ? subtreeIds(rc.db, taxonId) : [taxonId];
}

/**
 * A page of the members of taxa `ids` the caller may see, by name, of the libraries `scope` names (across libraries,
 * `pageWhereItLives` asks each where it lives).
 */
export async function taxonMembersPage(
  rc: RequestContext,
  actor: Actor,
  ids: string[],
  page: { skip: number; take: number },
  scope: LibraryScope,
) {
  return membersOf(rc.db, ids, await visibility(rc, actor), page, scope);
}

/** The taxa an asset or group is classified under (read on the object). */
export async function taxaOfEntity(rc: RequestContext, actor: Actor, objectId: string) {
  await requireFieldEntity(rc, actor, objectId, "read");
  return (await taxaOfObject(rc.db, objectId)).map((t) => ({ taxon_id: t.id, name: t.name, tree_id: t.treeId }));
}
