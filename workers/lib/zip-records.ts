/**
 * The byte layout of a streamed ZIP (PKWARE APPNOTE 6.3.10): stored entries whose CRC and sizes follow their bytes in a
 * data descriptor, so nothing is read twice or held, and Zip64 fields wherever a size, an offset or the entry count
 * passes what the classic 16/32-bit fields hold. The same records client-zip wrote (version 4.5, made by Unix, UTF-8
 * names, mode 0664), so archives read the same in every tool; the writer around them is workers/lib/zip-stream.ts.
 */

/** The largest value a classic 32-bit field holds; this value and above go into Zip64 fields. */
const MAX32 = 0xffff_ffff;
/** The largest entry count the classic end record holds. */
const MAX16 = 0xffff;
/** version 4.5 (Zip64) */
const VERSION = 45;
/** made by: Unix (3) << 8, version 4.5 (the high byte makes readers take the mode from the external attributes) */
const MADE_BY = (3 << 8) | VERSION;
/** bit 3: CRC and sizes in a data descriptor after the bytes; bit 11: the name is UTF-8 */
const FLAGS = 0x0008 | 0x0800;
/** a regular file, rw-rw-r-- */
const FILE_MODE = 0o100664;

export const LOCAL_HEADER = 0x04034b50;
export const DATA_DESCRIPTOR = 0x08074b50;
export const CENTRAL_RECORD = 0x02014b50;
export const END64 = 0x06064b50;
export const END64_LOCATOR = 0x07064b50;
export const END = 0x06054b50;

/** What the central directory needs of an entry once its bytes are written. */
export interface WrittenEntry {
  name: Uint8Array;
  /** MS-DOS time and date (see `dosDateTime`) */
  time: number;
  date: number;
  crc: number;
  size: number;
  /** where its local header starts in the archive */
  offset: number;
}

/** MS-DOS time and date (2-second steps, 1980…2107) in UTC: the Workers runtime has no local time zone anyway. */
export function dosDateTime(millis: number): { time: number; date: number } {
  const d = new Date(Math.min(Math.max(Number.isFinite(millis) ? millis : 0, Date.UTC(1980, 0, 1)), Date.UTC(2107, 11, 31, 23, 59, 58)));
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/** Whether an entry needs Zip64 sizes (in its data descriptor and central record). */
export const isZip64Size = (size: number) => size >= MAX32;

/** The local header and name of an entry whose CRC and sizes come after its bytes. */
export function localHeader(name: Uint8Array, time: number, date: number): Uint8Array {
  const out = new Uint8Array(30 + name.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, LOCAL_HEADER, true);
  v.setUint16(4, VERSION, true);
  v.setUint16(6, FLAGS, true);
  v.setUint16(8, 0, true); // stored: media is compressed already
  v.setUint16(10, time, true);
  v.setUint16(12, date, true);
  // CRC, sizes: zero here, in the data descriptor
  v.setUint16(26, name.length, true);
  v.setUint16(28, 0, true);
  out.set(name, 30);
  return out;
}

/** The data descriptor after an entry's bytes: 8-byte sizes when the entry needs Zip64. */
export function dataDescriptor(crc: number, size: number): Uint8Array {
  const wide = isZip64Size(size);
  const out = new Uint8Array(wide ? 24 : 16);
  const v = new DataView(out.buffer);
  v.setUint32(0, DATA_DESCRIPTOR, true);
  v.setUint32(4, crc, true);
  if (wide) {
    v.setBigUint64(8, BigInt(size), true);
    v.setBigUint64(16, BigInt(size), true);
  } else {
    v.setUint32(8, size, true);
    v.setUint32(12, size, true);
  }
  return out;
}

/**
 * An entry's central directory record. A 32-bit field that cannot hold its value says 0xFFFFFFFF and the Zip64 extra
 * field carries the value, in APPNOTE's order (size, compressed size, offset) and only for the fields so marked.
 */
export function centralRecord(entry: WrittenEntry): Uint8Array {
  const wideSize = isZip64Size(entry.size);
  const wideOffset = entry.offset >= MAX32;
  const extra = (wideSize ? 16 : 0) + (wideOffset ? 8 : 0);
  const extraLength = extra > 0 ? 4 + extra : 0;
  const out = new Uint8Array(46 + entry.name.length + extraLength);
  const v = new DataView(out.buffer);
  v.setUint32(0, CENTRAL_RECORD, true);
  v.setUint16(4, MADE_BY, true);
  v.setUint16(6, VERSION, true);
  v.setUint16(8, FLAGS, true);
  v.setUint16(10, 0, true);
  v.setUint16(12, entry.time, true);
  v.setUint16(14, entry.date, true);
  v.setUint32(16, entry.crc, true);
  v.setUint32(20, wideSize ? MAX32 : entry.size, true);
  v.setUint32(24, wideSize ? MAX32 : entry.size, true);
  v.setUint16(28, entry.name.length, true);
  v.setUint16(30, extraLength, true);
  // comment length, disk number, internal attributes: 0
  v.setUint32(38, FILE_MODE * 0x10000, true);
  v.setUint32(42, wideOffset ? MAX32 : entry.offset, true);
  out.set(entry.name, 46);
  if (extraLength > 0) {
    let at = 46 + entry.name.length;
    v.setUint16(at, 0x0001, true);
    v.setUint16(at + 2, extra, true);
    at += 4;
    if (wideSize) {
      v.setBigUint64(at, BigInt(entry.size), true);
      v.setBigUint64(at + 8, BigInt(entry.size), true);
      at += 16;
    }
    if (wideOffset) v.setBigUint64(at, BigInt(entry.offset), true);
  }
  return out;
}

/**
 * The end of the archive after a central directory of `count` records, `size` bytes, starting at `offset`: the Zip64
 * end record and its locator when anything passes the classic fields (or `zip64` says an entry needed Zip64), then the
 * classic end record with its fields saturated, where every reader starts.
 */
export function endRecords(count: number, size: number, offset: number, zip64: boolean): Uint8Array {
  const wide = zip64 || count >= MAX16 || size >= MAX32 || offset >= MAX32;
  const out = new Uint8Array((wide ? 56 + 20 : 0) + 22);
  const v = new DataView(out.buffer);
  let at = 0;
  if (wide) {
    v.setUint32(0, END64, true);
    v.setBigUint64(4, BigInt(56 - 12), true);
    v.setUint16(12, MADE_BY, true);
    v.setUint16(14, VERSION, true);
    // this disk, the directory's disk: 0
    v.setBigUint64(24, BigInt(count), true);
    v.setBigUint64(32, BigInt(count), true);
    v.setBigUint64(40, BigInt(size), true);
    v.setBigUint64(48, BigInt(offset), true);
    v.setUint32(56, END64_LOCATOR, true);
    v.setBigUint64(56 + 8, BigInt(offset + size), true);
    v.setUint32(56 + 16, 1, true);
    at = 56 + 20;
  }
  v.setUint32(at, END, true);
  v.setUint16(at + 8, Math.min(count, MAX16), true);
  v.setUint16(at + 10, Math.min(count, MAX16), true);
  v.setUint32(at + 12, Math.min(size, MAX32), true);
  v.setUint32(at + 16, Math.min(offset, MAX32), true);
  return out;
}
