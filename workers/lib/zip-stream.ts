/**
 * The one ZIP writer of the product (folder and selection downloads, link folders, export tasks): stored entries
 * (media is compressed already) with Zip64, so an archive may exceed 4 GiB and 65,535 entries (records:
 * workers/lib/zip-records.ts). Memory stays flat whatever the archive's size: entries are pulled one at a time, the
 * next small file's object is opened while the current one streams (at most `OPEN_AHEAD` ahead, never buffered), and bytes
 * pass through in chunks of `CHUNK_BYTES`. The CRC-32 is the runtime's native one (`node:zlib`): a JavaScript CRC
 * (client-zip's, which this writer replaced) held the archive to a third of a plain download.
 */
import { crc32 } from "node:zlib";
import { openAhead } from "./open-ahead";
import { readInChunks } from "./read-in-chunks";
import { centralRecord, dataDescriptor, dosDateTime, endRecords, isZip64Size, localHeader, type WrittenEntry } from "./zip-records";

/** One file of an archive; `open` is called shortly before the writer reaches it (null: the bytes are gone, leave it out). */
export interface ZipSource {
  /** path inside the archive, "/"-separated, already unique */
  path: string;
  lastModified: number;
  /** the bytes it declares, when known: a large file is not opened ahead (see `OPEN_AHEAD_MAX_BYTES`) */
  size?: number;
  open(): Promise<ReadableStream<Uint8Array> | null>;
}

/** A text entry written after the files (e.g. the list of what was left out); `text()` is read at the very end. */
export interface ZipTrailer {
  path: string;
  text(): string | null;
}

/** Bytes JavaScript handles at a time: large enough that per-chunk work is noise, small enough to hold a few. */
export const CHUNK_BYTES = 512 * 1024;
/** Objects opened ahead of the one streaming: one hides a GET's round trip; more would only hold more bodies. */
export const OPEN_AHEAD = 1;
/**
 * Files from this size on are opened at their turn, not ahead: streaming them takes far longer than a GET's round
 * trip (8 MiB at 100 MB/s: 80 ms), so there is little to hide, and an opened body is memory somewhere (the local R2
 * simulator holds a whole object per open read: two 410 MiB objects at once cost its runtime another 520 MiB).
 */
export const OPEN_AHEAD_MAX_BYTES = 8 * 1024 * 1024;
/** Central directory records gathered into one chunk up to this size (an archive of small files has many). */
const DIRECTORY_CHUNK_BYTES = 64 * 1024;

const utf8 = new TextEncoder();

/**
 * The archive of `sources` (an async iterable, read lazily) as a byte stream. A source whose `open` answers null is
 * skipped and reported through `onMissing`, so the trailer can list it; `onEntry` is called as the writer starts each
 * file it writes.
 */
export function zipStream(
  sources: AsyncIterable<ZipSource> | Iterable<ZipSource>,
  options: { trailer?: ZipTrailer; onMissing?: (source: ZipSource) => void; onEntry?: (source: ZipSource) => void } = {},
): ReadableStream<Uint8Array> {
  const pipe = bytePipe();
  void pump(archiveChunks(sources, options, pipe.reuse), pipe.writable.getWriter());
  return pipe.readable;
}

/**
 * Where the archive's bytes go. The runtime's IdentityTransformStream (no queue) hands a write to its reader (the HTTP
 * answer, an export's upload) and resolves it only once the bytes are copied out, so the next chunk of a file is read
 * into the same buffer and no spent chunks pile up for the garbage collector: the runtime's memory stays flat. Elsewhere
 * (Node, where the unit tests run) a plain TransformStream, which keeps the chunk itself, so chunks are never reused.
 */
function bytePipe(): { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array>; reuse: boolean } {
  if (typeof IdentityTransformStream === "function") {
    const pipe = new IdentityTransformStream();
    return { readable: pipe.readable, writable: pipe.writable, reuse: true };
  }
  const pipe = new TransformStream<Uint8Array, Uint8Array>();
  return { readable: pipe.readable, writable: pipe.writable, reuse: false };
}

/** Writes the archive into the pipe, each chunk taken in before the next one is read (which may reuse its buffer). */
async function pump(archive: AsyncGenerator<Uint8Array, void, undefined>, writer: WritableStreamDefaultWriter<Uint8Array>): Promise<void> {
  try {
    for (;;) {
      const next = await archive.next();
      if (next.done) break;
      await writer.write(next.value);
    }
    await writer.close();
  } catch (error) {
    // The reader went away (a cancelled download) or a source failed: close the file being read and the ones opened
    // ahead (their R2 bodies), stop the sources, and end the answer with the error.
    await archive.return().catch(() => undefined);
    await writer.abort(error).catch(() => undefined);
  }
}

async function* archiveChunks(
  sources: AsyncIterable<ZipSource> | Iterable<ZipSource>,
  options: { trailer?: ZipTrailer; onMissing?: (source: ZipSource) => void; onEntry?: (source: ZipSource) => void },
  reuse: boolean,
): AsyncGenerator<Uint8Array, void, undefined> {
  const written: WrittenEntry[] = [];
  let offset = 0;
  let zip64 = false;

  async function* entry(
    path: string,
    lastModified: number,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  ): AsyncGenerator<Uint8Array, void, undefined> {
    const name = utf8.encode(path);
    const { time, date } = dosDateTime(lastModified);
    const start = offset;
    const header = localHeader(name, time, date);
    yield header;
    offset += header.length;
    let crc = 0;
    let size = 0;
    for await (const chunk of chunks) {
      crc = crc32(chunk, crc);
      size += chunk.byteLength;
      yield chunk;
    }
    offset += size;
    const descriptor = dataDescriptor(crc, size);
    yield descriptor;
    offset += descriptor.length;
    zip64 ||= isZip64Size(size) || start >= 0xffff_ffff;
    written.push({ name, time, date, crc, size, offset: start });
  }

  const discard = (body: ReadableStream<Uint8Array> | null) => body?.cancel().catch(() => undefined);
  const early = (s: ZipSource) => s.size === undefined || s.size < OPEN_AHEAD_MAX_BYTES;
  for await (const { item: source, body } of openAhead(sources, (s) => s.open(), OPEN_AHEAD, discard, early)) {
    if (!body) {
      options.onMissing?.(source);
      continue;
    }
    options.onEntry?.(source);
    yield* entry(source.path, source.lastModified, readInChunks(body, CHUNK_BYTES, { reuse }));
  }
  const text = options.trailer?.text();
  if (options.trailer && text) yield* entry(options.trailer.path, Date.now(), [utf8.encode(text)]);

  const directoryOffset = offset;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  for (const file of written) {
    const record = centralRecord(file);
    pending.push(record);
    pendingBytes += record.length;
    offset += record.length;
    if (pendingBytes >= DIRECTORY_CHUNK_BYTES) {
      yield joined(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
    }
  }
  pending.push(endRecords(written.length, offset - directoryOffset, directoryOffset, zip64));
  yield joined(pending, pendingBytes + pending[pending.length - 1].length);
}

function joined(pieces: Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
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
