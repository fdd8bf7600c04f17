import { changeRules, createRule, deleteRule, setInheritance, updateRule, type Actor, type RequestContext } from "./access";
import { createComment, deleteComment, editComment, resolveComment, setFollow, type Anchor } from "./comments";
import {
  createAssets,
  createGroup,
  deleteMembers,
  insertMembers,
  moveMembers,
  purgeGroup,
  restoreAsset,
  restoreGroup,
  setVersionComment,
  trashAsset,
  trashAssets,
  trashGroups,
  updateAsset,
  updateGroup,
  type CreateGroupInput,
  type UpdateAssetInput,
  type UpdateGroupInput,
} from "./library";
import {
  addTaxonMember,
  applyFields,
  attachTags,
  bulkSetField,
  changeValue,
  createValue,
  delTaxonMember,
  deleteValue,
  detachTags,
} from "./metadata";
import { requestReview, setReview } from "./reviews";
import { createShortlink, revokeShortlink, updateShortlink } from "./sharing";

/**
 * The writes that run where a folder's or file's library lives (decision 043, «Writes»), by name: in the Worker over
 * the catalog, or inside the library's shard with its own database — the same service either way. A write is routed
 * by adding it here and naming it in its route; each one here changes rows of one library only (its global effects
 * are events, audit rows and the search answers' epoch, which the writeback carries). Writes that are not here answer
 * 503 for a switched library.
 */
/** A service's parameters after the request context and the actor. */
type Tail<P extends unknown[]> = P extends [unknown, unknown, ...infer R] ? R : never;

