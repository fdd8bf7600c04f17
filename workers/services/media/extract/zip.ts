import { Inflate } from "fflate";
import { ru } from "../../../../shared/i18n/ru";
import {
  DEFLATE_MAX_RATIO,
  INFLATE_CHUNK_BYTES,
  MIN_INFLATE_CHUNK_BYTES,
  MAX_ARCHIVE_BYTES,
  MAX_COMPRESSION_RATIO,
  MAX_ENTRY_BYTES,
  MAX_TOTAL_INFLATED_BYTES,
  MAX_ZIP_ENTRIES,
  MAX_ZIP_NESTING,
  RATIO_GRACE_BYTES,
} from "./limits";
import { mib, ParseLimitError } from "./parse-limit";

/**
 * A ZIP archive held in memory (office documents: DOCX, XLSX, PPTX, ODF), read with every limit of limits.ts.
 * Before anything is inflated, the central directory is checked: entry count, ZIP64 markers, declared sizes and
 * ratios, and that no two entries share or overlap their bytes (the «300 slides on one 64 MiB stream» bomb). While
 * inflating (fflate's streaming Inflate, fed INFLATE_CHUNK_BYTES at a time), the bytes of the entry, of the whole
 * file and the reached ratio are counted, and inflating stops at the first limit crossed.
 */

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  /** where the entry's compressed bytes start (after its local header) */
  dataOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const ZIP64 = 0xffff_ffff;

const corrupt = (why: string) => new ParseLimitError(ru.parse.corruptArchive(why));

export class BoundedZip {
  readonly entries: ZipEntry[];
  private readonly byName: Map<string, ZipEntry>;
  /** bytes inflated from this archive so far (MAX_TOTAL_INFLATED_BYTES) */
  private inflated = 0;

  private constructor(
    private readonly bytes: Uint8Array,
    entries: ZipEntry[],
  ) {
    this.entries = entries;
    this.byName = new Map(entries.map((e) => [e.name, e]));
  }

