import { Inflate } from "fflate";
import { ru } from "../../../../shared/i18n/ru";
import {
  DEFLATE_MAX_RATIO,
  INFLATE_CHUNK_BYTES,
  MAX_PDF_INFLATED_BYTES,
  MAX_PDF_STREAM_BYTES,
  MAX_PDF_STREAMS,
  MIN_INFLATE_CHUNK_BYTES,
  PDF_DICT_WINDOW_BYTES,
} from "./limits";
import { mib, ParseLimitError } from "./parse-limit";

/**
 * The deflate-bomb check of a PDF, before PDF.js sees it (decision 027). PDF.js inflates every stream it reads for
 * text (page contents, forms, fonts, ToUnicode CMaps, object and cross-reference streams) whole into one growing
 * buffer and has no output limit, so a 250 KiB stream of spaces becomes 256 MiB in the isolate. Here every
 * FlateDecode stream is inflated once with the output counted and thrown away (fflate, fed in pieces as in zip.ts),
 * and the file is refused at the first stream past MAX_PDF_STREAM_BYTES or when all of them pass
 * MAX_PDF_INFLATED_BYTES.
 *
 * Image streams are skipped (a white scanned page is a legitimate 1000× stream, and text extraction never decodes
 * images) unless the same object is also named as page contents, a font file, a ToUnicode or encoding CMap or a
 * Type 3 glyph: PDF.js reads those whatever their /Subtype says. Streams are found by their `stream` keyword after a
 * `>>`, searched from one stream's `endstream` on, so a search never walks a stream's own binary data. Filter chains
 * that start with ASCIIHex/ASCII85 are decoded (bounded) first. LZW and RunLength streams are counted too, by their
 * decoded length alone (LZW reaches about 2,700 times its input); other filters do not expand enough to matter.
 */

export interface PdfStreamCount {
  /** `stream` keywords met */
  streams: number;
  /** bytes the counted streams inflated to */
  inflated: number;
}

const enc = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const STREAM = enc("stream");
const ENDSTREAM = enc("endstream");
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0x0c || b === 0x00;

/** Where `pattern` next occurs in `bytes` from `from`, or -1. */
function indexOfBytes(bytes: Uint8Array, pattern: Uint8Array, from: number): number {
  for (let at = bytes.indexOf(pattern[0], from); at >= 0; at = bytes.indexOf(pattern[0], at + 1)) {
    let k = 1;
    while (k < pattern.length && bytes[at + k] === pattern[k]) k++;
    if (k === pattern.length) return at;
  }
  return -1;
}

/** Bytes as a one-byte-per-character string (PDF syntax is ASCII; binary bytes map to U+0080–U+00FF). */
export function latin1(bytes: Uint8Array): string {
  let out = "";
  for (let at = 0; at < bytes.length; at += 8192) out += String.fromCharCode(...bytes.subarray(at, at + 8192));
  return out;
}

const FILTER_NAMES: Record<string, string> = {
  Fl: "FlateDecode",
  AHx: "ASCIIHexDecode",
  A85: "ASCII85Decode",
  LZW: "LZWDecode",
  RL: "RunLengthDecode",
};

/** A stream dictionary's filter chain, long names (abbreviations of inline images resolved). */
export function filtersOf(dict: string): string[] {
  const m = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dict);
  if (!m) return [];
  return (m[1].match(/\/[A-Za-z0-9]+/g) ?? []).map((n) => FILTER_NAMES[n.slice(1)] ?? n.slice(1));
}

/** ASCIIHexDecode: pairs of hex digits up to `>`, whitespace ignored. */
function asciiHex(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(data.length / 2));
  let n = 0;
  let high = -1;
  for (const b of data) {
    if (b === 0x3e) break;
    const v = b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x41 && b <= 0x46 ? b - 55 : b >= 0x61 && b <= 0x66 ? b - 87 : -1;
    if (v < 0) continue;
    if (high < 0) high = v;
    else (out[n++] = (high << 4) | v), (high = -1);
  }
  if (high >= 0) out[n++] = high << 4;
  return out.subarray(0, n);
}