export const ROUTED_WRITES = {
  createAssets: (rc: RequestContext, actor: Actor, inputs: Parameters<typeof createAssets>[2]) => createAssets(rc, actor, [...inputs]),
  updateAsset: (rc: RequestContext, actor: Actor, id: string, input: UpdateAssetInput) => updateAsset(rc, actor, id, input),
  trashAsset: async (rc: RequestContext, actor: Actor, id: string) => {
    await trashAsset(rc, actor, id);
    return null;
  },
  restoreAsset: (rc: RequestContext, actor: Actor, id: string) => restoreAsset(rc, actor, id),
  trashAssets: async (rc: RequestContext, actor: Actor, ids: string[]) => {
    await trashAssets(rc, actor, ids);
    return null;
  },
  setVersionComment: (rc: RequestContext, actor: Actor, ...args: Tail<Parameters<typeof setVersionComment>>) =>
    setVersionComment(rc, actor, ...args),
  setReview: (rc: RequestContext, actor: Actor, ...args: Tail<Parameters<typeof setReview>>) => setReview(rc, actor, ...args),
  requestReview: (rc: RequestContext, actor: Actor, ...args: Tail<Parameters<typeof requestReview>>) => requestReview(rc, actor, ...args),
  createGroup: (rc: RequestContext, actor: Actor, input: CreateGroupInput) => createGroup(rc, actor, input),
  updateGroup: (rc: RequestContext, actor: Actor, id: string, input: UpdateGroupInput) => updateGroup(rc, actor, id, input),
  restoreGroup: (rc: RequestContext, actor: Actor, id: string) => restoreGroup(rc, actor, id),
  purgeGroup: (rc: RequestContext, actor: Actor, id: string) => purgeGroup(rc, actor, id),
  trashGroups: async (rc: RequestContext, actor: Actor, ids: string[]) => {
    await trashGroups(rc, actor, ids);
    return null;
  },
  moveMembers: async (rc: RequestContext, actor: Actor, from: string, to: string, ids: string[]) => {
    await moveMembers(rc, actor, from, to, ids);
    return null;
  },
  /** Files listed in one more folder (people made members of a folder are global rows: not routed). */
  listFiles: (rc: RequestContext, actor: Actor, groupId: string, assetIds: string[]) =>
    insertMembers(
      rc,
      actor,
      groupId,
      assetIds.map((id) => ({ el_id: id, el_type: "asset" as const })),
    ),
  deleteMembers: async (rc: RequestContext, actor: Actor, groupId: string, ids: string[]) => {
    await deleteMembers(rc, actor, groupId, ids);
    return null;
  },
  createComment: (
    rc: RequestContext,
    actor: Actor,
    assetId: string,
    input: { text: string; version?: number; anchor?: Anchor; parent_id?: string },
  ) => createComment(rc, actor, assetId, input),
  editComment: (rc: RequestContext, actor: Actor, id: string, text: string) => editComment(rc, actor, id, text),
  deleteComment: (rc: RequestContext, actor: Actor, id: string) => deleteComment(rc, actor, id),
  resolveComment: (rc: RequestContext, actor: Actor, id: string, resolved: boolean) => resolveComment(rc, actor, id, resolved),
  createRule: (rc: RequestContext, actor: Actor, input: Parameters<typeof createRule>[2]) => createRule(rc, actor, input),
  updateRule: (rc: RequestContext, actor: Actor, id: string, acl: Parameters<typeof updateRule>[3]) => updateRule(rc, actor, id, acl),
  deleteRule: async (rc: RequestContext, actor: Actor, id: string) => {
    await deleteRule(rc, actor, id);
    return null;
  },
  changeRules: (rc: RequestContext, actor: Actor, changes: Parameters<typeof changeRules>[2]) => changeRules(rc, actor, changes),
  setInheritance: (rc: RequestContext, actor: Actor, id: string, inherit: boolean) => setInheritance(rc, actor, id, inherit),
  attachTags: (rc: RequestContext, actor: Actor, input: Parameters<typeof attachTags>[2]) => attachTags(rc, actor, input),
  detachTags: (rc: RequestContext, actor: Actor, input: Parameters<typeof detachTags>[2]) => detachTags(rc, actor, input),
  createValue: (rc: RequestContext, actor: Actor, entityId: string, input: Parameters<typeof createValue>[3]) =>
    createValue(rc, actor, entityId, input),
  changeValue: (rc: RequestContext, actor: Actor, entityId: string, fieldId: string, change: Parameters<typeof changeValue>[4]) =>
    changeValue(rc, actor, entityId, fieldId, change),
  deleteValue: (rc: RequestContext, actor: Actor, entityId: string, fieldId: string) => deleteValue(rc, actor, entityId, fieldId),
  bulkSetField: (rc: RequestContext, actor: Actor, input: Parameters<typeof bulkSetField>[2]) => bulkSetField(rc, actor, input),
  addTaxonMember: (rc: RequestContext, actor: Actor, taxonId: string, objectId: string) => addTaxonMember(rc, actor, taxonId, objectId),
  delTaxonMember: (rc: RequestContext, actor: Actor, taxonId: string, objectId: string) => delTaxonMember(rc, actor, taxonId, objectId),
  applyFields: (rc: RequestContext, actor: Actor, entityId: string, input: Parameters<typeof applyFields>[3]) =>
    applyFields(rc, actor, entityId, input),
  createShortlink: (rc: RequestContext, actor: Actor, ...args: Tail<Parameters<typeof createShortlink>>) =>
    createShortlink(rc, actor, ...args),
  updateShortlink: (rc: RequestContext, actor: Actor, ...args: Tail<Parameters<typeof updateShortlink>>) =>
    updateShortlink(rc, actor, ...args),
  revokeShortlink: (rc: RequestContext, actor: Actor, ...args: Tail<Parameters<typeof revokeShortlink>>) =>
    revokeShortlink(rc, actor, ...args),
  setFollow: (rc: RequestContext, actor: Actor, assetId: string, following: boolean) => setFollow(rc, actor, assetId, following),
};

export type RoutedWrite = keyof typeof ROUTED_WRITES;
type Write<K extends RoutedWrite> = (typeof ROUTED_WRITES)[K];
/** A routed write's arguments after the request context and the actor. */
export type RoutedArgs<K extends RoutedWrite> = Write<K> extends (rc: RequestContext, actor: Actor, ...args: infer A) => unknown
  ? A
  : never;
export type RoutedValue<K extends RoutedWrite> = Awaited<ReturnType<Write<K>>>;

/** Runs the routed write `name` against `rc`'s database. */
export function runRoutedWrite<K extends RoutedWrite>(
  rc: RequestContext,
  actor: Actor,
  name: K,
  args: RoutedArgs<K>,
): Promise<RoutedValue<K>> {
  if (!Object.hasOwn(ROUTED_WRITES, name)) throw new Error(`not a routed write: ${String(name)}`);
  const write = ROUTED_WRITES[name] as (rc: RequestContext, actor: Actor, ...args: unknown[]) => Promise<RoutedValue<K>>;
  return write(rc, actor, ...(args as unknown[]));
}
