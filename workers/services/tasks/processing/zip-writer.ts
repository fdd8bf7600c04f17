/**
 * The pieces of a ZIP archive with stored (uncompressed) entries, written as a stream: a local header before each
 * file, its bytes, a data descriptor with the CRC-32 and size computed while the bytes streamed, and the central
 * directory at the end. Every piece depends only on small serialisable facts (name, CRC, size, offset), so an
 * export can stop between files and resume in another run. Media files are compressed already, so storing them
 * costs little and keeps the work streaming. No ZIP64: at most 65,535 entries and 4 GiB.
 */

export interface ZipEntry {
  name: string;
  crc: number;
  size: number;
  /** offset of the entry's local header in the archive */
  offset: number;
  /** DOS date and time */
  dosTime: number;
  dosDate: number;
}

export const ZIP_MAX_BYTES = 0xffff_ffff;
export const ZIP_MAX_ENTRIES = 0xffff;

const FLAGS = 0x0808; // bit 3: sizes in the data descriptor; bit 11: names are UTF-8
const VERSION = 20;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** Continues a CRC-32 over more bytes (start with 0). */
export function crc32(crc: number, bytes: Uint8Array): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** DOS date and time of a moment (local fields taken as UTC; DOS times have no zone). */
export function dosDateTime(ms: number): { dosTime: number; dosDate: number } {
  const d = new Date(Math.max(ms, Date.UTC(1980, 0, 1)));
  return {
    dosTime: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
    dosDate: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/** The local file header of an entry whose CRC and size follow in a data descriptor. */
export function localHeader(e: Pick<ZipEntry, "name" | "dosTime" | "dosDate">): Uint8Array {
  const name = utf8(e.name);
  const out = new Uint8Array(30 + name.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x04034b50, true);
  v.setUint16(4, VERSION, true);
  v.setUint16(6, FLAGS, true);
  v.setUint16(8, 0, true); // stored
  v.setUint16(10, e.dosTime, true);
  v.setUint16(12, e.dosDate, true);
  v.setUint16(26, name.length, true);
  out.set(name, 30);
  return out;
}

export function dataDescriptor(e: Pick<ZipEntry, "crc" | "size">): Uint8Array {
  const out = new Uint8Array(16);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x08074b50, true);
  v.setUint32(4, e.crc, true);
  v.setUint32(8, e.size, true);
  v.setUint32(12, e.size, true);
  return out;
}

/** The central directory and end record for the entries, which start at `offset` in the archive. */
export function centralDirectory(entries: readonly ZipEntry[], offset: number): Uint8Array {
  const records = entries.map((e) => {
    const name = utf8(e.name);
    const out = new Uint8Array(46 + name.length);
    const v = new DataView(out.buffer);
    v.setUint32(0, 0x02014b50, true);
    v.setUint16(4, VERSION, true);
    v.setUint16(6, VERSION, true);
    v.setUint16(8, FLAGS, true);
    v.setUint16(10, 0, true);
    v.setUint16(12, e.dosTime, true);
    v.setUint16(14, e.dosDate, true);
    v.setUint32(16, e.crc, true);
    v.setUint32(20, e.size, true);
    v.setUint32(24, e.size, true);
    v.setUint16(28, name.length, true);
    v.setUint32(42, e.offset, true);
    out.set(name, 46);
    return out;
  });
  const size = records.reduce((n, r) => n + r.length, 0);
  const out = new Uint8Array(size + 22);
  let at = 0;
  for (const r of records) {
    out.set(r, at);
    at += r.length;
  }
  const v = new DataView(out.buffer);
  v.setUint32(at, 0x06054b50, true);
  v.setUint16(at + 8, entries.length, true);
  v.setUint16(at + 10, entries.length, true);
  v.setUint32(at + 12, size, true);
  v.setUint32(at + 16, offset, true);
  return out;
}

/** A unique entry name: "name", then "name (2).ext", "name (3).ext" … */
export function uniqueEntryName(name: string, taken: Set<string>): string {
  const clean = name.replace(/[\\/]/g, "_") || "file";
  let candidate = clean;
  const dot = clean.lastIndexOf(".");
  const [base, ext] = dot > 0 ? [clean.slice(0, dot), clean.slice(dot)] : [clean, ""];
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${base} (${n})${ext}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}