/** ASCII85Decode up to `~>` (`z` is four zero bytes, so the output is capped like an inflated stream). */
function ascii85(data: Uint8Array, object: string): Uint8Array {
  const out: number[] = [];
  let group: number[] = [];
  const flush = (count: number) => {
    let v = 0;
    for (let i = 0; i < 5; i++) v = v * 85 + (group[i] ?? 84);
    for (let i = 0; i < count; i++) out.push((v >>> (24 - 8 * i)) & 0xff);
    group = [];
  };
  for (const b of data) {
    if (b === 0x7e) break;
    if (b === 0x7a && group.length === 0) out.push(0, 0, 0, 0);
    else if (b >= 0x21 && b <= 0x75) {
      group.push(b - 0x21);
      if (group.length === 5) flush(4);
    }
    if (out.length > MAX_PDF_STREAM_BYTES) throw new ParseLimitError(ru.parse.pdfStreamTooLarge(object, mib(MAX_PDF_STREAM_BYTES)), 413);
  }
  if (group.length > 1) flush(group.length - 1);
  return Uint8Array.from(out);
}

/**
 * How many bytes PDF.js's LZWDecode makes of `data`, reported code by code to `add` and never produced: the same
 * code reading, dictionary growth and code-length switch as PDF.js (`LZWStream`), keeping only each entry's length.
 * One 12-bit code can stand for about 4,000 bytes, so a 100 KiB stream can claim 300 MiB.
 */
export function lzwDecodedLength(data: Uint8Array, earlyChange: 0 | 1, add: (bytes: number) => void): void {
  const lengths = new Uint16Array(4096).fill(1, 0, 256);
  let cached = 0;
  let bits = 0;
  let at = 0;
  let codeLength = 9;
  let nextCode = 258;
  let prevCode = 0;
  let sequence = 0;
  for (;;) {
    while (bits < codeLength) {
      if (at >= data.length) return;
      cached = ((cached << 8) | data[at++]) & 0xffffff;
      bits += 8;
    }
    bits -= codeLength;
    const code = (cached >>> bits) & ((1 << codeLength) - 1);
    const hasPrev = sequence > 0;
    if (code < 256) sequence = 1;
    else if (code >= 258) sequence = code < nextCode ? lengths[code] : sequence + 1;
    else if (code === 256) {
      codeLength = 9;
      nextCode = 258;
      sequence = 0;
      continue;
    } else return;
    if (hasPrev) {
      if (nextCode < 4096) lengths[nextCode] = lengths[prevCode] + 1;
      nextCode++;
      const n = nextCode + earlyChange;
      if ((n & (n - 1)) === 0) codeLength = Math.min(Math.log2(n) + 1, 12) | 0;
    }
    prevCode = code;
    add(sequence);
  }
}

/** How many bytes RunLengthDecode makes of `data` (at most 64 times its size), reported run by run. */
export function runLengthDecodedLength(data: Uint8Array, add: (bytes: number) => void): void {
  for (let at = 0; at + 1 < data.length; ) {
    const n = data[at];
    if (n === 128) return;
    if (n < 128) {
      add(Math.min(n + 1, data.length - at - 1));
      at += n + 2;
    } else {
      add(257 - n);
      at += 2;
    }
  }
}

/** Object numbers a PDF names where PDF.js reads a stream whatever its /Subtype (contents, fonts, CMaps, glyphs). */
const READ_AS_STREAM = /\/(?:Contents|ToUnicode|FontFile[23]?|Encoding)\s*(\d+)\s+\d+\s+R|\/(?:Contents|CharProcs)\s*(\[[^\]]*\]|<<[^>]*>>)/g;

export function streamReferences(text: string, into: Set<number>): void {
  for (const m of text.matchAll(READ_AS_STREAM)) {
    if (m[1]) into.add(Number(m[1]));
    else for (const r of m[2].matchAll(/(\d+)\s+\d+\s+R/g)) into.add(Number(r[1]));
  }
}

interface Found {
  object: number | null;
  dict: string;
  data: Uint8Array;
}

/**
 * Counts what the FlateDecode streams of a PDF inflate to; throws a ParseLimitError past MAX_PDF_STREAM_BYTES (one
 * stream), MAX_PDF_INFLATED_BYTES (all) or MAX_PDF_STREAMS.
 * @example checkPdfStreams(bytes) // { streams: 12, inflated: 48_213 }
 */
