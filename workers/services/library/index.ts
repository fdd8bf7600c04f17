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
  commitUpload,
  createVersionUpload,
  deleteUnreferencedObjects,
  downloadAssetContent,
  dropEmptyVersions,
  maxUploadBytes,
  playAsset,
  playLink,
  proxyDoc,
  purgeAssets,
  queueProcessing,
  receiveUpload,
  requirePendingUpload,
  serveVariant,
  storeSingleUpload,
  storeStream,
  uploadCompleteOf,
  variantContent,
} from "./asset-content.service";
export type {
  ContentCredential,
  ContentRequest,
  MultipartUploadInfo,
  SignedParams,
  UploadComplete,
  UploadInfo,
} from "./asset-content.service";
export {
  MAX_LIST_ITEMS,
  aclAssets,
  contentSize,
  copyAsset,
  createAsset,
  createAssets,
  getAsset,
  getVersion,
  listVariants,
  listVersions,
  mainVariant,
  memberOf,
  planAssetCreation,
  requireAsset,
  requireTargetGroup,
  restoreAsset,
  techFields,
  trashAsset,
  trashAssets,
  trashedAssetsPage,
  updateAsset,
  variantTechFields,
  variantTechProps,
  versionsByIds,
} from "./asset.service";
export type { AssetInfo, GroupRef, VersionEntry } from "./asset.service";
export { repairFolderRollups } from "./folder-rollups.service";
export {
  GROUP_PAGE_SIZE,
  createGroup,
  deleteMembers,
  entityByPath,
  getGroup,
  getSubtreeJson,
  groupSizes,
  groupStorage,
  insertMembers,
  listAclRoots,
  listAvailableRoot,
  listDirectory,
  listGroupsWithUsers,
  listMembers,
  listPreviews,
  listRoots,
  moveMembers,
  purgeGroup,
  restoreGroup,
  runPurgeGroup,
  searchGroups,
  trashGroups,
  trashedGroupsPage,
  updateGroup,
} from "./group.service";
export type { Group, GroupMember } from "./group.service";
export {
  MAX_NAMES_PER_CHECK,
  MAX_VERSION_COMMENT,
  deleteVersion,
  namesInGroup,
  restoreVersion,
  setVersionComment,
} from "./version.service";
