import { ru } from "../../../shared/i18n/ru";
import { limits } from "../media/decode";
import { Window, type ByteSource } from "./byte-source";
import type { Pixels } from "./image-codec";
import { PreviewUnavailable } from "./preview-unavailable";

/**
 * A scaled JPEG decoder for photos too large to decode whole (decision 029): every 8 × 8 block of coefficients is
 * turned straight into n × n pixels (n = 4, 2 or 1: 1/2, 1/4 or 1/8 of each side) — the block's box-filtered
 * inverse DCT, computed from the coefficients without making the 64 full-size pixels — so a 24 MP photo becomes
 * 6 MP and a 100 MP one 6.25 MP, and memory follows the output. The compressed data is read from storage in pieces
 * (a Window over range reads) and never held whole. mozjpeg as packaged by jSquash exposes no DCT scaling, and a
 * 24 MP decode there needs ~200 MB, over a Worker's 128 MB.
 *
 * Reads baseline and extended Huffman JPEG (SOF0/SOF1, interleaved or not, restart intervals) at any scale, and
 * progressive JPEG (SOF2) at 1/8 from its DC scans (the AC scans are skipped: keeping every coefficient of a
 * progressive 100 MP photo would take 300 MB). Grey, YCbCr and Adobe RGB; CMYK, lossless and arithmetic-coded
 * files are refused with a reason.
 */

const ZIGZAG = new Uint8Array([
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57,
  50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
]);

/** Box-filtered IDCT basis: T[i*8+u] = C(u)/2 · mean of cos((2x+1)uπ/16) over the i-th of n equal runs of x. */
function basis(n: number): Float64Array {
  const t = new Float64Array(n * 8);
  const run = 8 / n;
  for (let i = 0; i < n; i++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0;
      for (let x = i * run; x < (i + 1) * run; x++) sum += Math.cos(((2 * x + 1) * u * Math.PI) / 16);
      t[i * 8 + u] = ((u === 0 ? Math.SQRT1_2 : 1) / 2) * (sum / run);
    }
  }
  return t;
}

interface Huffman {
  /** 9-bit lookahead: (length << 8) | symbol, 0 when the code is longer */
  lookup: Uint16Array;
  maxcode: Int32Array;
  valptr: Int32Array;
  mincode: Int32Array;
  symbols: Uint8Array;
}

function buildHuffman(counts: Uint8Array, symbols: Uint8Array): Huffman {
  const lookup = new Uint16Array(512);
  const maxcode = new Int32Array(18).fill(-1);
  const valptr = new Int32Array(17);
  const mincode = new Int32Array(17);
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    valptr[len] = k;
    mincode[len] = code;
    for (let i = 0; i < counts[len - 1]; i++) {
      if (len <= 9) {
        const shift = 9 - len;
        for (let fill = 0; fill < 1 << shift; fill++) lookup[(code << shift) | fill] = (len << 8) | symbols[k];
      }
      code++;
      k++;
    }
    maxcode[len] = counts[len - 1] ? code - 1 : -1;
    code <<= 1;
  }
  return { lookup, maxcode, valptr, mincode, symbols };
}

const corrupt = () => new PreviewUnavailable(ru.makers.corrupt("JPEG"));

/** Bits of entropy-coded data, with 0xFF00 unstuffing; a marker stops the feed (zeros follow). */
class Bits {
  acc = 0;
  n = 0;
  marker = false;
  constructor(public w: Window) {}

  reset() {
    this.acc = 0;
    this.n = 0;
    this.marker = false;
  }

  fill() {
    const w = this.w;
    while (this.n <= 24) {
      let b = 0;
      if (!this.marker && w.pos < w.buf.length) {
        b = w.buf[w.pos];
        if (b === 0xff) {
          const next = w.buf[w.pos + 1];
          if (next === 0) w.pos += 2;
          else {
            this.marker = true;
            b = 0;
          }
        } else w.pos++;
      }
      this.acc = (this.acc << 8) | b;
      this.n += 8;
    }
  }

  bits(k: number): number {
    if (k === 0) return 0;
    if (this.n < k) this.fill();
    this.n -= k;
    return (this.acc >>> this.n) & ((1 << k) - 1);
  }

