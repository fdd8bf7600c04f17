// The hostile-file corpus (issue 25): every file is generated here by a short function, never checked in as a
// binary. Each case names the parser limit that stops it (workers/services/media/extract/limits.ts) and the stage
// outcomes the tier expects (`tech`, `text`, `preview`: "done" | "not_applicable" | "failed"; absent: not checked).
// `reason` matches a parser-limit refusal (any stage); `previewReason` only the preview stage's reason (decision 029's
// makers say «Превью недоступно: …» in their own words).
// Used by the hostile tier (tests/hostile/run.mjs, against `wrangler dev`) and by the unit tests of the limits.
import { constants, deflateRawSync } from "node:zlib";

const MiB = 1024 * 1024;
const enc = (s) => Buffer.from(s, "utf8");

/** Raw deflate of `bytes`. */
export const deflate = (bytes) => deflateRawSync(bytes);

/**
 * A raw deflate stream of `mib` MiB of zeros made from ONE compressed MiB repeated: each MiB is compressed with a
 * full flush (byte-aligned, no back-references across it), so the same ~1 KB segment can be repeated, then an empty
 * final block closes the stream. 1 GiB of output costs about 1 MB and no gigabyte is ever allocated.
 */
export function zerosStream(mib) {
  const segment = deflateRawSync(Buffer.alloc(MiB), { finishFlush: constants.Z_FULL_FLUSH });
  const out = Buffer.alloc(segment.length * mib + 2);
  for (let i = 0; i < mib; i++) segment.copy(out, i * segment.length);
  out[out.length - 2] = 0x03; // fixed-Huffman final block with only the end-of-block code
  out[out.length - 1] = 0x00;
  return out;
}

/**
 * A ZIP writer that can lie: `entries` are written as local header + data; `central` (default: one record per
 * entry, honest) lists what the central directory claims — names, methods, declared sizes and local offsets.
 * @param {{name: string, data: Uint8Array, method?: number, size?: number}[]} entries
 * @param {(written: {name: string, offset: number, compressed: number, size: number, method: number}[]) => {name: string, offset: number, compressed: number, size: number, method: number}[]} [central]
 */
export function zipOf(entries, central = (w) => w) {
  const parts = [];
  const written = [];
  let offset = 0;
  for (const e of entries) {
    const name = enc(e.name);
    const method = e.method ?? 8;
    const size = e.size ?? e.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, e.data);
    written.push({ name: e.name, offset, compressed: e.data.length, size, method });
    offset += 30 + name.length + e.data.length;
  }
  const dirStart = offset;
  const records = central(written);
  for (const r of records) {
    const name = enc(r.name);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(r.method, 10);
    c.writeUInt32LE(r.compressed, 20);
    c.writeUInt32LE(r.size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(r.offset, 42);
    parts.push(c, name);
    offset += 46 + name.length;
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(records.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(records.length, 0xffff), 10);
  end.writeUInt32LE(offset - dirStart, 12);
  end.writeUInt32LE(dirStart, 16);
  parts.push(end);
  return Buffer.concat(parts);
}

const DOCUMENT = (body) =>
  `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="x"><w:body>${body}</w:body></w:document>`;
const paragraph = (text) => `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`;

/** A small, valid DOCX (deflated entries). */
export function docxOf(xml = DOCUMENT(paragraph("Обычный документ"))) {
  return zipOf([
    { name: "[Content_Types].xml", data: deflate(enc("<Types/>")), size: 8 },
    { name: "word/document.xml", data: deflate(enc(xml)), size: enc(xml).length },
  ]);
}

/** «Billion laughs»: ten levels of entities, each ten of the one below, inside word/document.xml. */
export function billionLaughsXml() {
  let dtd = '<!ENTITY lol0 "ха">';
  for (let i = 1; i <= 10; i++) dtd += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
  return `<?xml version="1.0"?><!DOCTYPE w:document [${dtd}]>` + DOCUMENT(paragraph("&lol10;"));
}

// ---- images -----------------------------------------------------------------------------------------------------

/** A PNG that is only a signature, an IHDR claiming `w` × `h` and IEND (the CRCs are not checked before the size). */
export function pngHeader(w, h) {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write("IHDR", 4, "latin1");
  ihdr.writeUInt32BE(w, 8);
  ihdr.writeUInt32BE(h, 12);
  ihdr[16] = 8; // bit depth
  ihdr[17] = 6; // RGBA
  const iend = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr, iend]);
}

/** A JPEG of SOI, a baseline SOF claiming `w` × `h`, and EOI. */
export function jpegHeader(w, h) {
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, h >> 8, h & 0xff, w >> 8, w & 0xff, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), sof, Buffer.from([0xff, 0xd9])]);
}

