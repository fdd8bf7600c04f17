/**
 * A PNG decoded row by row into a downscaled buffer, for PNGs too large to decode whole (over MAX_DECODE_PIXELS):
 * the chunks are read from storage a piece at a time, the IDAT stream is inflated as it arrives (fflate's streaming
 * zlib), each scanline is unfiltered against the previous one and added into a box filter, so memory follows the
 * preview and two scanlines, never the image. Like the TIFF reader (tiff.ts), every loop is bounded by what the
 * header declares, and a header declaring more than MAX_PREVIEW_SOURCE_PIXELS is refused before anything is inflated.
 */
import { Unzlib } from "fflate";
import { ru } from "../../../shared/i18n/ru";
import { limits } from "../media/decode";
import type { ByteSource } from "./byte-source";
import type { Pixels } from "./image-codec";
import { PreviewUnavailable } from "./preview-unavailable";

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/**
 * Compressed bytes handed to the inflater at once: deflate expands at most ~1032:1, so one push produces at most
 * ~16 MiB even for a crafted stream, and the rows past the declared height are never inflated.
 */
const INFLATE_PIECE = 16 * 1024;
/** Chunks a PNG may have before its image data ends (ancillary chunks in a loop stop here). */
const MAX_CHUNKS = 100_000;

const corrupt = () => new PreviewUnavailable(ru.makers.corrupt("PNG"));
const unsupported = (what: string) => new PreviewUnavailable(ru.makers.pngUnsupported(what));

const u32 = (b: Uint8Array, at: number) => ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

