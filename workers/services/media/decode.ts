/**
 * Media: the parsers' face, for the media Worker alone (decision 032) — probing, text extraction (the one bounded
 * extractor, extract/), SVG, WAV, document cards and image headers, plus everything ./index offers. The API Worker
 * imports ./index and never this file, so it links none of these parsers (tests/unit/api-worker-graph.test.ts).
 */
export * from "./index";
export { probeMedia, techSummary } from "./media-probe";
export { svgInfo } from "./svg-probe";
export { parseSvgDocument, SVG_NS, SvgNotWellFormed, XLINK_NS } from "./svg-document";
export type { SvgAttribute, SvgElement } from "./svg-document";
export { imageInfo } from "./image-info";
export { checkPreviewImage } from "./preview-check";
export { extractDocument, extractSearchText, limits, ParseLimitError, textKind, viewKind } from "./extract/index";
export { cardReadBytes, documentCard, hasTextCard } from "./document-card";
export { officeThumbnail } from "./office-thumbnail";
export type { DocumentCard } from "./document-card";
export { PeakAccumulator, WavError, looksLikeWav, parseWav, type WavFormat } from "./wav-peaks";