/**
 * A progressive greyscale JPEG of `w` × `h` whose `scans` DC scans carry no data: each still walks every block
 * (missing bits read as zeros), so 10,000 scans of 10 bytes each make 100 KB cost minutes of decoding.
 */
export function jpegScanBomb(w, h, scans) {
  const dqt = Buffer.concat([Buffer.from([0xff, 0xdb, 0x00, 0x43, 0x00]), Buffer.alloc(64, 1)]);
  // One DC code and one AC code, each a single bit "0": category 0 and end of block.
  const dht = (cls) => Buffer.from([0xff, 0xc4, 0x00, 0x14, cls << 4, 1, ...Array(15).fill(0), 0]);
  const sof = Buffer.from([0xff, 0xc2, 0x00, 0x0b, 0x08, h >> 8, h & 0xff, w >> 8, w & 0xff, 0x01, 1, 0x11, 0]);
  const sos = Buffer.from([0xff, 0xda, 0x00, 0x08, 0x01, 1, 0x00, 0, 0, 0]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), dqt, dht(0), dht(1), sof, ...Array(scans).fill(sos), Buffer.from([0xff, 0xd9])]);
}

/**
 * A little-endian TIFF of one IFD with `entries` ([tag, type, values]; SHORT 3 / LONG 4, at most one value each)
 * and `next` as its next-IFD pointer (8: itself). No pixel data: the header is the attack.
 */
export function tiffIfd(entries, next = 0) {
  const ifd = Buffer.alloc(2 + entries.length * 12 + 4);
  ifd.writeUInt16LE(entries.length, 0);
  entries.forEach(([tag, type, value], i) => {
    ifd.writeUInt16LE(tag, 2 + i * 12);
    ifd.writeUInt16LE(type, 4 + i * 12);
    ifd.writeUInt32LE(1, 6 + i * 12);
    if (type === 3) ifd.writeUInt16LE(value, 10 + i * 12);
    else ifd.writeUInt32LE(value, 10 + i * 12);
  });
  ifd.writeUInt32LE(next, 2 + entries.length * 12);
  return Buffer.concat([Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0]), ifd, Buffer.alloc(64)]);
}

/**
 * A little-endian 8-bit grey TIFF `width` wide of `strips` one-row strips, uncompressed, whose StripOffsets table
 * points strip i at `offsetOf(i)` within a pixel area of `area` bytes (the table is the attack: 100,000 strips at
 * one byte are 400 KB).
 */
export function tiffStrips(strips, offsetOf, { width = 1, area = 16 } = {}) {
  const entries = 7;
  const ifdAt = 8;
  const tableAt = ifdAt + 2 + entries * 12 + 4;
  const pixelsAt = tableAt + strips * 4;
  const out = Buffer.alloc(pixelsAt + area, 0x80);
  out.write("II", 0, "latin1");
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(ifdAt, 4);
  out.writeUInt16LE(entries, ifdAt);
  const entry = (i, tag, type, count, value) => {
    const at = ifdAt + 2 + i * 12;
    out.writeUInt16LE(tag, at);
    out.writeUInt16LE(type, at + 2);
    out.writeUInt32LE(count, at + 4);
    if (type === 3 && count === 1) out.writeUInt16LE(value, at + 8);
    else out.writeUInt32LE(value, at + 8);
  };
  entry(0, 256, 4, 1, width);
  entry(1, 257, 4, 1, strips);
  entry(2, 258, 3, 1, 8);
  entry(3, 259, 3, 1, 1);
  entry(4, 262, 3, 1, 1);
  entry(5, 273, 4, strips, tableAt);
  entry(6, 278, 4, 1, 1);
  out.writeUInt32LE(0, ifdAt + 2 + entries * 12);
  for (let i = 0; i < strips; i++) out.writeUInt32LE(pixelsAt + offsetOf(i), tableAt + i * 4);
  return out;
}

/**
 * An SVG past the old text gate: `<s1:filter>` with `s1` bound to the SVG namespace (the pattern only knew prefixes of
 * letters) applied by a `<style>` whose property is spelled with a character reference (`fil&#116;er`), five
 * rectangles blurred and dilated over a 4000 px canvas — resvg ran it for ~80 s.
 */
