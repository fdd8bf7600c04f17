import { DECODABLE_TYPES, decodeImage, encodeJpeg, fitInside, resizePixels, type DecodableType } from "../imaging";
import { paintWatermark } from "./watermark";

/** Longest side of the catalogue's watermarked preview: big enough for the grid and a closer look, no bigger. */
const BOX = { width: 960, height: 960 };
const QUALITY = 78;

/**
 * The catalogue's picture of a listed asset, in the media Worker (decision 032): its preview decoded, fitted into
 * 960 px, striped (watermark.ts) and encoded as JPEG. Null when the preview's type is none the codecs decode; a
 * picture that does not decode throws.
 */
export async function watermarkedJpeg(mime: string, bytes: Uint8Array): Promise<Uint8Array | null> {
  if (!DECODABLE_TYPES.includes(mime as DecodableType)) return null;
  const pixels = await decodeImage(mime as DecodableType, bytes);
  const fit = fitInside(pixels.width, pixels.height, BOX);
  return encodeJpeg(paintWatermark(await resizePixels(pixels, fit.width, fit.height, { alpha: false })), QUALITY);
}
