import { Inflate } from "fflate";
import { ru } from "../../../shared/i18n/ru";
import { limits } from "../media/decode";
import type { ByteSource } from "./byte-source";
import type { Pixels } from "./image-codec";
import { PreviewUnavailable } from "./preview-unavailable";
import { StripReader } from "./strip-reader";

/**
 * A bounded TIFF reader (decision 029): the IFDs of a TIFF or a TIFF-based camera RAW (CR2, NEF, ARW, DNG), and the
 * first page decoded strip by strip into a box-downsampled buffer, so a 100 MP TIFF costs a few MB besides its
 * preview. Strips are read through merged runs (strip-reader.ts: neighbouring and repeated strips share one range
 * read). Uncompressed, PackBits, LZW and Deflate; 8 and 16 bits;
 * grey, RGB(A) and palette; the horizontal predictor. Every count, size and chain is bounded (limits.ts); what is
 * not read (tiles, planar, float, JPEG-in-TIFF pages, CMYK) is refused with a reason. Camera RAWs carry a JPEG
 * preview (JPEGInterchangeFormat in IFD0/IFD1/SubIFDs, or a JPEG-compressed strip): `jpegCandidates` lists them.
 */

const tiffError = (what: string) => new PreviewUnavailable(ru.makers.tiffUnsupported(what));
const corrupt = () => new PreviewUnavailable(ru.makers.corrupt("TIFF"));

export interface Ifd {
  offset: number;
  tags: Map<number, number[]>;
}

export interface TiffFile {
  little: boolean;
  /** IFD0, its chain (pages, IFD1) and SubIFDs, in the order found */
  ifds: Ifd[];
}

const TYPE_SIZES: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4 };
/** Tags whose values are read (others are skipped unread: a MakerNote of megabytes is never loaded). */
const WANTED = new Set([254, 256, 257, 258, 259, 262, 273, 277, 278, 279, 284, 317, 320, 322, 323, 324, 325, 330, 338, 339, 513, 514, 50706]);
/** Most values of one tag read (a strip table of 100,000 entries is 400 KB). */
const MAX_VALUES = limits.MAX_TIFF_STRIPS;

/** True when the bytes start like a TIFF (II*\0 or MM\0*). */
export function looksLikeTiff(head: Uint8Array): boolean {
  return head.length >= 8 && ((head[0] === 0x49 && head[1] === 0x49 && head[2] === 42 && head[3] === 0) || (head[0] === 0x4d && head[1] === 0x4d && head[2] === 0 && head[3] === 42));
}

/** Reads the IFDs of a TIFF: IFD0's chain and every SubIFD, each once (a chain in a loop stops), at most MAX_TIFF_IFDS. */
export async function readTiff(source: ByteSource): Promise<TiffFile> {
  const head = await source.read(0, 16);
  if (head.length >= 4 && ((head[0] === 0x49 && head[2] === 43) || (head[0] === 0x4d && head[3] === 43))) throw tiffError("BigTIFF");
  if (!looksLikeTiff(head)) throw new PreviewUnavailable(ru.makers.notWhatItSays("TIFF"));
  const little = head[0] === 0x49;
  const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
  const u16 = (b: Uint8Array, i: number) => view(b).getUint16(i, little);
  const u32 = (b: Uint8Array, i: number) => view(b).getUint32(i, little);
  const ifds: Ifd[] = [];
  const seen = new Set<number>();
  let valuesRead = 0;
  const queue: number[] = [u32(head, 4)];
  while (queue.length > 0) {
    const offset = queue.shift()!;
    if (offset === 0 || seen.has(offset) || offset + 2 > source.size) continue;
    if (ifds.length >= limits.MAX_TIFF_IFDS) break;
    seen.add(offset);
    const countBytes = await source.read(offset, 2);
    if (countBytes.length < 2) throw corrupt();
    const count = u16(countBytes, 0);
    if (count === 0 || count > 1000) throw corrupt();
    const table = await source.read(offset + 2, count * 12 + 4);
    if (table.length < count * 12) throw corrupt();
    const tags = new Map<number, number[]>();
    for (let e = 0; e < count; e++) {
      const at = e * 12;
      const tag = u16(table, at);
      if (!WANTED.has(tag)) continue;
      const type = u16(table, at + 2);
      const n = u32(table, at + 4);
      const size = TYPE_SIZES[type];
      if (!size || n === 0) continue;
      if (n > MAX_VALUES) throw tiffError(`${n} значений в теге ${tag}`);
      // All IFDs together: 64 IFDs of 23 tags of 100,000 values each would be 147 M numbers in memory.
      valuesRead += n;
      if (valuesRead > limits.MAX_TIFF_VALUES) throw tiffError(`больше ${limits.MAX_TIFF_VALUES} значений в тегах`);
      const bytes = n * size <= 4 ? table.subarray(at + 8, at + 12) : await source.read(u32(table, at + 8), n * size);
      if (bytes.length < n * size) throw corrupt();
      const values: number[] = new Array(n);
      const v = view(bytes);
      for (let i = 0; i < n; i++) {
        values[i] =
          type === 3 || type === 8 ? v.getUint16(i * 2, little) : type === 4 || type === 9 || type === 13 ? v.getUint32(i * 4, little) : type === 5 ? v.getUint32(i * 8, little) / Math.max(1, v.getUint32(i * 8 + 4, little)) : bytes[i];
      }
      tags.set(tag, values);
    }
    ifds.push({ offset, tags });
    if (table.length >= count * 12 + 4) queue.push(u32(table, count * 12));
    for (const sub of tags.get(330) ?? []) queue.push(sub);
  }
  if (ifds.length === 0) throw corrupt();
  return { little, ifds };
}