export function svgPrefixedFilterBomb() {
  const rects = Array.from({ length: 5 }, (_, i) => `<rect x="${i * 700}" y="${i * 700}" width="500" height="500"/>`).join("");
  return enc(
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:s1="http://www.w3.org/2000/svg" width="4000" height="4000">` +
      `<s1:filter id="b"><s1:feGaussianBlur stdDeviation="200"/><s1:feMorphology operator="dilate" radius="100"/></s1:filter>` +
      `<style>rect{fil&#116;er:url(#b)}</style>${rects}</svg>`,
  );
}

/** A CSS filter function in a `<style>` property spelled with a character reference: no filter element at all. */
export function svgStyleFilterBomb() {
  const rects = Array.from({ length: 5 }, (_, i) => `<rect x="${i * 700}" y="${i * 700}" width="500" height="500"/>`).join("");
  return enc(`<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><style>rect{fil&#116;er:blur(200px)}</style>${rects}</svg>`);
}

/** A 16-bit mono WAV at 8 kHz holding `seconds` of a tone, whose `data` header declares `declaredBytes`. */
export function wavOf(seconds, declaredBytes) {
  const frames = Math.round(seconds * 8000);
  const out = Buffer.alloc(44 + frames * 2);
  out.write("RIFF", 0);
  out.writeUInt32LE(36 + frames * 2, 4);
  out.write("WAVEfmt ", 8);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(8000, 24);
  out.writeUInt32LE(16000, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write("data", 36);
  out.writeUInt32LE(declaredBytes ?? frames * 2, 40);
  for (let f = 0; f < frames; f++) out.writeInt16LE(Math.round(12000 * Math.sin(f / 3)), 44 + f * 2);
  return out;
}

/** An ISO-BMFF file of brand `brand` with no embedded JPEG (a HEIC whose pictures are HEVC only). */
export function isoBmff(brand) {
  const ftyp = Buffer.alloc(24);
  ftyp.writeUInt32BE(24, 0);
  ftyp.write(`ftyp${brand}`, 4);
  ftyp.write(`${brand}mif1`, 16);
  const mdat = Buffer.alloc(4096, 0x5a);
  mdat.writeUInt32BE(4096, 0);
  mdat.write("mdat", 4);
  return Buffer.concat([ftyp, mdat]);
}

/** A 1 × 1 GIF89a of `frames` frames (each a tiny image descriptor with one LZW sub-block). */
export function gifFrames(frames) {
  const head = Buffer.concat([enc("GIF89a"), Buffer.from([1, 0, 1, 0, 0x00, 0, 0])]);
  const frame = Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0x00, 0x02, 0x02, 0x4c, 0x01, 0x00]);
  return Buffer.concat([head, Buffer.alloc(frame.length * frames).fill(frame), Buffer.from([0x3b])]);
}

/**
 * A JPEG whose EXIF (APP1) has IFDs that point at each other in a loop: IFD0's next-IFD pointer and its EXIF
 * sub-IFD pointer both lead back to IFD0 itself.
 */
export function exifLoopJpeg() {
  const tiff = Buffer.alloc(8 + 2 + 12 * 2 + 4);
  tiff.write("II", 0, "latin1");
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4);
  tiff.writeUInt16LE(2, 8); // two entries
  // 0x010f Make, ASCII, 4 bytes inline: "Loop"
  tiff.writeUInt16LE(0x010f, 10);
  tiff.writeUInt16LE(2, 12);
  tiff.writeUInt32LE(4, 14);
  tiff.write("Loo\0", 18, "latin1");
  // 0x8769 ExifIFDPointer → IFD0 again
  tiff.writeUInt16LE(0x8769, 22);
  tiff.writeUInt16LE(4, 24);
  tiff.writeUInt32LE(1, 26);
  tiff.writeUInt32LE(8, 30);
  tiff.writeUInt32LE(8, 34); // next IFD → IFD0 again
  const body = Buffer.concat([enc("Exif\0\0"), tiff]);
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff]), body]);
  const jpeg = jpegHeader(1, 1);
  return Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
}

// ---- PDF, SVG, MP4 ----------------------------------------------------------------------------------------------

/** A PDF whose page tree is described by `pages` (the body of object 2). */
export function pdfOf(pages) {
  return enc(
    "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n" +
      `2 0 obj << /Type /Pages ${pages} >> endobj\n` +
      "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >> endobj\n" +
      "trailer << /Root 1 0 R /Size 4 >>\n%%EOF\n",
  );
}

/**
 * A one-page PDF whose FlateDecode content stream inflates to `mib` MiB of zero bytes (whitespace to a PDF reader):
 * the zlib header and zerosStream's repeated segment, so 1 GiB of output is about 1 MB on disk.
 */
export function pdfFlateBomb(mib) {
  const data = Buffer.concat([Buffer.from([0x78, 0x9c]), zerosStream(mib)]);
  return Buffer.concat([
    enc(
      "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n" +
        "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Contents 4 0 R >> endobj\n" +
        `4 0 obj << /Length ${data.length} /Filter /FlateDecode >>\nstream\n`,
    ),
    data,
    enc("\nendstream\nendobj\ntrailer << /Root 1 0 R /Size 5 >>\n%%EOF\n"),
  ]);
}