export function checkPdfStreams(bytes: Uint8Array): PdfStreamCount {
  let total = 0;
  let streams = 0;
  const referenced = new Set<number>();
  const images: Found[] = [];

  const inflate = (found: Found, keep: boolean): string | null => {
    const name = found.object === null ? "" : `${found.object} 0 R`;
    const chain = filtersOf(found.dict);
    let data = found.data;
    let i = 0;
    for (; chain[i] === "ASCIIHexDecode" || chain[i] === "ASCII85Decode"; i++) {
      data = chain[i] === "ASCIIHexDecode" ? asciiHex(data) : ascii85(data, name);
    }
    let size = 0;
    const count = (bytes: number) => {
      size += bytes;
      total += bytes;
      if (size > MAX_PDF_STREAM_BYTES) throw new ParseLimitError(ru.parse.pdfStreamTooLarge(name, mib(MAX_PDF_STREAM_BYTES)), 413);
      if (total > MAX_PDF_INFLATED_BYTES) throw new ParseLimitError(ru.parse.pdfInflatedTooLarge(mib(MAX_PDF_INFLATED_BYTES)), 413);
    };
    // The other expanding filters are counted without their output (what they decode to is not read for references).
    if (chain[i] === "LZWDecode") lzwDecodedLength(data, /\/EarlyChange\s+0\b/.test(found.dict) ? 0 : 1, count);
    if (chain[i] === "RunLengthDecode") runLengthDecodedLength(data, count);
    if (chain[i] !== "FlateDecode") return null;
    // A zlib header (what /FlateDecode means) is skipped: fflate's Inflate reads the raw deflate data after it.
    if (data.length >= 2 && (data[0] & 0x0f) === 8 && ((data[0] << 8) | data[1]) % 31 === 0) data = data.subarray(data[1] & 0x20 ? 6 : 2);
    const kept: Uint8Array[] = [];
    const inflater = new Inflate((chunk) => {
      count(chunk.length);
      if (keep) kept.push(chunk);
    });
    try {
      for (let at = 0; at < data.length; ) {
        // Pieces sized so that even deflate's worst ratio cannot overshoot the room left by much (as in zip.ts).
        const room = Math.min(MAX_PDF_STREAM_BYTES - size, MAX_PDF_INFLATED_BYTES - total);
        const step = Math.max(MIN_INFLATE_CHUNK_BYTES, Math.min(INFLATE_CHUNK_BYTES, Math.ceil(room / DEFLATE_MAX_RATIO)));
        const piece = data.subarray(at, at + step);
        at += piece.length;
        inflater.push(piece, at >= data.length);
      }
    } catch (error) {
      // Broken deflate data: PDF.js cannot get more out of it than was counted up to the break.
      if (error instanceof ParseLimitError) throw error;
    }
    return keep ? kept.map(latin1).join("") : null;
  };

  let from = 0;
  let previousEnd = 0;
  for (let at = indexOfBytes(bytes, STREAM, from); at >= 0; at = indexOfBytes(bytes, STREAM, from)) {
    from = at + STREAM.length;
    const after = bytes[at + STREAM.length];
    if (after !== 0x0a && after !== 0x0d) continue;
    let back = at - 1;
    while (back > 0 && isSpace(bytes[back])) back--;
    if (bytes[back] !== 0x3e || bytes[back - 1] !== 0x3e) continue; // not `>> stream`: a word inside some text
    if (++streams > MAX_PDF_STREAMS) throw new ParseLimitError(ru.parse.pdfStreams(MAX_PDF_STREAMS), 413);
    // A dictionary starts after the previous stream's end: each byte between streams is decoded once at most.
    const window = latin1(bytes.subarray(Math.max(previousEnd, at - PDF_DICT_WINDOW_BYTES), at));
    let head: RegExpExecArray | null = null;
    for (const m of window.matchAll(/(\d+)\s+\d+\s+obj\b/g)) head = m;
    const dict = head ? window.slice(head.index) : window;
    const start = at + STREAM.length + (after === 0x0d && bytes[at + STREAM.length + 1] === 0x0a ? 2 : 1);
    const end = indexOfBytes(bytes, ENDSTREAM, start);
    const found: Found = { object: head ? Number(head[1]) : null, dict, data: bytes.subarray(start, end < 0 ? bytes.length : end) };
    from = end < 0 ? bytes.length : end + ENDSTREAM.length;
    previousEnd = from;
    if (/\/Subtype\s*\/Image\b/.test(dict)) images.push(found);
    else {
      // Object streams hold the dictionaries of PDF 1.5+ files (pages among them): their references count too.
      const text = inflate(found, /\/Type\s*\/ObjStm\b/.test(dict));
      if (text !== null) streamReferences(text, referenced);
    }
  }

  if (images.length) {
    // The file's own dictionaries, read in overlapping windows (never one string of the whole file).
    const WINDOW = 1024 * 1024;
    for (let at = 0; at < bytes.length; at += WINDOW) streamReferences(latin1(bytes.subarray(at, at + WINDOW + PDF_DICT_WINDOW_BYTES)), referenced);
    for (const image of images) if (image.object !== null && referenced.has(image.object)) inflate(image, false);
  }
  return { streams, inflated: total };
}
