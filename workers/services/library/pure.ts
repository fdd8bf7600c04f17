/**
 * The pure part of the library domain (decision record 025): constants, types and validation with no bindings and no
 * storage behind them, so the browser bundle and the database schema may import them without pulling in the domain.
 */
export { LISTED_TYPES, MEMBER_SORTS, SORT_ORDERS, previewRef, sortKeyOf, visiblePath } from "./group-tree";
export type { GroupTreeNode } from "./group-tree";
export { uploadState } from "./version-state";
export type { UploadProgress } from "./version-state";
export type { VersionState } from "./asset-shapes";
export { SCREEN_VARIANT_TYPES, variantLevel } from "./variant-level";
export {
  VIDEO_PROXY_MAX_BYTES,
  VIDEO_PROXY_MAX_MILLIS,
  VIDEO_PROXY_MAX_SOURCE_SECONDS,
  VIDEO_PROXY_MAX_WIDTH,
  VIDEO_PROXY_MIME_TYPES,
  sniffVideoProxy,
  videoProxyMime,
} from "./video-proxy-limits";
export type { VideoProxyMime } from "./video-proxy-limits";