/**
 * LZW codes (PDF's LZWDecode, EarlyChange 1) that decode to at least `mib` MiB of spaces: a space, then each new
 * dictionary code in turn (each one byte longer than the last), then the longest code (3,839 bytes) over and over:
 * about 1.5 bytes on disk per 3.8 KB of output.
 */
export function lzwBombCodes(mib) {
  const out = [];
  let acc = 0;
  let bits = 0;
  let codeLength = 9;
  let nextCode = 258;
  const put = (code) => {
    acc = (acc << codeLength) | code;
    bits += codeLength;
    while (bits >= 8) {
      bits -= 8;
      out.push((acc >>> bits) & 0xff);
    }
    acc &= (1 << bits) - 1;
  };
  const grow = () => {
    nextCode++;
    const n = nextCode + 1;
    if ((n & (n - 1)) === 0) codeLength = Math.min(Math.log2(n) + 1, 12);
  };
  put(0x20);
  let bytes = 1;
  for (let length = 2; nextCode < 4096; length++) {
    put(nextCode);
    bytes += length;
    grow();
  }
  while (bytes < mib * 1024 * 1024) {
    put(4095);
    bytes += 3839;
    grow();
  }
  put(257);
  if (bits > 0) out.push((acc << (8 - bits)) & 0xff);
  return Buffer.from(out);
}

/** A one-page PDF whose LZWDecode content stream decodes to `mib` MiB of spaces (see lzwBombCodes). */
export function pdfLzwBomb(mib) {
  const data = lzwBombCodes(mib);
  return Buffer.concat([
    enc(
      "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n" +
        "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Contents 4 0 R >> endobj\n" +
        `4 0 obj << /Length ${data.length} /Filter /LZWDecode >>\nstream\n`,
    ),
    data,
    enc("\nendstream\nendobj\ntrailer << /Root 1 0 R /Size 5 >>\n%%EOF\n"),
  ]);
}

/** Five rectangles blurred by 200 and dilated by 100 on a 4000 × 4000 canvas: a rasteriser's cost is radius × canvas. */
export function svgBlurBomb() {
  const rects = Array.from({ length: 5 }, (_, i) => `<rect x="${i * 700}" y="${i * 700}" width="500" height="500" filter="url(#b)"/>`).join("");
  return enc(
    `<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><filter id="b">` +
      `<feGaussianBlur stdDeviation="200"/><feMorphology operator="dilate" radius="100"/></filter>${rects}</svg>`,
  );
}

/**
 * An SVG that is cheap to send and dear to draw: `rects` canvas-sized rectangles (4.3 ms each in resvg at 1280 px),
 * or a zigzag polygon of `points` points across the whole canvas (100,000 took 22 s).
 */
export function svgDrawingBomb({ rects = 0, points = 0 }) {
  const shapes = Array.from({ length: rects }, (_, i) => `<rect x="${i % 9}" width="4000" height="4000" fill="#${(i % 4096).toString(16).padStart(3, "0")}"/>`).join("");
  const zigzag = points ? `<polygon fill="red" points="${Array.from({ length: points }, (_, i) => `${i % 2 ? 0 : 4000},${(i * 7919) % 4000}`).join(" ")}"/>` : "";
  return enc(`<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000">${shapes}${zigzag}</svg>`);
}

/** An SVG nested `depth` groups deep, with `refs` external references (to `base`, which must never be fetched). */
export function svgOf(depth, refs, base) {
  const links = Array.from({ length: refs }, (_, i) => `<image href="${base}/x${i}.png" width="1" height="1"/>`).join("");
  return enc(
    `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50">${"<g>".repeat(depth)}${links}` +
      `<rect style="fill:url(${base}/f.svg#p)" width="1" height="1"/>${"</g>".repeat(depth)}</svg>`,
  );
}

/** One ISO-BMFF box. */
export function box(type, body = Buffer.alloc(0)) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, "latin1");
  return Buffer.concat([head, body]);
}
const ftyp = () => box("ftyp", Buffer.concat([enc("isom"), Buffer.alloc(4), enc("isomiso2")]));

/** An MP4 whose moov nests `trak` boxes `depth` deep. */
export function mp4Nested(depth) {
  let inner = box("free");
  for (let i = 0; i < depth; i++) inner = box("trak", inner);
  return Buffer.concat([ftyp(), box("moov", inner)]);
}