const one = (ifd: Ifd, tag: number, fallback = 0) => ifd.tags.get(tag)?.[0] ?? fallback;

/** A JPEG stored inside a TIFF/RAW: its byte range. */
export interface JpegCandidate {
  offset: number;
  length: number;
}

/**
 * The JPEG previews a TIFF-based RAW carries: JPEGInterchangeFormat/Length in any IFD, and single-strip pages with
 * JPEG compression (6/7) that are not the raw sensor data (NewSubfileType 1, or not a CFA/linear-raw page).
 */
export function jpegCandidates(file: TiffFile, size: number): JpegCandidate[] {
  const out: JpegCandidate[] = [];
  for (const ifd of file.ifds) {
    const at = one(ifd, 513);
    const length = one(ifd, 514);
    if (at > 0 && length > 0 && at + length <= size) out.push({ offset: at, length });
    const compression = one(ifd, 259);
    const photometric = one(ifd, 262);
    const strips = ifd.tags.get(273) ?? [];
    const counts = ifd.tags.get(279) ?? [];
    if ((compression === 6 || compression === 7) && strips.length === 1 && counts.length === 1 && photometric !== 32803 && photometric !== 34892) {
      if (strips[0] + counts[0] <= size) out.push({ offset: strips[0], length: counts[0] });
    }
  }
  return out;
}

/** The page a TIFF shows: IFD0, or — for a RAW whose IFD0 is a tiny thumbnail — the first full-resolution page. */
export function firstPage(file: TiffFile): Ifd {
  return file.ifds[0];
}

/** Whether the page is one this reader decodes (so a RAW's CFA page is left to its JPEG preview). */
export function pageDecodable(ifd: Ifd): boolean {
  const compression = one(ifd, 259, 1);
  const photometric = one(ifd, 262, 1);
  return [1, 5, 8, 32946, 32773].includes(compression) && [0, 1, 2, 3].includes(photometric) && !ifd.tags.has(322);
}

/** Width × height of a page. */
export function pageSize(ifd: Ifd): { width: number; height: number } {
  return { width: one(ifd, 256), height: one(ifd, 257) };
}

/** Undoes PackBits into `out` (stops when it is full). */
function unpackBits(src: Uint8Array, out: Uint8Array): number {
  let i = 0;
  let o = 0;
  while (i < src.length && o < out.length) {
    const n = (src[i++] << 24) >> 24;
    if (n >= 0) {
      const len = Math.min(n + 1, out.length - o, src.length - i);
      out.set(src.subarray(i, i + len), o);
      i += n + 1;
      o += len;
    } else if (n !== -128) {
      const len = Math.min(1 - n, out.length - o);
      out.fill(src[i++], o, o + len);
      o += len;
    }
  }
  return o;
}

