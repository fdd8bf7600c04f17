/**
 * Media: what the bytes are — media probing, text extraction from documents (the one bounded extractor, extract/), and preview renditions.
 *
 * The domain's public face (decision record 025): code outside workers/services/media/ imports only this file.
 */
export { probeMedia, techSummary } from "./media-probe";
export { svgInfo } from "./svg-probe";
export { parseSvgDocument, SVG_NS, SvgNotWellFormed, XLINK_NS } from "./svg-document";
export type { SvgAttribute, SvgElement } from "./svg-document";
export {
  PREVIEW_BOUNDS,
  PREVIEW_KIND_NAMES,
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
export type { PreviewKindName, PreviewSizeName } from "./preview.service";
export { extractDocument, extractSearchText, limits, ParseLimitError, textKind, viewKind } from "./extract/index";
export type { ExtractedText, TextBlock } from "./extract/index";
export { cardReadBytes, documentCard, hasTextCard } from "./document-card";
export { officeThumbnail } from "./office-thumbnail";
export type { DocumentCard } from "./document-card";
export { acceptWaveform, readWaveform, storeGeneratedPreview, storeWaveform, waveformStorageKey } from "./waveform.service";
export type { WaveformRenderer } from "./waveform.service";
export { PeakAccumulator, WavError, looksLikeWav, parseWav, type WavFormat } from "./wav-peaks";
