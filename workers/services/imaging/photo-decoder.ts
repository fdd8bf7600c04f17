import { ru } from "../../../shared/i18n/ru";
import { imageInfo, limits } from "../media/decode";
import type { ByteSource } from "./byte-source";
import { findEmbeddedJpegs, largestJpeg, type EmbeddedJpeg } from "./embedded-jpeg";
import { MAX_DECODE_PIXELS, decodeImage, type Pixels } from "./image-codec";
import { decodeJpegScaled, jpegFrameSize, tooManyScans } from "./jpeg-scaled";
import { jpegScanCount } from "./jpeg-scans";
import { decodePngScaled, pngHeader } from "./png-rows";
import { PreviewUnavailable } from "./preview-unavailable";
import { readCapped } from "./strip-reader";
import { decodeWebpScaled } from "./webp-scaled";
import type { ImageKind } from "./sniff";
import { decodeTiffPage, jpegCandidates, pageDecodable, pageSize, readTiff } from "./tiff";

/** Pixels to make previews from, and what they came from (for the task's log). */
export interface PhotoPixels {
  pixels: Pixels;
  /** e.g. "JPEG 1/4", "TIFF", "встроенный JPEG 1620×1080" */
  via: string;
}

/** A ByteSource that starts `offset` bytes into another. */
const sliceOf = (source: ByteSource, offset: number, length = source.size - offset): ByteSource => ({
  size: Math.min(length, source.size - offset),
  read: (at, n) => source.read(offset + at, Math.min(n, length - at)),
});

/**
 * A JPEG (a whole file or one embedded in a RAW/HEIC): up to MAX_DECODE_PIXELS and 64 MiB decoded whole by mozjpeg;
 * larger, or when mozjpeg refuses it, decoded scaled from range reads.
 */
async function jpegPixels(source: ByteSource, width: number, height: number, length: number | null, cover: number): Promise<PhotoPixels> {
  if (width * height > limits.MAX_PREVIEW_SOURCE_PIXELS) {
    throw new PreviewUnavailable(ru.makers.tooManyPixels(width, height, limits.MAX_PREVIEW_SOURCE_PIXELS / 1e6));
  }
  const size = length ?? source.size;
  if (width && width * height <= MAX_DECODE_PIXELS && size <= 64 * 1024 * 1024) {
    const bytes = await source.read(0, size);
    if (jpegScanCount(bytes, limits.MAX_JPEG_SCANS) > limits.MAX_JPEG_SCANS) throw tooManyScans();
    try {
      return { pixels: await decodeImage("image/jpeg", bytes), via: "JPEG" };
    } catch {
      // mozjpeg refused it (e.g. an embedded preview whose end was misjudged): the scaled decoder reads to its own end.
    }
  }
  const pixels = await decodeJpegScaled(source, { cover });
  return { pixels, via: `JPEG ${pixels.width}×${pixels.height} из ${width}×${height}` };
}

async function embedded(source: ByteSource, found: EmbeddedJpeg | null, format: string, cover: number): Promise<PhotoPixels> {
  if (!found) throw new PreviewUnavailable(ru.makers.noEmbeddedPreview(format));
  const result = await jpegPixels(sliceOf(source, found.offset, found.length ?? undefined), found.width, found.height, found.length, cover);
  return { pixels: result.pixels, via: `${format}: встроенный JPEG ${found.width}×${found.height}` };
}

/**
 * A TIFF or TIFF-based camera RAW: its largest embedded JPEG preview when that is larger than the first page, else
 * the first page strip by strip.
 */