/** TIFF LZW (MSB first, 9–12-bit codes, early change) into `out`; stops when it is full. */
function unLzw(src: Uint8Array, out: Uint8Array): number {
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const lengths = new Int32Array(4096);
  for (let i = 0; i < 256; i++) {
    prefix[i] = -1;
    suffix[i] = i;
    lengths[i] = 1;
  }
  let next = 258;
  let width = 9;
  let bitPos = 0;
  let o = 0;
  let old = -1;
  const totalBits = src.length * 8;
  const emit = (code: number): number => {
    const len = lengths[code];
    if (o + len > out.length) {
      // Fill what fits, then stop.
      let c = code;
      for (let k = len - 1; k >= 0; k--) {
        if (o + k < out.length) out[o + k] = suffix[c];
        c = prefix[c];
      }
      o = out.length;
      return len;
    }
    let c = code;
    for (let k = len - 1; k >= 0; k--) {
      out[o + k] = suffix[c];
      c = prefix[c];
    }
    o += len;
    return len;
  };
  const first = (code: number) => {
    let c = code;
    while (prefix[c] >= 0) c = prefix[c];
    return suffix[c];
  };
  while (bitPos + width <= totalBits && o < out.length) {
    let code = 0;
    for (let k = 0; k < width; k++) {
      const bit = (src[(bitPos + k) >> 3] >> (7 - ((bitPos + k) & 7))) & 1;
      code = (code << 1) | bit;
    }
    bitPos += width;
    if (code === 256) {
      next = 258;
      width = 9;
      old = -1;
      continue;
    }
    if (code === 257) break;
    if (old < 0) {
      if (code > 255) throw corrupt();
      emit(code);
      old = code;
      continue;
    }
    if (code < next) {
      emit(code);
      if (next < 4096) {
        prefix[next] = old;
        suffix[next] = first(code);
        lengths[next] = lengths[old] + 1;
        next++;
      }
    } else if (code === next && next < 4096) {
      prefix[next] = old;
      suffix[next] = first(old);
      lengths[next] = lengths[old] + 1;
      next++;
      emit(code);
    } else throw corrupt();
    old = code;
    if (next + 1 >= 1 << width && width < 12) width++;
  }
  return o;
}

/** Inflates a zlib stream into `out` in 16 KiB pieces, stopping as soon as it is full (a bomb never runs on). */
function inflateInto(src: Uint8Array, out: Uint8Array): number {
  let o = 0;
  let full = false;
  const inflater = new Inflate((chunk) => {
    const room = out.length - o;
    out.set(chunk.subarray(0, Math.min(room, chunk.length)), o);
    o += Math.min(room, chunk.length);
    if (chunk.length >= room) full = true;
  });
  const body = src[0] === 0x78 ? src.subarray(2) : src; // zlib header (raw deflate follows)
  try {
    for (let i = 0; i < body.length && !full; i += limits.INFLATE_CHUNK_BYTES) {
      inflater.push(body.subarray(i, i + limits.INFLATE_CHUNK_BYTES), i + limits.INFLATE_CHUNK_BYTES >= body.length);
    }
  } catch {
    if (o === 0) throw corrupt();
  }
  return o;
}

/**
 * Decodes a TIFF page downsampled by an integer factor (box filter) so its output stays under
 * MAX_SCALED_DECODE_PIXELS and is no larger than its longer side reaching `cover` needs (the largest preview's);
 * strips are read and decompressed one at a time.
 */