  huff(h: Huffman): number {
    if (this.n < 16) this.fill();
    const look = h.lookup[(this.acc >>> (this.n - 9)) & 511];
    if (look) {
      this.n -= look >> 8;
      return look & 255;
    }
    for (let len = 10; len <= 16; len++) {
      const code = (this.acc >>> (this.n - len)) & ((1 << len) - 1);
      if (code <= h.maxcode[len]) {
        this.n -= len;
        return h.symbols[h.valptr[len] + code - h.mincode[len]];
      }
    }
    throw corrupt();
  }

  extend(s: number): number {
    if (s === 0) return 0;
    const v = this.bits(s);
    return v < 1 << (s - 1) ? v - (1 << s) + 1 : v;
  }
}

interface Component {
  id: number;
  h: number;
  v: number;
  tq: number;
  /** blocks per line and column in the component's own grid (ceil of its size / 8) */
  bw: number;
  bh: number;
  /** blocks per line and column padded to whole MCUs */
  pw: number;
  ph: number;
  /** output plane: pw·n × ph·n samples */
  plane: Uint8Array;
  /** progressive: DC coefficient per block (padded grid) */
  dc: Int32Array | null;
  dcTable: number;
  acTable: number;
  pred: number;
}

/** The image size a JPEG's frame header declares, read without decoding (null: no frame header in the first bytes). */
export function jpegFrameSize(head: Uint8Array): { width: number; height: number; sof: number } | null {
  let i = 2;
  if (head[0] !== 0xff || head[1] !== 0xd8) return null;
  while (i + 9 < head.length) {
    if (head[i] !== 0xff) return null;
    const m = head[i + 1];
    if (m === 0xff) {
      i++;
      continue;
    }
    const len = (head[i + 2] << 8) | head[i + 3];
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
      return { height: (head[i + 5] << 8) | head[i + 6], width: (head[i + 7] << 8) | head[i + 8], sof: m };
    }
    i += 2 + len;
  }
  return null;
}

/** A JPEG past MAX_JPEG_SCANS: each scan walks every block of the image again, data or not. */
export const tooManyScans = () => new PreviewUnavailable(ru.parse.tooComplex(ru.parse.jpegScans(limits.MAX_JPEG_SCANS)));

/**
 * Picks the scale (pixels per block side): the smallest whose longer side still reaches `cover` (the largest preview's
 * side, so nothing is decoded only to be thrown away by the resize), never over MAX_SCALED_DECODE_PIXELS.
 * Without `cover`, the largest scale under the cap.
 */
export function jpegScale(width: number, height: number, progressive: boolean, cover = Infinity): 1 | 2 | 4 | 8 {
  if (progressive) return 1;
  const fits = ([8, 4, 2, 1] as const).filter((n) => Math.ceil((width * n) / 8) * Math.ceil((height * n) / 8) <= limits.MAX_SCALED_DECODE_PIXELS);
  if (fits.length === 0) return 1;
  const covering = fits.filter((n) => Math.ceil((Math.max(width, height) * n) / 8) >= cover);
  return covering.length ? covering[covering.length - 1] : fits[0];
}

/**
 * Decodes a JPEG from a ByteSource at a reduced scale; answers RGBA pixels of about width·n/8 × height·n/8.
 * `scale` forces n (tests); otherwise `cover`, the longest side wanted, picks it (jpegScale).
 */