/** An MP4 whose moov holds `count` empty boxes. */
export function mp4ManyBoxes(count) {
  return Buffer.concat([ftyp(), box("moov", Buffer.alloc(8 * count).fill(box("free")))]);
}

/** An MP4 with broken atoms: a box smaller than its header, one claiming 4 GiB, one running past the end. */
export function mp4Broken() {
  const tiny = Buffer.from([0, 0, 0, 3, 0x74, 0x72, 0x61, 0x6b]);
  const huge = Buffer.from([0, 0, 0, 1, 0x6d, 0x64, 0x61, 0x74, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0]);
  return Buffer.concat([ftyp(), box("moov", Buffer.concat([tiny, box("mvhd", Buffer.alloc(4))])), huge]);
}

// ---- ordinary twins ---------------------------------------------------------------------------------------------

/**
 * An ordinary file of the same type and about the same size as a hostile one, for the tier's baseline: what the
 * platform costs for such uploads when nothing is hostile. `fixtures` holds the bytes of tests/fixtures/ files.
 * @param {{ mime: string, name: string }} c
 * @param {number} size
 * @param {{ jpeg: Uint8Array, png: Uint8Array, pdf: Uint8Array }} fixtures
 */
export function ordinaryTwin(c, size, fixtures) {
  const pad = (bytes) => Buffer.concat([bytes, Buffer.alloc(Math.max(0, size - bytes.length))]);
  const ext = c.name.slice(c.name.lastIndexOf("."));
  const name = `Обычный-${c.name.slice(0, c.name.lastIndexOf("."))}${ext}`;
  let build;
  if (c.mime === "image/png") build = () => pad(Buffer.from(fixtures.png));
  else if (c.mime === "image/jpeg") build = () => pad(Buffer.from(fixtures.jpeg));
  else if (c.mime === "image/gif") build = () => pad(gifFrames(1));
  else if (c.mime === "application/pdf") build = () => pad(Buffer.from(fixtures.pdf));
  else if (c.mime === "image/svg+xml") build = () => Buffer.concat([svgOf(3, 0, ""), enc(`<!--${"x".repeat(Math.max(0, size - 600))}-->`)]);
  else if (c.mime.startsWith("video/")) build = () => Buffer.concat([ftyp(), box("moov", box("mvhd", Buffer.alloc(100))), box("mdat", Buffer.alloc(Math.max(0, size - 150)))]);
  else if (c.mime.startsWith("application/vnd.")) {
    const xml = DOCUMENT(paragraph("Обычный документ"));
    build = () =>
      zipOf([
        { name: "word/document.xml", data: deflate(enc(xml)), size: enc(xml).length },
        { name: "word/media/pad.bin", data: Buffer.alloc(Math.max(0, size - 400), 7), method: 0 },
      ]);
  } else build = () => enc("Обычный текст, обычная строка.\n".repeat(Math.ceil(size / 55)));
  return { name, mime: c.mime.startsWith("application/vnd.") ? DOCX : c.mime, build, expect: {} };
}

// ---- the corpus -------------------------------------------------------------------------------------------------

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";

/**
 * Every hostile file of the tier. `limit` names what stops it; `expect` the stage outcomes.
 * @param {{ externalBase?: string }} [options] where SVG external references point (a server that counts hits)
 */
