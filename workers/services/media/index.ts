/**
 * Media: what the bytes are — media probing, text extraction from documents, and preview renditions.
 *
 * The domain's public face (decision record 025): code outside workers/services/media/ imports only this file.
 */
export { probeMedia, techSummary } from "./media-probe";
export {
  PREVIEW_MAX_BYTES,
  PREVIEW_MIME_TYPES,
  PREVIEW_SIZES,
  PREVIEW_SIZE_NAMES,
  actorFromPlayLink,
  findPreview,
  imageInfo,
  previewStorageKey,
  previewsByAssets,
  previewsByVariants,
  readPreview,
  uploadPreview,
} from "./preview.service";
export type { PreviewSizeName } from "./preview.service";
export { extractText } from "./text-extract";
export type { ExtractedText } from "./text-extract";
