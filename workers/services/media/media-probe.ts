import exifr from "exifr";
import { ru } from "../../../shared/i18n/ru";
import {
  EXIF_TIME_BUDGET_MS,
  MAX_BOX_DEPTH,
  MAX_BOXES,
  MAX_EXIF_BYTES,
  MAX_IMAGE_PIXELS,
  MAX_MOOV_BYTES,
  MAX_PDF_DECLARED_PAGES,
  MAX_PDF_TREE_NODES,
  MAX_TOP_LEVEL_BOXES,
} from "./extract/limits";
import { ParseLimitError } from "./extract/parse-limit";
import { withinTime } from "./extract/pdf";
import { gifFrames } from "./gif-frames";
import { svgInfo } from "./svg-probe";
import { imageInfo } from "./image-info";
import { probeAv } from "./av-probe";

/**
 * Technical metadata read from a file's bytes, with parsers that run in workerd: image headers (own reader),
 * EXIF/XMP/IPTC/GPS (`exifr`), audio and video through mediabunny (av-probe.ts: duration, codecs, size, frame and
 * sample rate, channels, bit rate; every demux read-counted), ISO-BMFF boxes (own reader, when mediabunny finds no
 * track) and the PDF page tree (page count), SVG (size, depth, external references, never fetched). Every reader
 * keeps the limits of extract/limits.ts (and av-probe.ts) and throws a ParseLimitError past one.
 */
export interface TechFields {
  mime: string;
  size: number;
  width?: number;
  height?: number;
  /** seconds */
  duration?: number;
  codecs?: string[];
  container?: string;
  page_count?: number;
  /** frames of an animated GIF */
  frames?: number;
  /** external references of an SVG (counted, never fetched) */
  external_refs?: number;
  /** audio and video (av-probe.ts): frames per second, samples per second, channels, bits per second */
  frame_rate?: number;
  sample_rate?: number;
  channels?: number;
  bit_rate?: number;
  exif?: Record<string, unknown>;
}

/** Reads `length` bytes at `offset` (null past the end). */
export type RangeReader = (offset: number, length: number) => Promise<Uint8Array | null>;

const ascii = (b: Uint8Array, i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));

/**
 * EXIF, XMP, IPTC and GPS of an image as plain JSON (dates as ISO strings; binary blobs left out). exifr sees at
 * most MAX_EXIF_BYTES, skips IFD1 (the thumbnail) and gets EXIF_TIME_BUDGET_MS; unreadable metadata is no metadata.
 */
export async function readExif(bytes: Uint8Array): Promise<Record<string, unknown> | null> {
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = await withinTime(
      exifr.parse(bytes.subarray(0, MAX_EXIF_BYTES), {
        tiff: true,
        exif: true,
        gps: true,
        xmp: true,
        iptc: true,
        icc: false,
        ifd1: false,
        mergeOutput: true,
      }) as Promise<Record<string, unknown> | undefined>,
      EXIF_TIME_BUDGET_MS,
      () => new ParseLimitError(ru.parse.exifTime(EXIF_TIME_BUDGET_MS / 1000)),
    );
  } catch (error) {
    if (error instanceof ParseLimitError) throw error;
    return null;
  }
  if (!parsed) return null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (value instanceof Uint8Array || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) continue;
    out[key] = value instanceof Date ? (Number.isNaN(value.getTime()) ? null : value.toISOString()) : value;
  }
  return Object.keys(out).length > 0 ? (JSON.parse(JSON.stringify(out)) as Record<string, unknown>) : null;
}

// ---------------------------------------------------------------------------------------------------------------
// ISO-BMFF

/** Boxes that only hold other boxes (the path to the track headers and sample descriptions). */
const CONTAINERS = new Set(["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf"]);

interface Box {
  type: string;
  start: number;
  headerSize: number;
  size: number;
}

function readBox(b: Uint8Array, at: number, end: number, v = new DataView(b.buffer, b.byteOffset, b.byteLength)): Box | null {
  if (at + 8 > end) return null;
  let size = v.getUint32(at);
  const type = ascii(b, at + 4, 4);
  let headerSize = 8;
  if (size === 1) {
    if (at + 16 > end) return null;
    size = Number(v.getBigUint64(at + 8));
    headerSize = 16;
  } else if (size === 0) {
    size = end - at;
  }
  if (size < headerSize) return null;
  return { type, start: at, headerSize, size };
}

interface MovieInfo {
  duration?: number;
  width?: number;
  height?: number;
  codecs: string[];
}