  /**
   * The archive's directory, checked. Null when the bytes are not a ZIP at all (no end record); a ParseLimitError
   * when it is one that crosses a limit or is broken.
   */
  static open(bytes: Uint8Array, depth = 0): BoundedZip | null {
    if (depth >= MAX_ZIP_NESTING) throw new ParseLimitError(ru.parse.nested);
    if (bytes.length > MAX_ARCHIVE_BYTES) throw new ParseLimitError(ru.parse.archiveTooLarge(mib(MAX_ARCHIVE_BYTES)), 413);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let end = -1;
    for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
      if (view.getUint32(i, true) === EOCD) {
        end = i;
        break;
      }
    }
    if (end < 0) return null;
    const count = view.getUint16(end + 10, true);
    const dirSize = view.getUint32(end + 12, true);
    const dirOffset = view.getUint32(end + 16, true);
    if (count > MAX_ZIP_ENTRIES) throw new ParseLimitError(ru.parse.tooManyEntries(count, MAX_ZIP_ENTRIES), 413);
    if (dirOffset === ZIP64 || dirSize === ZIP64) throw new ParseLimitError(ru.parse.zip64);
    if (dirOffset + dirSize > end) throw corrupt(ru.parse.directoryOutside);
    const names = new TextDecoder();
    const entries: ZipEntry[] = [];
    const seen = new Set<string>();
    let at = dirOffset;
    for (let n = 0; n < count; n++) {
      if (at + 46 > end || view.getUint32(at, true) !== CENTRAL) throw corrupt(ru.parse.directoryBroken);
      const method = view.getUint16(at + 10, true);
      const compressedSize = view.getUint32(at + 20, true);
      const size = view.getUint32(at + 24, true);
      const nameLength = view.getUint16(at + 28, true);
      const extra = view.getUint16(at + 30, true);
      const comment = view.getUint16(at + 32, true);
      const localOffset = view.getUint32(at + 42, true);
      if (compressedSize === ZIP64 || size === ZIP64 || localOffset === ZIP64) throw new ParseLimitError(ru.parse.zip64);
      const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
      at += 46 + nameLength + extra + comment;
      if (seen.has(name)) throw new ParseLimitError(ru.parse.overlap);
      seen.add(name);
      if (localOffset + 30 > dirOffset || view.getUint32(localOffset, true) !== LOCAL) throw corrupt(ru.parse.noLocalHeader(name));
      const dataOffset = localOffset + 30 + view.getUint16(localOffset + 26, true) + view.getUint16(localOffset + 28, true);
      if (dataOffset + compressedSize > dirOffset) throw corrupt(ru.parse.entryOutside(name));
      entries.push({ name, method, compressedSize, size, localOffset, dataOffset });
    }
    // No two entries may share bytes: each local header + data must end before the next one starts.
    const spans = entries.map((e) => [e.localOffset, e.dataOffset + e.compressedSize] as const).sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) if (spans[i][0] < spans[i - 1][1]) throw new ParseLimitError(ru.parse.overlap, 413);
    // Declared sizes: an entry claiming more than MAX_COMPRESSION_RATIO times its compressed bytes is a bomb.
    for (const e of entries) {
      if (e.size > RATIO_GRACE_BYTES && e.size > e.compressedSize * MAX_COMPRESSION_RATIO) {
        throw new ParseLimitError(ru.parse.ratio(e.name, MAX_COMPRESSION_RATIO), 413);
      }
    }
    return new BoundedZip(bytes, entries);
  }

  entry(name: string): ZipEntry | undefined {
    return this.byName.get(name);
  }

  /**
   * The inflated bytes of one entry (stored or deflated); null for another compression method. Throws a
   * ParseLimitError at the first limit crossed, and when the entry is itself a ZIP (nesting is never walked).
   */
  read(entry: ZipEntry): Uint8Array | null {
    const data = this.bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
    if (entry.method === 0) {
      this.count(entry, data.length, data.length);
      return this.notNested(data);
    }
    if (entry.method !== 8) return null;
    const chunks: Uint8Array[] = [];
    let total = 0;
    let fed = 0;
    const inflater = new Inflate((chunk) => {
      total += chunk.length;
      this.count(entry, total, fed, chunk.length);
      chunks.push(chunk);
    });
    try {
      for (let at = 0; at < data.length; ) {
        // The piece is as large as the room left can take at deflate's worst ratio (within the two bounds).
        const room = Math.min(entry.size, MAX_ENTRY_BYTES, MAX_TOTAL_INFLATED_BYTES - this.inflated) - total;
        const step = Math.max(MIN_INFLATE_CHUNK_BYTES, Math.min(INFLATE_CHUNK_BYTES, Math.ceil(room / DEFLATE_MAX_RATIO)));
        const piece = data.subarray(at, Math.min(data.length, at + step));
        at += piece.length;
        fed += piece.length;
        inflater.push(piece, at >= data.length);
      }
      if (data.length === 0) inflater.push(new Uint8Array(0), true);
    } catch (error) {
      if (error instanceof ParseLimitError) throw error;
      throw corrupt(ru.parse.inflateFailed(entry.name));
    }
    const out = new Uint8Array(total);
    let offset = 0;
    for (const c of chunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return this.notNested(out);
  }

  /** Counts inflated bytes against the limits of the entry and of the archive. */
  private count(entry: ZipEntry, entryBytes: number, compressedFed: number, added = entryBytes) {
    this.inflated += added;
    // An entry that inflates past the size its directory declared is lying about itself.
    if (entryBytes > entry.size && entry.method === 8) throw corrupt(ru.parse.sizeLie(entry.name, entry.size));
    if (entryBytes > MAX_ENTRY_BYTES) throw new ParseLimitError(ru.parse.entryTooLarge(entry.name, mib(MAX_ENTRY_BYTES)), 413);
    if (this.inflated > MAX_TOTAL_INFLATED_BYTES) throw new ParseLimitError(ru.parse.totalTooLarge(mib(MAX_TOTAL_INFLATED_BYTES)), 413);
    if (entryBytes > RATIO_GRACE_BYTES && entryBytes > Math.max(1, compressedFed) * MAX_COMPRESSION_RATIO) {
      throw new ParseLimitError(ru.parse.ratio(entry.name, MAX_COMPRESSION_RATIO), 413);
    }
  }

  private notNested(data: Uint8Array): Uint8Array {
    if (data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && data[2] === 0x03 && data[3] === 0x04) {
      throw new ParseLimitError(ru.parse.nested);
    }
    return data;
  }
}
