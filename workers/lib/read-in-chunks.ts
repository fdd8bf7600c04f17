/**
 * A byte stream read in large chunks. An R2 body arrives in 4 KiB pieces, and whatever a Worker's JavaScript does per
 * piece (a read, a CRC call, an enqueue) then costs more than the bytes themselves: a ZIP passing R2 bodies through
 * piece by piece ran at a fraction of a plain download, which the runtime pipes without JavaScript. The runtime's
 * `readAtLeast` fills a whole chunk natively, so JavaScript sees one chunk per `size` bytes. Elsewhere (Node, or a
 * stream that is not a byte stream) the pieces are read as they come and copied together up to `size`. Not the
 * standard `read(view, { min })`: by the Streams spec it errors the stream when the source has already closed with
 * fewer bytes queued than `min`, i.e. at the end of any body read a little late.
 */

/**
 * Chunks of at least `size` bytes (the last may be shorter) of `body`, in order; the body is cancelled if the caller
 * stops early. With `reuse`, the runtime fills one buffer over and over: a chunk is valid only until the next one is
 * asked for (the caller copies it out, or waits until it is written, before going on).
 */
export async function* readInChunks(
  body: ReadableStream<Uint8Array>,
  size: number,
  { reuse = false }: { reuse?: boolean } = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    byob = null;
  }
  if (byob && canReadAtLeast(byob)) {
    yield* atLeastChunks(byob, size, reuse);
    return;
  }
  byob?.releaseLock();
  yield* gathered(body.getReader(), size);
}

/** workerd's extension of the BYOB reader: resolves once `min` bytes are in the view, or fewer at the end. */
interface AtLeastReader {
  readAtLeast<T extends ArrayBufferView>(min: number, view: T): Promise<ReadableStreamReadResult<T>>;
}

function canReadAtLeast(reader: ReadableStreamBYOBReader): reader is ReadableStreamBYOBReader & AtLeastReader {
  return "readAtLeast" in reader && typeof reader.readAtLeast === "function";
}

async function* atLeastChunks(
  reader: ReadableStreamBYOBReader & AtLeastReader,
  size: number,
  reuse: boolean,
): AsyncGenerator<Uint8Array, void, undefined> {
  let finished = false;
  let buffer = new Uint8Array(size);
  try {
    for (;;) {
      // Without `reuse`, a fresh buffer per chunk: the one handed on may still be queued downstream.
      const { done, value } = await reader.readAtLeast(size, reuse ? buffer : new Uint8Array(size));
      // The read took the buffer over (transferred it); its memory comes back in `value`.
      if (reuse && value) buffer = new Uint8Array(value.buffer);
      if (value && value.byteLength > 0) yield value;
      if (done) break;
    }
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

async function* gathered(reader: ReadableStreamDefaultReader<Uint8Array>, size: number): AsyncGenerator<Uint8Array, void, undefined> {
  let finished = false;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const take = () => {
    const out = pending.length === 1 ? pending[0] : new Uint8Array(pendingBytes);
    if (pending.length > 1) {
      let at = 0;
      for (const piece of pending) {
        out.set(piece, at);
        at += piece.byteLength;
      }
    }
    pending = [];
    pendingBytes = 0;
    return out;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.byteLength === 0) continue;
      pending.push(value);
      pendingBytes += value.byteLength;
      if (pendingBytes >= size) yield take();
    }
    finished = true;
    if (pendingBytes > 0) yield take();
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
