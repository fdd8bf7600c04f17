/**
 * Imaging: decoding, resizing and encoding images with the WebAssembly codecs (JPEG, PNG, WebP); apart from media so
 * that importing media does not load the codecs.
 *
 * The domain's public face (decision record 025): code outside workers/services/imaging/ imports only this file.
 */
export { DECODABLE_TYPES, MAX_DECODE_PIXELS, decodeImage, encodeJpeg, encodePng, fitInside, resizePixels } from "./image-codec";
export type { DecodableType, Pixels } from "./image-codec";
export { renderTextCard, type CardSize } from "./card/text-card";
export { CARD_SPECS, layoutCard, wrapText, type CardContent, type CardLine } from "./card/card-layout";
export { WAVEFORM_IMAGE_SIZES, renderWaveform } from "./waveform-image";
export { renderWaveformPng } from "./waveform-png";
export { bufferSource, type ByteSource } from "./byte-source";
export { PreviewUnavailable } from "./preview-unavailable";
export { sniffImage, type ImageKind } from "./sniff";
export { declaredSize } from "./declared-size";
export { decodePhoto, type PhotoPixels } from "./photo-decoder";
export { rasteriseSvg } from "./svg-raster";
export { LeftToBrowser, svgForResvg } from "./svg-gate";
export { NEAR_DISTANCE, PHASH_BANDS, differenceHash, hammingDistance, phashBands, phashHalves, phashOfHalves } from "./perceptual-hash";