export async function decodeTiffPage(source: ByteSource, file: TiffFile, ifd: Ifd, cover = 0): Promise<Pixels> {
  const { width, height } = pageSize(ifd);
  if (!width || !height) throw corrupt();
  if (width * height > limits.MAX_PREVIEW_SOURCE_PIXELS) throw new PreviewUnavailable(ru.makers.tooManyPixels(width, height, limits.MAX_PREVIEW_SOURCE_PIXELS / 1e6));
  if (ifd.tags.has(322) || ifd.tags.has(324)) throw tiffError("тайлы");
  const compression = one(ifd, 259, 1);
  if (![1, 5, 8, 32946, 32773].includes(compression)) throw tiffError(`сжатие ${compression}`);
  if (one(ifd, 284, 1) !== 1) throw tiffError("раздельные плоскости");
  if (one(ifd, 339, 1) !== 1) throw tiffError("дробные отсчёты");
  const photometric = one(ifd, 262, 1);
  if (![0, 1, 2, 3].includes(photometric)) throw tiffError(photometric === 5 ? "CMYK" : `фотометрия ${photometric}`);
  const spp = one(ifd, 277, 1);
  const bits = one(ifd, 258, 1);
  if (bits !== 8 && bits !== 16) throw tiffError(`${bits} бит на отсчёт`);
  if (spp < 1 || spp > 8 || (photometric === 2 && spp < 3)) throw corrupt();
  const palette = photometric === 3 ? ifd.tags.get(320) : undefined;
  if (photometric === 3 && (bits !== 8 || !palette || palette.length < 768)) throw tiffError("палитра");
  const predictor = one(ifd, 317, 1);
  const bytesPer = bits / 8;
  const rowBytes = width * spp * bytesPer;
  const rowsPerStrip = Math.min(height, one(ifd, 278, height) || height);
  const offsets = ifd.tags.get(273) ?? [];
  const counts = ifd.tags.get(279) ?? [];
  const stripCount = Math.ceil(height / rowsPerStrip);
  if (offsets.length < stripCount || (compression !== 1 && counts.length < stripCount)) throw corrupt();
  if (rowsPerStrip * rowBytes > limits.MAX_TIFF_STRIP_BYTES) throw tiffError(`полоса больше ${limits.MAX_TIFF_STRIP_BYTES / 1048576} МиБ`);

  const underCap = Math.ceil(Math.sqrt((width * height) / limits.MAX_SCALED_DECODE_PIXELS));
  const factor = Math.max(1, underCap, cover > 0 ? Math.floor(Math.max(width, height) / cover) : 1);
  const ow = Math.ceil(width / factor);
  const oh = Math.ceil(height / factor);
  const data = new Uint8ClampedArray(ow * oh * 4);
  const acc = new Float64Array(ow * 4);
  const accCount = new Uint32Array(ow);
  const hi = bytesPer === 2 ? (file.little ? 1 : 0) : 0;
  const sampleOf = (row: Uint8Array, i: number) => (bytesPer === 1 ? row[i] : row[i * 2 + hi]);
  const flush = (oy: number) => {
    for (let x = 0; x < ow; x++) {
      const n = accCount[x] || 1;
      const at = (oy * ow + x) * 4;
      data[at] = acc[x * 4] / n;
      data[at + 1] = acc[x * 4 + 1] / n;
      data[at + 2] = acc[x * 4 + 2] / n;
      data[at + 3] = acc[x * 4 + 3] / n;
    }
    acc.fill(0);
    accCount.fill(0);
  };
  const hasAlpha = (photometric === 2 && spp >= 4) || (photometric <= 1 && spp >= 2);

  const stored: number[] = new Array(stripCount);
  for (let s = 0; s < stripCount; s++) {
    const length = compression === 1 ? Math.min(rowsPerStrip, height - s * rowsPerStrip) * rowBytes : counts[s];
    if (length > limits.MAX_TIFF_STRIP_BYTES || offsets[s] + Math.min(length, 1) > source.size) throw corrupt();
    stored[s] = Math.min(length, source.size - offsets[s]);
  }
  const strips = new StripReader(source, offsets.slice(0, stripCount), stored);

  let y = 0;
  const strip = new Uint8Array(rowsPerStrip * rowBytes);
  for (let s = 0; s < stripCount; s++) {
    const rows = Math.min(rowsPerStrip, height - s * rowsPerStrip);
    const expected = rows * rowBytes;
    const raw = await strips.strip(s);
    strip.fill(0);
    const out = strip.subarray(0, expected);
    let produced: number;
    if (compression === 1) {
      out.set(raw.subarray(0, expected));
      produced = Math.min(raw.length, expected);
    } else if (compression === 32773) produced = unpackBits(raw, out);
    else if (compression === 5) produced = unLzw(raw, out);
    else produced = inflateInto(raw, out);
    // A strip that holds fewer rows than the page declares is a broken file: its missing rows are not drawn as
    // blank (a 300-byte header declaring 47 MP of empty strips kept the loop below busy for seconds).
    if (produced < expected) throw corrupt();
    if (predictor === 2) {
      for (let r = 0; r < rows; r++) {
        const base = r * rowBytes;
        if (bytesPer === 1) for (let i = spp; i < width * spp; i++) out[base + i] = (out[base + i] + out[base + i - spp]) & 255;
        else {
          const v = new DataView(out.buffer, out.byteOffset + base, rowBytes);
          for (let i = spp; i < width * spp; i++) v.setUint16(i * 2, (v.getUint16(i * 2, file.little) + v.getUint16((i - spp) * 2, file.little)) & 0xffff, file.little);
        }
      }
    }
    for (let r = 0; r < rows; r++, y++) {
      const row = out.subarray(r * rowBytes, (r + 1) * rowBytes);
      for (let x = 0; x < width; x++) {
        const i = x * spp;
        let red: number, green: number, blue: number;
        let alpha = 255;
        if (photometric === 2) {
          red = sampleOf(row, i);
          green = sampleOf(row, i + 1);
          blue = sampleOf(row, i + 2);
          if (hasAlpha) alpha = sampleOf(row, i + 3);
        } else if (photometric === 3) {
          const k = row[i];
          red = palette![k] >> 8;
          green = palette![256 + k] >> 8;
          blue = palette![512 + k] >> 8;
        } else {
          const g = sampleOf(row, i);
          red = green = blue = photometric === 0 ? 255 - g : g;
          if (hasAlpha) alpha = sampleOf(row, i + 1);
        }
        const ox = Math.floor(x / factor) * 4;
        acc[ox] += red;
        acc[ox + 1] += green;
        acc[ox + 2] += blue;
        acc[ox + 3] += alpha;
        accCount[ox >> 2]++;
      }
      if ((y + 1) % factor === 0 || y === height - 1) flush(Math.floor(y / factor));
    }
  }
  return { data, width: ow, height: oh };
}