/** Walks the `moov` box: movie duration (mvhd), video size (tkhd of a `vide` track), codec of each track (stsd). */
export function parseMoov(b: Uint8Array): MovieInfo {
  const info: MovieInfo = { codecs: [] };
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let boxes = 0;
  const walk = (from: number, end: number, track: { handler?: string; width?: number; height?: number }, depth = 0) => {
    if (depth > MAX_BOX_DEPTH) throw new ParseLimitError(ru.parse.boxDepth(MAX_BOX_DEPTH));
    for (let at = from; at < end; ) {
      const box = readBox(b, at, end, v);
      if (!box || box.start + box.size > end) return;
      if (++boxes > MAX_BOXES) throw new ParseLimitError(ru.parse.boxCount(MAX_BOXES));
      const body = box.start + box.headerSize;
      if (box.type === "mvhd" && body + 32 <= end) {
        const version = b[body];
        const timescale = version === 1 ? v.getUint32(body + 20) : v.getUint32(body + 12);
        const duration = version === 1 ? Number(v.getBigUint64(body + 24)) : v.getUint32(body + 16);
        if (timescale > 0) info.duration = Math.round((duration / timescale) * 1000) / 1000;
      } else if (box.type === "tkhd") {
        const version = b[body];
        const dims = body + (version === 1 ? 88 : 76);
        if (dims + 8 <= end) {
          track.width = v.getUint32(dims) / 65536;
          track.height = v.getUint32(dims + 4) / 65536;
        }
      } else if (box.type === "hdlr" && body + 12 <= end) {
        track.handler = ascii(b, body + 8, 4);
      } else if (box.type === "stsd" && body + 16 <= end) {
        const codec = ascii(b, body + 12, 4).trim();
        if (codec && !info.codecs.includes(codec)) info.codecs.push(codec);
      } else if (box.type === "trak") {
        const t: { handler?: string; width?: number; height?: number } = {};
        walk(body, box.start + box.size, t, depth + 1);
        if (t.handler === "vide" && t.width && t.height && !info.width) {
          info.width = Math.round(t.width);
          info.height = Math.round(t.height);
        }
      } else if (CONTAINERS.has(box.type)) {
        walk(body, box.start + box.size, track, depth + 1);
      }
      at = box.start + box.size;
    }
  };
  walk(0, b.length, {});
  return info;
}

/**
 * Finds `moov` among the top-level boxes by reading box headers with range reads (it may sit after a huge `mdat`)
 * and parses it; null when the file is not ISO-BMFF.
 */
export async function probeIsoBmff(read: RangeReader, fileSize: number): Promise<(MovieInfo & { brand: string }) | null> {
  const head = await read(0, Math.min(fileSize, 64 * 1024));
  if (!head || head.length < 12 || ascii(head, 4, 4) !== "ftyp") return null;
  const brand = ascii(head, 8, 4).trim();
  let at = 0;
  for (let guard = 0; guard < MAX_TOP_LEVEL_BOXES && at + 8 <= fileSize; guard++) {
    const header = await read(at, 16);
    if (!header) break;
    const box = readBox(header, 0, header.length);
    if (!box) break;
    if (box.type === "moov") {
      if (box.size > MAX_MOOV_BYTES) break;
      const moov = await read(at, box.size);
      if (!moov) break;
      return { brand, ...parseMoov(moov.subarray(box.headerSize)) };
    }
    at += box.size;
  }
  return { brand, codecs: [] };
}

// ---------------------------------------------------------------------------------------------------------------
// PDF

/**
 * Page count of a PDF: the `/Count` of the root page tree node (the `/Type /Pages` dictionary without `/Parent`);
 * when the tree sits in compressed object streams, the number of visible `/Type /Page` dictionaries; else null.
 */
export function pdfPageCount(bytes: Uint8Array): number | null {
  if (ascii(bytes, 0, 5) !== "%PDF-") return null;
  const text = new TextDecoder("latin1").decode(bytes);
  let root: number | null = null;
  // Each `/Type /Pages` is found in one linear pass, and its dictionary is read from a bounded window around it
  // (no pattern that backtracks over the file); at most MAX_PDF_TREE_NODES of them are looked at.
  let nodes = 0;
  for (const match of text.matchAll(/\/Type\s*\/Pages\b/g)) {
    if (++nodes > MAX_PDF_TREE_NODES) break;
    const before = text.slice(Math.max(0, match.index - 4000), match.index);
    const after = text.slice(match.index, match.index + 4000);
    const open = before.lastIndexOf("<<");
    const close = after.indexOf(">>");
    if (open < 0 || close < 0) continue;
    const dict = before.slice(open) + after.slice(0, close);
    const count = /\/Count\s+(\d{1,12})/.exec(dict);
    if (count && !/\/Parent\s/.test(dict)) root = Math.max(root ?? 0, Number(count[1]));
  }
  if (root !== null && root > MAX_PDF_DECLARED_PAGES) throw new ParseLimitError(ru.parse.pdfPages(root, MAX_PDF_DECLARED_PAGES));
  if (root !== null) return root;
  const pages = text.match(/\/Type\s*\/Page(?![s\w])/g)?.length ?? 0;
  return pages > 0 ? pages : null;
}

// ---------------------------------------------------------------------------------------------------------------