export async function decodeJpegScaled(source: ByteSource, opts: { scale?: 1 | 2 | 4 | 8; cover?: number } = {}): Promise<Pixels> {
  const chunk = limits.PREVIEW_READ_CHUNK_BYTES;
  const w = new Window(source, chunk);
  await w.ensure(4);
  if (w.buf[0] !== 0xff || w.buf[1] !== 0xd8) throw new PreviewUnavailable(ru.makers.notWhatItSays("JPEG"));
  w.pos = 2;
  const quant: (Int32Array | null)[] = [null, null, null, null];
  const dcTables: (Huffman | null)[] = [null, null, null, null];
  const acTables: (Huffman | null)[] = [null, null, null, null];
  let comps: Component[] = [];
  let width = 0;
  let height = 0;
  let hmax = 1;
  let vmax = 1;
  let mcusX = 0;
  let mcusY = 0;
  let n: 1 | 2 | 4 | 8 = 1;
  let T = basis(1);
  let progressive = false;
  let restart = 0;
  let adobeTransform = -1;
  let sawScan = false;
  let scans = 0;
  const scanned = new Set<number>();

  const readSegment = async (): Promise<Uint8Array> => {
    await w.ensure(2);
    if (w.buf.length - w.pos < 2) throw corrupt();
    const len = (w.buf[w.pos] << 8) | w.buf[w.pos + 1];
    if (len < 2) throw corrupt();
    await w.ensure(len);
    if (w.buf.length - w.pos < len) throw corrupt();
    const body = w.buf.slice(w.pos + 2, w.pos + len);
    w.pos += len;
    return body;
  };

  for (;;) {
    // Find the next marker (skipping fill bytes and, after a skipped scan, its entropy-coded data).
    await w.ensure(2);
    if (w.buf.length - w.pos < 2) break;
    if (w.buf[w.pos] !== 0xff) {
      if (!sawScan) throw corrupt();
      // Entropy-coded data of a skipped scan: jump to the next 0xFF within what is read.
      const next = w.buf.indexOf(0xff, w.pos);
      w.pos = next < 0 ? w.buf.length : next;
      continue;
    }
    const marker = w.buf[w.pos + 1];
    w.pos += 2;
    if (marker === 0xff) {
      w.pos--;
      continue;
    }
    if (marker === 0x00 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) continue;
    if (marker === 0xd9) break;
    const body = await readSegment();
    if (marker === 0xdb) {
      let i = 0;
      while (i < body.length) {
        const precision = body[i] >> 4;
        const id = body[i] & 15;
        if (id > 3) throw corrupt();
        const table = new Int32Array(64);
        for (let k = 0; k < 64; k++) table[ZIGZAG[k]] = precision ? (body[i + 1 + 2 * k] << 8) | body[i + 2 + 2 * k] : body[i + 1 + k];
        quant[id] = table;
        i += 1 + 64 * (precision ? 2 : 1);
      }
    } else if (marker === 0xc4) {
      let i = 0;
      while (i + 17 <= body.length) {
        const cls = body[i] >> 4;
        const id = body[i] & 15;
        const counts = body.slice(i + 1, i + 17);
        const total = counts.reduce((a, b) => a + b, 0);
        if (id > 3 || total > 256 || i + 17 + total > body.length) throw corrupt();
        const table = buildHuffman(counts, body.slice(i + 17, i + 17 + total));
        (cls === 0 ? dcTables : acTables)[id] = table;
        i += 17 + total;
      }
    } else if (marker === 0xdd) {
      restart = (body[0] << 8) | body[1];
    } else if (marker === 0xee) {
      if (body.length >= 12 && String.fromCharCode(...body.subarray(0, 5)) === "Adobe") adobeTransform = body[11];
    } else if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (marker !== 0xc0 && marker !== 0xc1 && marker !== 0xc2) {
        throw new PreviewUnavailable(ru.makers.jpegUnsupported(marker === 0xc3 ? "без потерь" : "арифметическое кодирование"));
      }
      if (body[0] !== 8) throw new PreviewUnavailable(ru.makers.jpegUnsupported(`${body[0]} бит на канал`));
      progressive = marker === 0xc2;
      height = (body[1] << 8) | body[2];
      width = (body[3] << 8) | body[4];
      const count = body[5];
      if (!width || !height) throw corrupt();
      if (width * height > limits.MAX_PREVIEW_SOURCE_PIXELS) {
        throw new PreviewUnavailable(ru.makers.tooManyPixels(width, height, limits.MAX_PREVIEW_SOURCE_PIXELS / 1e6));
      }
      if (count !== 1 && count !== 3) throw new PreviewUnavailable(ru.makers.jpegUnsupported(count === 4 ? "CMYK" : `${count} каналов`));
      n = opts.scale ?? jpegScale(width, height, progressive, opts.cover);
      if (progressive) n = 1;
      T = basis(n);
      const raw = Array.from({ length: count }, (_, k) => ({ id: body[6 + 3 * k], h: body[7 + 3 * k] >> 4, v: body[7 + 3 * k] & 15, tq: body[8 + 3 * k] }));
      if (raw.some((c) => c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 || c.tq > 3)) throw corrupt();
      hmax = Math.max(...raw.map((c) => c.h));
      vmax = Math.max(...raw.map((c) => c.v));
      mcusX = Math.ceil(width / (8 * hmax));
      mcusY = Math.ceil(height / (8 * vmax));
      comps = raw.map((c) => {
        const pw = mcusX * c.h;
        const ph = mcusY * c.v;
        return {
          ...c,
          bw: Math.ceil(Math.ceil((width * c.h) / hmax) / 8),
          bh: Math.ceil(Math.ceil((height * c.v) / vmax) / 8),
          pw,
          ph,
          plane: new Uint8Array(pw * n * ph * n),
          dc: progressive ? new Int32Array(pw * ph) : null,
          dcTable: 0,
          acTable: 0,
          pred: 0,
        };
      });
    } else if (marker === 0xda) {
      if (!comps.length) throw corrupt();
      sawScan = true;
      if (++scans > limits.MAX_JPEG_SCANS) throw tooManyScans();
      const count = body[0];
      const scan: Component[] = [];
      for (let k = 0; k < count; k++) {
        const c = comps.find((x) => x.id === body[1 + 2 * k]);
        if (!c) throw corrupt();
        c.dcTable = body[2 + 2 * k] >> 4;
        c.acTable = body[2 + 2 * k] & 15;
        // Each scan walks every block again: a sequential JPEG reads each channel once, so a repeat is refused.
        if (!progressive && scanned.has(c.id)) throw new PreviewUnavailable(ru.parse.tooComplex(ru.parse.jpegRescan));
        scanned.add(c.id);
        scan.push(c);
      }
      const at = 1 + 2 * count;
      const ss = body[at];
      const se = body[at + 1];
      const ah = body[at + 2] >> 4;
      const al = body[at + 2] & 15;
      // Progressive AC scans are skipped: the marker search above walks over their data.
      if (progressive && ss !== 0) continue;
      await decodeScan(scan, { ss, se, ah, al });
    }
  }
  if (!sawScan) throw corrupt();

  async function decodeScan(scan: Component[], p: { ss: number; se: number; ah: number; al: number }) {
    const bits = new Bits(w);
    for (const c of scan) {
      c.pred = 0;
      if (!dcTables[c.dcTable] || (!progressive && !acTables[c.acTable]) || !quant[c.tq]) throw corrupt();
    }
    const coef = new Int32Array(64);
    const tmp = new Float64Array(8 * n);
    const single = scan.length === 1;
    const blocksX = single ? scan[0].bw : mcusX;
    const blocksY = single ? scan[0].bh : mcusY;
    let untilRestart = restart;
    const ahead = limits.PREVIEW_READ_CHUNK_BYTES;

    const block = (c: Component, bx: number, by: number) => {
      if (progressive) {
        const k = by * c.pw + bx;
        if (p.ah === 0) {
          const s = bits.huff(dcTables[c.dcTable]!);
          c.pred += bits.extend(s);
          c.dc![k] = c.pred << p.al;
        } else if (bits.bits(1)) c.dc![k] |= 1 << p.al;
        return;
      }
      coef.fill(0);
      const s = bits.huff(dcTables[c.dcTable]!);
      c.pred += bits.extend(s);
      const q = quant[c.tq]!;
      coef[0] = c.pred * q[0];
      const ac = acTables[c.acTable]!;
      let rows = 1;
      for (let k = 1; k < 64; ) {
        const rs = bits.huff(ac);
        const r = rs >> 4;
        const size = rs & 15;
        if (size === 0) {
          if (r !== 15) break;
          k += 16;
          continue;
        }
        k += r;
        if (k > 63) throw corrupt();
        const z = ZIGZAG[k];
        coef[z] = bits.extend(size) * q[z];
        if ((z >> 3) + 1 > rows) rows = (z >> 3) + 1;
        k++;
      }
      writeBlock(c, bx, by, coef, rows, tmp);
    };

    for (let my = 0; my < blocksY; my++) {
      await w.ensure(ahead);
      for (let mx = 0; mx < blocksX; mx++) {
        if (restart) {
          if (untilRestart === 0) {
            // Byte-align, step over the RSTn marker, reset the predictions.
            bits.reset();
            while (w.pos + 1 < w.buf.length && !(w.buf[w.pos] === 0xff && w.buf[w.pos + 1] >= 0xd0 && w.buf[w.pos + 1] <= 0xd7)) w.pos++;
            if (w.pos + 1 < w.buf.length) w.pos += 2;
            for (const c of scan) c.pred = 0;
            untilRestart = restart;
          }
          untilRestart--;
        }
        if (single) block(scan[0], mx, my);
        else {
          for (const c of scan) for (let v = 0; v < c.v; v++) for (let h = 0; h < c.h; h++) block(c, mx * c.h + h, my * c.v + v);
        }
      }
      if (w.pos >= w.buf.length && !w.atEnd) throw new PreviewUnavailable(ru.makers.jpegUnsupported("слишком длинная строка блоков"));
    }
    // Leave the window at the marker that ends the scan (bytes prefetched into the bit buffer are not markers).
    if (!bits.marker) {
      while (w.pos + 1 < w.buf.length && !(w.buf[w.pos] === 0xff && w.buf[w.pos + 1] !== 0 && (w.buf[w.pos + 1] < 0xd0 || w.buf[w.pos + 1] > 0xd7))) w.pos++;
    }
  }

  /** The block's n × n box-filtered IDCT into its component plane (+128, clamped). */
  function writeBlock(c: Component, bx: number, by: number, coef: Int32Array, rows: number, tmp: Float64Array) {
    const stride = c.pw * n;
    const origin = by * n * stride + bx * n;
    // Rows first: tmp[v*n + j] = Σu T[j][u]·F[v][u]; rows past the last non-zero one are zero.
    for (let v = 0; v < rows; v++) {
      const r = v * 8;
      for (let j = 0; j < n; j++) {
        const t = j * 8;
        let sum = 0;
        for (let u = 0; u < 8; u++) if (coef[r + u] !== 0) sum += T[t + u] * coef[r + u];
        tmp[v * n + j] = sum;
      }
    }
    for (let i = 0; i < n; i++) {
      const t = i * 8;
      for (let j = 0; j < n; j++) {
        let sum = 0;
        for (let v = 0; v < rows; v++) sum += T[t + v] * tmp[v * n + j];
        const value = Math.round(sum + 128);
        c.plane[origin + i * stride + j] = value < 0 ? 0 : value > 255 ? 255 : value;
      }
    }
  }

  // Progressive: the DC coefficients make the 1/8 picture.
  if (progressive) {
    for (const c of comps) {
      const q0 = quant[c.tq]?.[0];
      if (!q0) throw corrupt();
      for (let k = 0; k < c.dc!.length; k++) {
        const value = Math.round((c.dc![k] * q0) / 8 + 128);
        c.plane[k] = value < 0 ? 0 : value > 255 ? 255 : value;
      }
    }
  }
  return toRgba(comps, width, height, n, hmax, vmax, adobeTransform);
}