export function hostileCorpus({ externalBase = "http://127.0.0.1:9" } = {}) {
  return [
    {
      name: "Презентация-бомба.pptx",
      mime: PPTX,
      limit: "ZIP: записи перекрываются (300 слайдов на одном потоке в 64 МиБ)",
      // Its text-card preview (decision 029) reads the same archive and is refused the same way.
      expect: { text: "failed", preview: "failed" },
      reason: /перекрываются/,
      build: () => {
        const stream = zerosStream(64);
        return zipOf([{ name: "ppt/slides/slide1.xml", data: stream, size: 64 * MiB }], ([only]) =>
          Array.from({ length: 300 }, (_, i) => ({ ...only, name: `ppt/slides/slide${i + 1}.xml` })),
        );
      },
    },
    {
      name: "Гигабайт.docx",
      mime: DOCX,
      limit: "ZIP: заявленное сжатие больше MAX_COMPRESSION_RATIO (1 ГиБ из 1 МиБ)",
      expect: { text: "failed" },
      reason: /сжата сильнее/,
      build: () => zipOf([{ name: "word/document.xml", data: zerosStream(1024), size: 1024 * MiB }]),
    },
    {
      name: "Гигабайт-ложь.docx",
      mime: DOCX,
      limit: "ZIP: запись распаковывается больше заявленного размера (проверка во время распаковки)",
      expect: { text: "failed" },
      reason: /больше заявленных/,
      build: () => zipOf([{ name: "word/document.xml", data: zerosStream(1024), size: 4096 }]),
    },
    {
      name: "65535-записей.docx",
      mime: DOCX,
      limit: "ZIP: больше MAX_ZIP_ENTRIES записей",
      expect: { text: "failed" },
      reason: /записей/,
      build: () =>
        zipOf(Array.from({ length: 65_535 }, (_, i) => ({ name: `x/${i.toString(36)}`, data: Buffer.alloc(0), method: 0 }))),
    },
    {
      name: "Матрёшка.docx",
      mime: DOCX,
      limit: "ZIP: архив внутри архива (MAX_ZIP_NESTING)",
      expect: { text: "failed" },
      reason: /архив внутри архива/,
      build: () => zipOf([{ name: "word/document.xml", data: docxOf(), method: 0 }]),
    },
    {
      name: "Миллиард-смешков.docx",
      mime: DOCX,
      limit: "XML: объявления DOCTYPE/ENTITY отвергаются",
      expect: { text: "failed" },
      reason: /сущности/,
      build: () => docxOf(billionLaughsXml()),
    },
    {
      name: "Обрезанный.docx",
      mime: DOCX,
      limit: "ZIP: нет каталога (файл обрезан)",
      expect: { text: "failed" },
      reason: /нет каталога/,
      build: () => {
        const whole = docxOf();
        return whole.subarray(0, Math.floor(whole.length / 2));
      },
    },
    {
      name: "Битый.docx",
      mime: DOCX,
      limit: "ZIP: поток deflate не распаковывается",
      expect: { text: "failed" },
      reason: /не распаковывается/,
      build: () => zipOf([{ name: "word/document.xml", data: Buffer.alloc(64, 0xff), size: 1000 }]),
    },
    {
      name: "60000x60000.png",
      mime: "image/png",
      limit: "изображение: MAX_IMAGE_PIXELS по заголовку IHDR (и MAX_DECODE_PIXELS для превью)",
      expect: { tech: "failed", preview: "failed" },
      reason: /пикселей/,
      build: () => pngHeader(60_000, 60_000),
    },
    {
      name: "65535x65535.jpg",
      mime: "image/jpeg",
      limit: "изображение: MAX_IMAGE_PIXELS по маркеру SOF (и MAX_DECODE_PIXELS для превью)",
      expect: { tech: "failed", preview: "failed" },
      reason: /пикселей/,
      build: () => jpegHeader(65_535, 65_535),
    },
    {
      name: "10000-кадров.gif",
      mime: "image/gif",
      limit: "GIF: больше MAX_ANIMATION_FRAMES кадров",
      expect: { tech: "failed", preview: "not_applicable" },
      reason: /кадров/,
      build: () => gifFrames(10_000),
    },
    {
      name: "Петля-EXIF.jpg",
      mime: "image/jpeg",
      limit: "EXIF: IFD ссылаются друг на друга по кругу (exifr читает каждый IFD один раз; MAX_EXIF_BYTES, EXIF_TIME_BUDGET_MS)",
      expect: { tech: "done" },
      build: () => exifLoopJpeg(),
    },
    {
      name: "Миллиард-страниц.pdf",
      mime: "application/pdf",
      limit: "PDF: /Count больше MAX_PDF_DECLARED_PAGES",
      // PDF.js opens it (one page, no text): its text card is made and says «В документе нет текста» (decision 029).
      expect: { tech: "failed", preview: "done" },
      reason: /страниц/,
      build: () => pdfOf("/Kids [3 0 R] /Count 1000000000"),
    },
    {
      name: "Петля-страниц.pdf",
      mime: "application/pdf",
      limit: "PDF: дерево страниц ссылается само на себя (PDF.js отвергает, PDF_TIME_BUDGET_MS)",
      expect: {},
      build: () => pdfOf("/Kids [2 0 R] /Count 5"),
    },
    {
      name: "Бомба-сжатия.pdf",
      mime: "application/pdf",
      limit: "PDF: поток FlateDecode распаковывается больше MAX_PDF_STREAM_BYTES (1 ГиБ из 1 МБ; PDF.js не получает файл)",
      // Text and card read the PDF through the same stream check: both are refused before PDF.js inflates anything.
      expect: { text: "failed", preview: "failed" },
      reason: /поток PDF 4 0 R распаковывается/,
      build: () => pdfFlateBomb(1024),
    },
    {
      name: "Бомба-LZW.pdf",
      mime: "application/pdf",
      limit: "PDF: поток LZWDecode раскрывается больше MAX_PDF_STREAM_BYTES (512 МиБ из 210 КБ; PDF.js не получает файл)",
      expect: { text: "failed", preview: "failed" },
      reason: /поток PDF 4 0 R распаковывается/,
      build: () => pdfLzwBomb(512),
    },
    {
      name: "Глубокий.svg",
      mime: "image/svg+xml",
      limit: "SVG: вложенность больше MAX_SVG_DEPTH",
      expect: { tech: "failed", preview: "failed" },
      reason: /SVG вложен/,
      build: () => svgOf(10_000, 1, externalBase),
    },
    {
      name: "Внешние-ссылки.svg",
      mime: "image/svg+xml",
      limit: "SVG: внешние ссылки считаются и никогда не загружаются",
      expect: { tech: "done" },
      build: () => svgOf(3, 5, externalBase),
    },
    {
      name: "Размытие.svg",
      mime: "image/svg+xml",
      limit: "SVG: фильтры (размытие, расширение) не рисуются в Worker — их цена радиус × холст (607 байт держали resvg 192 с)",
      expect: { tech: "done", preview: "not_applicable" },
      previewReason: /фильтрами делает браузер/,
      build: () => svgBlurBomb(),
    },
    {
      name: "Двадцать-тысяч-фигур.svg",
      mime: "image/svg+xml",
      limit: "SVG: больше MAX_SVG_RASTER_SHAPES фигур не рисуются в Worker (20 000 во весь холст — 86 с в resvg)",
      expect: { tech: "done", preview: "not_applicable" },
      previewReason: /больше 1000 фигур/,
      build: () => svgDrawingBomb({ rects: 20_000 }),
    },
    {
      name: "Зигзаг.svg",
      mime: "image/svg+xml",
      limit: "SVG: больше MAX_SVG_RASTER_NUMBERS чисел в геометрии (многоугольник в 100 000 точек — 22 с в resvg)",
      expect: { tech: "done", preview: "not_applicable" },
      previewReason: /чисел в геометрии/,
      build: () => svgDrawingBomb({ points: 100_000 }),
    },
    {
      name: "Пустые-стили.svg",
      mime: "image/svg+xml",
      limit: "SVG: 400 000 пустых <style/> — каждый стиль — элемент дерева: больше MAX_SVG_RASTER_ELEMENTS не рисуются в Worker (шаблон от <style> до свойства был квадратичным)",
      expect: { tech: "done", preview: "not_applicable" },
      previewReason: /больше 10000 элементов/,
      build: () => enc(`<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">${"<style/>".repeat(400_000)}<rect width="20" height="20" fill="red"/></svg>`),
    },
    {
      name: "Фильтр-под-префиксом.svg",
      mime: "image/svg+xml",
      limit: "SVG: <s1:filter> под префиксом SVG и свойство fil&#116;er в <style> — ворота решают по разобранному дереву (было ~80 с в resvg)",
      expect: { tech: "done", preview: "not_applicable" },
      previewReason: /фильтрами делает браузер/,
      build: () => svgPrefixedFilterBomb(),
    },
    {
      name: "Фильтр-в-стиле.svg",
      mime: "image/svg+xml",
      limit: "SVG: fil&#116;er: blur() в <style> — свойство читается после разбора XML и CSS",
      expect: { tech: "done", preview: "not_applicable" },
      previewReason: /фильтрами делает браузер/,
      build: () => svgStyleFilterBomb(),
    },
    {
      name: "Вложенные-атомы.mp4",
      mime: "video/mp4",
      limit: "MP4: вложенность блоков больше MAX_BOX_DEPTH",
      expect: { tech: "failed" },
      reason: /вложен глубже/,
      build: () => mp4Nested(1_000),
    },
    {
      name: "Много-атомов.mp4",
      mime: "video/mp4",
      limit: "MP4: больше MAX_BOXES блоков в moov",
      expect: { tech: "failed" },
      reason: /блоков/,
      build: () => mp4ManyBoxes(30_000),
    },
    {
      name: "Битые-атомы.mov",
      mime: "video/quicktime",
      limit: "MP4/MOV: блок меньше заголовка, блок в 16 ЭиБ — чтение останавливается на первом",
      // No track can be read from it, and an audio or video file without one fails its stage saying so (issue 38).
      expect: { tech: "failed" },
      build: () => mp4Broken(),
    },
    // ---- In-Worker preview makers (decision 029) ----
    {
      name: "300-Мп.jpg",
      mime: "image/jpeg",
      limit: "фото: MAX_PREVIEW_SOURCE_PIXELS (200 Мп) по маркеру SOF, до декодирования",
      expect: { tech: "failed", preview: "failed" },
      reason: /пикселей/,
      build: () => jpegHeader(20_000, 15_000),
    },
    {
      name: "24-Мп-без-данных.jpg",
      mime: "image/jpeg",
      limit: "масштабированный JPEG: нет данных скана (обрезан) — превью с причиной, без зависания",
      expect: { preview: "failed" },
      previewReason: /повреждён/,
      build: () => jpegHeader(6_000, 4_000),
    },
    {
      name: "Сканы-24-Мп.jpg",
      mime: "image/jpeg",
      limit: "масштабированный JPEG: больше MAX_JPEG_SCANS сканов (10 000 пустых сканов в 100 КБ, каждый проходит все блоки)",
      expect: { preview: "failed" },
      previewReason: /больше 100 сканов/,
      build: () => jpegScanBomb(6_000, 4_000, 10_000),
    },
    {
      name: "Сканы-12-Мп.jpg",
      mime: "image/jpeg",
      limit: "JPEG для mozjpeg: сканы считаются до декодирования (MAX_JPEG_SCANS)",
      expect: { preview: "failed" },
      previewReason: /больше 100 сканов/,
      build: () => jpegScanBomb(4_000, 3_000, 10_000),
    },
    {
      name: "Петля-IFD-100000x100000.tif",
      mime: "image/tiff",
      limit: "TIFF: цепочка IFD по кругу читается один раз (MAX_TIFF_IFDS); 10 Гп по заголовку — MAX_PREVIEW_SOURCE_PIXELS",
      expect: { preview: "failed" },
      previewReason: /пикселей/,
      build: () => tiffIfd([[256, 4, 100_000], [257, 4, 100_000], [258, 3, 8], [262, 3, 1], [273, 4, 100], [277, 3, 1], [279, 4, 10]], 8),
    },
    {
      name: "Сто-тысяч-полос.tif",
      mime: "image/tiff",
      limit: "TIFF: 100 000 полос в одном байте читаются одним чтением (полосы через окно, сливающее соседние и повторные; было 100 000 чтений R2)",
      expect: { preview: "done" },
      build: () => tiffStrips(100_000, () => 0),
    },
    {
      name: "Разбросанные-полосы.tif",
      mime: "image/tiff",
      limit: "TIFF: полосы попеременно в двух далёких местах не сливаются — MAX_TIFF_READS чтений на разбор, дальше отказ",
      expect: { preview: "failed" },
      previewReason: /чтений из хранилища/,
      build: () => tiffStrips(20_000, (i) => (i % 2) * 200_000, { area: 200_016 }),
    },
    {
      name: "Не-TIFF.tif",
      mime: "image/tiff",
      limit: "расширение и тип лгут: содержимое сверяется по сигнатуре",
      expect: { preview: "failed" },
      previewReason: /не похоже/,
      build: () => enc("Это текст, а не TIFF. ".repeat(100)),
    },
    {
      name: "Только-HEVC.heic",
      mime: "image/heic",
      limit: "HEIC без встроенного JPEG: декодера HEVC в Worker нет — причина в превью",
      expect: { preview: "failed" },
      previewReason: /HEVC/,
      build: () => isoBmff("heic"),
    },
    {
      name: "10-часов.wav",
      mime: "audio/wav",
      limit: "WAV: заголовок объявляет 10 часов, данных на секунду — читается то, что есть (MAX_WAV_STREAM_BYTES, выборка окнами)",
      expect: { preview: "done" },
      build: () => wavOf(1, 10 * 3600 * 16_000),
    },
    {
      name: "Битый.wav",
      mime: "audio/wav",
      limit: "WAV без fmt/data: превью с причиной",
      expect: { preview: "failed" },
      previewReason: /WAV/,
      build: () => Buffer.concat([enc("RIFF"), Buffer.alloc(4, 0xff), enc("WAVEjunk"), Buffer.alloc(64, 0xff)]),
    },
    {
      name: "Глубокий.json",
      mime: "application/json",
      limit: "JSON: вложенность больше MAX_JSON_DEPTH не обходится",
      expect: { tech: "not_applicable", text: "done" },
      build: () => enc(`${"[".repeat(500_000)}"дно"${"]".repeat(500_000)}`),
    },
    {
      name: "Длинная-строка.md",
      mime: "text/markdown",
      limit: "Markdown: строка длиннее MAX_MARKDOWN_LINE_CHARS не разбирается шаблонами",
      expect: { tech: "not_applicable", text: "done" },
      build: () => enc(`# Заголовок\n${"*_`".repeat(350_000)}\n`),
    },
    {
      name: "Широкая.csv",
      mime: "text/csv",
      limit: "CSV: текст режется по MAX_INDEX_CHARS до разбора",
      expect: { tech: "not_applicable", text: "done" },
      build: () => enc(`${"а,".repeat(400_000)}\n`),
    },
  ];
}
