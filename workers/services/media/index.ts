/**
 * Media: what the bytes are — media probing, text extraction from documents (the one bounded extractor, extract/), and preview renditions.
 *
 * The domain's public face (decision record 025): code outside workers/services/media/ imports only this file, or
 * ./decode. This file is the API Worker's part: previews and waveforms as stored rows and objects, no parser of a
 * file's bytes. ./decode adds every parser and is imported only by the media Worker (decision 032; the API Worker's
 * import graph is checked by tests/unit/api-worker-graph.test.ts).
 */
export {
  PREVIEW_BOUNDS,
  PREVIEW_KIND_NAMES,
  PREVIEW_MAX_BYTES,
  PREVIEW_MIME_TYPES,
  PREVIEW_SIZES,
  PREVIEW_SIZE_NAMES,
  actorFromPlayLink,
  findPreview,
  previewStorageKey,
  previewsByAssets,
  previewsByVariants,
  readPreview,
  uploadPreview,
} from "./preview.service";
export type { PreviewKindName, PreviewMimeType, PreviewSizeName } from "./preview.service";
export type { ImageInfo } from "./image-info";
export type { ExtractedText, TextBlock } from "./extract/collector";
export { acceptWaveform, readWaveform, storeGeneratedPreview, storeWaveform, waveformStorageKey } from "./waveform.service";
