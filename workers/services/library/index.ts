/**
 * Library: folders (groups) and assets — the tree, members listing, moves, trash, versions, stored content and
 * folder rollups.
 *
 * The domain's public face (decision record 025): code outside workers/services/library/ imports only this file or
 * ./pure.
 */
export {
  MAX_SINGLE_UPLOAD_BYTES,
  VIEWABLE_ORDER,
  backendFor,
  deleteUnreferencedObjects,
  linkActor,
  linkedDownload,
  linkUser,
  playAsset,
  playLink,
  proxyDoc,
  purgeAssets,
  resolveDownload,
  serveDownload,
  serveLinked,
  linkedVariant,
  serveVariant,
  textRendition,
  textRenditionResponse,
  variantContent,
  variantDownload,
} from "./asset-content.service";
export { commitUpload, dropEmptyVersions, queueProcessing, uploadCompleteOf } from "./asset-commit.service";
// Browser-made video proxies (decision 029, «The proxy maker»).
export { uploadVideoProxy } from "./video-proxy.service";
export type { StoredVideoProxy } from "./video-proxy.service";
export {
  createVersionUpload,
  fileFormatOf,
  maxUploadBytes,
  receiveUpload,
  requirePendingUpload,
  storeSingleUpload,
  storeStream,
} from "./asset-upload.service";
export type { ContentCredential, ContentRequest, Download, SignedParams } from "./asset-content.service";
export type { MultipartUploadInfo, UploadComplete, UploadInfo } from "./asset-upload.service";
export {
  MAIN_VARIANT_TYPES,
  MAX_LIST_ITEMS,
  copyAsset,
  createAsset,
  createAssets,
  getAsset,
  mainVariant,
  planAssetCreation,
  requireAsset,
  requireTargetGroup,
  requireVersionTarget,
  updateAsset,
} from "./asset.service";
export {
  aclAssets,
  contentSize,
  getVersion,
  listVariants,
  listVersions,
  memberOf,
  techFields,
  variantTechFields,
  variantTechProps,
  versionsByIds,
} from "./asset-reads.service";
export { restoreAsset, trashAsset, trashAssets, trashedAssetsPage } from "./asset-trash.service";
export type { AssetInfo, AssetOptions, AssetView, GroupRef, UpdateAssetInput, VersionEntry } from "./asset-shapes";
export { repairFolderRollups } from "./folder-rollups.service";
export { MAX_MAP_POINTS, groupLocations } from "./group-locations.service";
export type { LocatedAsset } from "./group-locations.service";
export {
  GROUP_PAGE_SIZE,
  confinedRoots,
  createGroup,
  getGroup,
  listAclRoots,
  listAvailableRoot,
  listRoots,
  purgeGroup,
  queueGroupPurge,
  restoreGroup,
  runPurgeGroup,
  trashGroups,
  trashedGroupsPage,
  updateGroup,
} from "./group.service";
export type { RootReads } from "./group.service";
export { deleteMembers, insertMembers, moveMembers } from "./group-members.service";
export { entityByPath, groupSizes, groupStorage, listGroupsWithUsers, searchGroupsPage } from "./group-lookup.service";
export { listDirectory, listMembers, listPreviews } from "./group-listing.service";
export type { MembersPage, MembersQuery } from "./group-listing.service";
export { topEntries } from "./root-listing.service";
export type { TopEntriesRead, TopEntry, TopQuery } from "./root-listing.service";
export { libraryShardPlan } from "./library-shard-plan.service";
export type { LibraryShardPlan, LibraryShardPlanEntry } from "./library-shard-plan.service";
// Moving a library into its shard (decision 043, issue 40 item 4).
export { abandonLibraryMove, continueLibraryMove, moveNewLibrary, startLibraryMove } from "./library-move.service";
export type { MoveCheckpoint, MoveOptions } from "./library-move.service";
export { refreshShardCopies } from "./shard-copies.service";
export { writeBack, writeBackShards } from "./shard-writeback.service";
export { acrossLibraries, acrossLibrariesReached, finishStaleCrossings } from "./library-crossing.service";
export {
  AcrossLibraries,
  entryInto,
  inEverySwitchedLibrary,
  inLibraryOf,
  runOverShard,
  shardReader,
  writeBackNow,
} from "./shard-run.service";
export type { Entry } from "./shard-run.service";
export { getSubtreeJson, rootTreePart, subtreeText, TREE_ASSETS_CAPS } from "./subtree.service";
export { mergeRootTrees, type GroupTreeNode } from "./group-tree";
export type { SubtreeBody } from "./subtree-cache";
export type { CreateGroupInput, Group, UpdateGroupInput } from "./group.service";
export type { GroupMember } from "./group-listing.service";
export {
  MAX_NAMES_PER_CHECK,
  MAX_VERSION_COMMENT,
  deleteVersion,
  namesInGroup,
  restoreVersion,
  setVersionComment,
} from "./version.service";
export { acceptHeal, healState } from "./heal-review.service";
export type { HealState } from "./heal-review.service";