/** The IHDR of a PNG (signature and first chunk), or null when the bytes are not a PNG. */
export function pngHeader(head: Uint8Array): PngHeader | null {
  if (head.length < 33 || SIGNATURE.some((b, i) => head[i] !== b)) return null;
  if (String.fromCharCode(...head.subarray(12, 16)) !== "IHDR") return null;
  return { width: u32(head, 16), height: u32(head, 20), bitDepth: head[24], colorType: head[25], interlace: head[28] };
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

/** Undoes a scanline's filter in place (PNG spec §9), against the previous unfiltered line. */
function unfilter(type: number, line: Uint8Array, prev: Uint8Array, bpp: number): void {
  const n = line.length;
  switch (type) {
    case 0:
      return;
    case 1:
      for (let i = bpp; i < n; i++) line[i] = (line[i] + line[i - bpp]) & 255;
      return;
    case 2:
      for (let i = 0; i < n; i++) line[i] = (line[i] + prev[i]) & 255;
      return;
    case 3:
      for (let i = 0; i < n; i++) line[i] = (line[i] + (((i >= bpp ? line[i - bpp] : 0) + prev[i]) >> 1)) & 255;
      return;
    case 4:
      for (let i = 0; i < n; i++) line[i] = (line[i] + paeth(i >= bpp ? line[i - bpp] : 0, prev[i], i >= bpp ? prev[i - bpp] : 0)) & 255;
      return;
    default:
      throw corrupt();
  }
}

/**
 * Decodes a PNG downsampled by an integer factor (box filter) so the output stays under MAX_SCALED_DECODE_PIXELS
 * and is no larger than its longer side reaching `cover` needs. Interlaced (Adam7) PNGs are refused with the
 * reason: their passes would have to be held whole.
 */
export async function decodePngScaled(source: ByteSource, cover = 0): Promise<Pixels> {
  const head = await source.read(0, 33);
  const header = pngHeader(head);
  if (!header) throw corrupt();
  const { width, height, bitDepth, colorType, interlace } = header;
  if (!width || !height) throw corrupt();
  if (width * height > limits.MAX_PREVIEW_SOURCE_PIXELS) {
    throw new PreviewUnavailable(ru.makers.tooManyPixels(width, height, limits.MAX_PREVIEW_SOURCE_PIXELS / 1e6));
  }
  const channels = CHANNELS[colorType];
  if (!channels || !DEPTHS[colorType].includes(bitDepth)) throw corrupt();
  if (interlace !== 0) throw unsupported("чересстрочный (Adam7)");

  const bitsPerPixel = channels * bitDepth;
  const stride = Math.ceil((width * bitsPerPixel) / 8);
  const bpp = Math.max(1, bitsPerPixel >> 3);
  const underCap = Math.ceil(Math.sqrt((width * height) / limits.MAX_SCALED_DECODE_PIXELS));
  const factor = Math.max(1, underCap, cover > 0 ? Math.floor(Math.max(width, height) / cover) : 1);
  const ow = Math.ceil(width / factor);
  const oh = Math.ceil(height / factor);
  const data = new Uint8ClampedArray(ow * oh * 4);
  const acc = new Float64Array(ow * 4);
  const accCount = new Uint32Array(ow);
  let palette: Uint8Array | null = null;
  let paletteAlpha: Uint8Array | null = null;

  // Scanlines: filter byte + stride bytes, filled from the inflater's output as it comes.
  const line = new Uint8Array(stride + 1);
  const prev = new Uint8Array(stride);
  let filled = 0;
  let y = 0;
  const maxSample = (1 << bitDepth) - 1;
  const sample = (row: Uint8Array, index: number): number => {
    if (bitDepth === 8) return row[index];
    if (bitDepth === 16) return row[index * 2];
    const bit = index * bitDepth;
    return ((row[bit >> 3] >> (8 - bitDepth - (bit & 7))) & maxSample) * (colorType === 3 ? 1 : 255 / maxSample);
  };
  const flush = (oy: number) => {
    for (let x = 0; x < ow; x++) {
      const n = accCount[x] || 1;
      const at = (oy * ow + x) * 4;
      for (let c = 0; c < 4; c++) data[at + c] = acc[x * 4 + c] / n;
    }
    acc.fill(0);
    accCount.fill(0);
  };
  const addRow = (row: Uint8Array) => {
    for (let x = 0; x < width; x++) {
      const i = x * channels;
      let red: number, green: number, blue: number;
      let alpha = 255;
      if (colorType === 2 || colorType === 6) {
        red = sample(row, i);
        green = sample(row, i + 1);
        blue = sample(row, i + 2);
        if (colorType === 6) alpha = sample(row, i + 3);
      } else if (colorType === 3) {
        const k = sample(row, i);
        if (!palette || k * 3 + 2 >= palette.length) throw corrupt();
        red = palette[k * 3];
        green = palette[k * 3 + 1];
        blue = palette[k * 3 + 2];
        if (paletteAlpha && k < paletteAlpha.length) alpha = paletteAlpha[k];
      } else {
        red = green = blue = sample(row, i);
        if (colorType === 4) alpha = sample(row, i + 1);
      }
      const ox = Math.floor(x / factor) * 4;
      acc[ox] += red;
      acc[ox + 1] += green;
      acc[ox + 2] += blue;
      acc[ox + 3] += alpha;
      accCount[ox >> 2]++;
    }
    if ((y + 1) % factor === 0 || y === height - 1) flush(Math.floor(y / factor));
  };
  const inflater = new Unzlib((chunk) => {
    let at = 0;
    while (at < chunk.length && y < height) {
      const take = Math.min(chunk.length - at, line.length - filled);
      line.set(chunk.subarray(at, at + take), filled);
      filled += take;
      at += take;
      if (filled < line.length) break;
      const body = line.subarray(1);
      unfilter(line[0], body, prev, bpp);
      addRow(body);
      y++;
      filled = 0;
      // The unfiltered line becomes the previous one (a copy: the line buffer is refilled next).
      prev.set(body);
    }
  });

  // Chunks, in order: PLTE and tRNS before the image data, IDAT pieces pushed to the inflater, IEND (or the rows
  // being complete) ends the walk. A chunk reaching past the file is a truncated file.
  let offset = 8;
  let idatSeen = false;
  for (let n = 0; n < MAX_CHUNKS && y < height; n++) {
    if (offset + 8 > source.size) throw corrupt();
    const top = await source.read(offset, 8);
    const length = u32(top, 0);
    const type = String.fromCharCode(...top.subarray(4, 8));
    const start = offset + 8;
    if (start + length + 4 > source.size) throw corrupt();
    if (type === "IDAT") {
      idatSeen = true;
      for (let at = 0; at < length && y < height; at += limits.PREVIEW_READ_CHUNK_BYTES) {
        const piece = await source.read(start + at, Math.min(limits.PREVIEW_READ_CHUNK_BYTES, length - at));
        for (let p = 0; p < piece.length && y < height; p += INFLATE_PIECE) {
          try {
            inflater.push(piece.subarray(p, p + INFLATE_PIECE));
          } catch (error) {
            if (error instanceof PreviewUnavailable) throw error;
            throw corrupt();
          }
        }
      }
    } else if (type === "IEND") {
      break;
    } else if (idatSeen) {
      // Anything after the image data but IEND ends the walk once the rows are complete; until then it is broken.
      break;
    } else if (type === "PLTE" || type === "tRNS") {
      if (length > 1024) throw corrupt();
      const body = await source.read(start, length);
      if (type === "PLTE") palette = body.slice();
      else if (colorType === 3) paletteAlpha = body.slice();
    }
    offset = start + length + 4;
  }
  if (y < height) throw corrupt();
  return { data, width: ow, height: oh };
}