async function tiffPixels(source: ByteSource, cover: number): Promise<PhotoPixels> {
  const file = await readTiff(source);
  const page = file.ifds[0];
  const pagePixels = pageDecodable(page) ? pageSize(page).width * pageSize(page).height : 0;
  let best: EmbeddedJpeg | null = null;
  for (const c of jpegCandidates(file, source.size)) {
    const frame = jpegFrameSize(await source.read(c.offset, Math.min(c.length, 256 * 1024)));
    if (!frame || (frame.sof !== 0xc0 && frame.sof !== 0xc1 && frame.sof !== 0xc2)) continue;
    if (frame.width * frame.height > limits.MAX_PREVIEW_SOURCE_PIXELS) continue;
    if (!best || frame.width * frame.height > best.width * best.height) best = { offset: c.offset, length: c.length, width: frame.width, height: frame.height };
  }
  if (best && best.width * best.height > pagePixels) return embedded(source, best, "RAW/TIFF", cover);
  const pixels = await decodeTiffPage(source, file, page, cover);
  const { width, height } = pageSize(page);
  return { pixels, via: `TIFF ${width}×${height}, стр. 1 из ${Math.max(1, file.ifds.length)}` };
}

/**
 * Decodes a photo of a sniffed kind for its previews, bounded in memory and work (decision 029):
 * - JPEG: whole up to 12 MP, else scaled (1/2, 1/4, 1/8) from its coefficients, no larger than `cover` (the longest
 *   preview side) needs;
 * - PNG (those over 12 MP; smaller ones are decoded whole by the caller): row by row, downsampled (png-rows.ts);
 * - WebP (likewise over 12 MP): by libwebp with its rescaler, straight to `cover` (webp-scaled.ts); an animated one
 *   is refused;
 * - TIFF: the first page strip by strip, downsampled; a TIFF-based camera RAW (CR2, NEF, ARW, DNG): its largest
 *   embedded JPEG preview when that is larger than the first page (a RAW's IFD0 is a thumbnail or sensor data);
 * - CR3, HEIC/HEIF, AVIF (ISO-BMFF): the largest JPEG embedded in their first MAX_EMBEDDED_SCAN_BYTES (CR3's
 *   previews, a HEIC's Exif thumbnail); a HEIC without one holds only HEVC, and AVIF has no decoder here: refused
 *   with the reason.
 * Throws PreviewUnavailable with a Russian reason for everything it cannot read.
 */
export async function decodePhoto(kind: ImageKind, source: ByteSource, head: Uint8Array, cover: number): Promise<PhotoPixels> {
  if (source.size > limits.MAX_PREVIEW_SOURCE_BYTES) throw new PreviewUnavailable(ru.makers.tooLarge(limits.MAX_PREVIEW_SOURCE_BYTES / 1048576));
  if (kind === "jpeg") {
    const frame = jpegFrameSize(head);
    if (!frame) return jpegPixels(source, 0, 0, null, cover);
    return jpegPixels(source, frame.width, frame.height, null, cover);
  }
  if (kind === "png") {
    const pixels = await decodePngScaled(source, cover);
    const header = pngHeader(head);
    return { pixels, via: `PNG ${header?.width ?? "?"}×${header?.height ?? "?"} по строкам → ${pixels.width}×${pixels.height}` };
  }
  if (kind === "webp") {
    const header = imageInfo(head);
    const pixels = await decodeWebpScaled(source, cover);
    return { pixels, via: `WebP ${header?.width ?? "?"}×${header?.height ?? "?"} → ${pixels.width}×${pixels.height}` };
  }
  if (kind === "tiff") {
    // Every read of this decode (IFDs, tag values, previews, strips) counts against MAX_TIFF_READS.
    return tiffPixels(readCapped(source), cover);
  }
  if (kind === "cr3" || kind === "heif" || kind === "avif") {
    const scanned = await source.read(0, Math.min(source.size, limits.MAX_EMBEDDED_SCAN_BYTES));
    const found = largestJpeg(findEmbeddedJpegs(scanned));
    if (!found) {
      throw new PreviewUnavailable(kind === "heif" ? ru.makers.hevcOnly : kind === "avif" ? ru.makers.avifUnsupported : ru.makers.noEmbeddedPreview("CR3"));
    }
    return embedded(source, found, kind === "cr3" ? "CR3" : kind === "heif" ? "HEIC" : "AVIF", cover);
  }
  throw new PreviewUnavailable(ru.processing.noPreview(kind));
}
