/**
 * The one ZIP writer of the product (folder and selection downloads, link folders, export tasks): client-zip, a
 * maintained streaming writer with Zip64, so an archive may exceed 4 GiB and 65,535 entries. Entries are stored
 * (media is compressed already) and pulled one at a time: an entry's source is opened only when the archive reaches
 * it, and its bytes pass through in chunks, so memory stays flat whatever the archive's size.
 */
import { makeZip } from "client-zip";

/** One file of an archive; `open` is called when the writer reaches it (null: the bytes are gone, leave it out). */
export interface ZipSource {
  /** path inside the archive, "/"-separated, already unique */
  path: string;
  lastModified: number;
  open(): Promise<ReadableStream<Uint8Array> | null>;
}

/** A text entry written after the files (e.g. the list of what was left out); `text()` is read at the very end. */
export interface ZipTrailer {
  path: string;
  text(): string | null;
}

/**
 * The archive of `sources` (an async iterable, read lazily) as a byte stream. A source whose `open` answers null is
 * skipped and reported through `onMissing`, so the trailer can list it.
 */
export function zipStream(
  sources: AsyncIterable<ZipSource> | Iterable<ZipSource>,
  options: { trailer?: ZipTrailer; onMissing?: (source: ZipSource) => void } = {},
): ReadableStream<Uint8Array> {
  async function* entries() {
    for await (const source of sources) {
      const body = await source.open();
      if (!body) {
        options.onMissing?.(source);
        continue;
      }
      yield { name: source.path, lastModified: new Date(source.lastModified), input: body };
    }
    const text = options.trailer?.text();
    if (options.trailer && text) yield { name: options.trailer.path, lastModified: new Date(), input: text };
  }
  let count = 0;
  async function* counted() {
    for await (const entry of entries()) {
      count++;
      yield entry;
    }
  }
  return makeZip(counted(), { buffersAreUTF8: true }).pipeThrough(zip64EntryCount(() => count));
}

const END = 22;
const END64 = 56;
const LOCATOR = 20;

/**
 * client-zip writes the Zip64 end records only when sizes or offsets pass 4 GiB; with more than 65,535 small entries
 * it saturates the classic end record's count at 0xFFFF and leaves the real one out. This holds back the archive's
 * last bytes and, in that case, puts the Zip64 end record and its locator before the classic one (APPNOTE 4.3.14),
 * so every reader finds the real count.
 */
function zip64EntryCount(entries: () => number): TransformStream<Uint8Array, Uint8Array> {
  const keep = END64 + LOCATOR + END;
  let held = new Uint8Array(0);
  let emitted = 0;
  return new TransformStream({
    transform(chunk, controller) {
      const joined = new Uint8Array(held.length + chunk.length);
      joined.set(held);
      joined.set(chunk, held.length);
      const cut = Math.max(0, joined.length - keep);
      if (cut > 0) {
        controller.enqueue(joined.subarray(0, cut));
        emitted += cut;
      }
      held = joined.slice(cut);
    },
    flush(controller) {
      const count = entries();
      const v = new DataView(held.buffer, held.byteOffset, held.byteLength);
      const end = held.length - END;
      const has64 = held.length >= keep && v.getUint32(end - LOCATOR, true) === 0x07064b50;
      if (count < 0xffff || has64 || end < 0 || v.getUint32(end, true) !== 0x06054b50) {
        controller.enqueue(held);
        return;
      }
      const directorySize = v.getUint32(end + 12, true);
      const directoryOffset = v.getUint32(end + 16, true);
      const record = new Uint8Array(END64 + LOCATOR);
      const r = new DataView(record.buffer);
      r.setUint32(0, 0x06064b50, true);
      r.setBigUint64(4, BigInt(END64 - 12), true);
      r.setUint16(12, 45, true);
      r.setUint16(14, 45, true);
      r.setBigUint64(24, BigInt(count), true);
      r.setBigUint64(32, BigInt(count), true);
      r.setBigUint64(40, BigInt(directorySize), true);
      r.setBigUint64(48, BigInt(directoryOffset), true);
      r.setUint32(END64, 0x07064b50, true);
      r.setBigUint64(END64 + 8, BigInt(emitted + end), true);
      r.setUint32(END64 + 16, 1, true);
      controller.enqueue(held.subarray(0, end));
      controller.enqueue(record);
      controller.enqueue(held.subarray(end));
    },
  });
}

/** A name safe as one path segment: no separators, no "." or ".." (which unzip tools resolve), never empty. */
export function safeSegment(name: string): string {
  const clean = name.replace(/[\\/\u0000-\u001f]/g, "_").trim();
  return clean === "" || clean === "." || clean === ".." ? "_" : clean;
}

/**
 * `dir/name` unique among the paths taken so far (case-insensitively, as Windows and macOS compare): "name", then
 * "name (2).ext", "name (3).ext" …
 */
export function uniqueEntryPath(dir: string, name: string, taken: Set<string>): string {
  const clean = safeSegment(name);
  const dot = clean.lastIndexOf(".");
  const [base, ext] = dot > 0 ? [clean.slice(0, dot), clean.slice(dot)] : [clean, ""];
  const prefix = dir ? `${dir}/` : "";
  let candidate = `${prefix}${clean}`;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${prefix}${base} (${n})${ext}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}