/** Component planes (chroma at its own resolution, nearest sample) to RGBA of width·n/8 × height·n/8. */
function toRgba(comps: Component[], width: number, height: number, n: number, hmax: number, vmax: number, adobeTransform: number): Pixels {
  const ow = Math.max(1, Math.ceil((width * n) / 8));
  const oh = Math.max(1, Math.ceil((height * n) / 8));
  const data = new Uint8ClampedArray(ow * oh * 4);
  const rgb = comps.length === 3 && adobeTransform === 0;
  const cols = comps.map((c) => Int32Array.from({ length: ow }, (_, x) => Math.floor((x * c.h) / hmax)));
  for (let y = 0; y < oh; y++) {
    const rows = comps.map((c) => Math.floor((y * c.v) / vmax) * c.pw * n);
    for (let x = 0; x < ow; x++) {
      const at = (y * ow + x) * 4;
      const Y = comps[0].plane[rows[0] + cols[0][x]];
      if (comps.length === 1) {
        data[at] = data[at + 1] = data[at + 2] = Y;
      } else {
        const cb = comps[1].plane[rows[1] + cols[1][x]];
        const cr = comps[2].plane[rows[2] + cols[2][x]];
        if (rgb) {
          data[at] = Y;
          data[at + 1] = cb;
          data[at + 2] = cr;
        } else {
          data[at] = Y + 1.402 * (cr - 128);
          data[at + 1] = Y - 0.344136 * (cb - 128) - 0.714136 * (cr - 128);
          data[at + 2] = Y + 1.772 * (cb - 128);
        }
      }
      data[at + 3] = 255;
    }
  }
  for (const c of comps) c.plane = new Uint8Array(0);
  return { data, width: ow, height: oh };
}