/** Containers mediabunny reads, by their first bytes: ISO-BMFF, EBML (WebM/MKV), RIFF WAVE, Ogg, FLAC, ID3 (MP3). */
const AV_MAGIC: readonly { at: number; text: string }[] = [
  { at: 4, text: "ftyp" },
  { at: 0, text: "\x1a\x45\xdf\xa3" },
  { at: 8, text: "WAVE" },
  { at: 0, text: "OggS" },
  { at: 0, text: "fLaC" },
  { at: 0, text: "ID3" },
];

/** Whether a file is worth a demux: declared audio/video, or a known container's magic (never an image: HEIC is ISO-BMFF too). */
function looksLikeAv(mime: string, head: Uint8Array): boolean {
  if (mime.startsWith("image/")) return false;
  if (mime.startsWith("audio/") || mime.startsWith("video/") || mime === "application/ogg") return true;
  return AV_MAGIC.some((m) => head.length >= m.at + m.text.length && ascii(head, m.at, m.text.length) === m.text);
}

/** Technical fields of a file from its first bytes (`head`) and, for audio, video and ISO-BMFF, range reads of the rest. */
export async function probeMedia(input: { mime: string; size: number; head: Uint8Array; read: RangeReader }): Promise<TechFields> {
  const fields: TechFields = { mime: input.mime, size: input.size };
  const image = imageInfo(input.head);
  if (image) {
    // The pixel count is judged from the header, before anything is decoded or read further.
    if (image.width * image.height > MAX_IMAGE_PIXELS) {
      throw new ParseLimitError(ru.parse.pixels(image.width, image.height, Math.round(MAX_IMAGE_PIXELS / 1e6)), 413);
    }
    fields.width = image.width;
    fields.height = image.height;
    fields.container = image.mime.split("/")[1];
    if (image.mime === "image/gif") {
      const frames = gifFrames(input.head);
      if (frames > 1) fields.frames = frames;
    }
    const exif = await readExif(input.head);
    if (exif) fields.exif = exif;
    return fields;
  }
  if (input.mime === "image/tiff" || input.mime === "image/heic" || input.mime === "image/heif") {
    const exif = await readExif(input.head);
    if (exif) {
      fields.exif = exif;
      const w = exif.ImageWidth ?? exif.ExifImageWidth;
      const h = exif.ImageHeight ?? exif.ExifImageHeight;
      if (typeof w === "number" && typeof h === "number") Object.assign(fields, { width: w, height: h });
    }
  }
  if (input.mime === "image/svg+xml") {
    const svg = svgInfo(input.head);
    if (svg) {
      fields.container = "svg";
      if (svg.width && svg.height) Object.assign(fields, { width: svg.width, height: svg.height });
      if (svg.externalRefs > 0) fields.external_refs = svg.externalRefs;
    }
    return fields;
  }
  // The own box walker runs first: its limits name what is wrong with a hostile MP4 (nesting, box count).
  const movie = await probeIsoBmff(input.read, input.size);
  if (looksLikeAv(input.mime, input.head)) {
    const av = await probeAv({ size: input.size, head: input.head, read: input.read });
    if (av) {
      const { codecs, ...rest } = av;
      Object.assign(fields, rest);
      if (codecs.length > 0) fields.codecs = codecs;
      return fields;
    }
  }
  if (movie) {
    fields.container = movie.brand;
    if (movie.duration !== undefined) fields.duration = movie.duration;
    if (movie.width) Object.assign(fields, { width: movie.width, height: movie.height });
    if (movie.codecs.length > 0) fields.codecs = movie.codecs;
    return fields;
  }
  const pages = pdfPageCount(input.head);
  if (pages !== null) {
    fields.container = "pdf";
    fields.page_count = pages;
  }
  return fields;
}

/** The short Russian summary of the fields for the task log. */
export function techSummary(f: TechFields): string {
  const parts: string[] = [];
  if (f.width && f.height) parts.push(`${f.width}×${f.height}`);
  if (f.duration !== undefined) parts.push(`${f.duration} с`);
  if (f.codecs?.length) parts.push(`кодеки ${f.codecs.join(", ")}`);
  if (f.frame_rate !== undefined) parts.push(`${f.frame_rate} кадр/с`);
  if (f.sample_rate !== undefined) parts.push(`${f.sample_rate} Гц × ${f.channels ?? "?"} кан.`);
  if (f.page_count !== undefined) parts.push(`страниц: ${f.page_count}`);
  if (f.frames !== undefined) parts.push(`кадров: ${f.frames}`);
  if (f.external_refs !== undefined) parts.push(`внешних ссылок (не загружаются): ${f.external_refs}`);
  if (f.exif) parts.push(`EXIF: ${Object.keys(f.exif).length} полей`);
  return parts.length > 0 ? parts.join(", ") : `${f.mime}, ${f.size} байт`;
}
