/** A file read in pieces (R2 range reads in the Worker, a buffer in tests): the streaming decoders never hold it whole. */
export interface ByteSource {
  /** the file's size in bytes */
  size: number;
  /** `length` bytes from `offset` (fewer at the end of the file) */
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** A ByteSource over bytes already in memory. */
export function bufferSource(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, read: async (offset, length) => bytes.subarray(offset, Math.min(bytes.length, offset + length)) };
}

/**
 * A forward window over a ByteSource: `buf[pos]` is the byte at file offset `base + pos`. `ensure(n)` makes at least
 * `n` bytes from `pos` available (fewer only at the end of the file), dropping what lies before `pos` so memory stays
 * near one read chunk.
 */
export class Window {
  buf: Uint8Array = new Uint8Array(0);
  pos = 0;
  base = 0;

  constructor(private readonly source: ByteSource, private readonly chunk: number, start = 0) {
    this.base = start;
  }

  /** Whether the window reaches the end of the file. */
  get atEnd(): boolean {
    return this.base + this.buf.length >= this.source.size;
  }

  /** The file offset of `pos`. */
  get offset(): number {
    return this.base + this.pos;
  }

  async ensure(n: number): Promise<void> {
    while (this.buf.length - this.pos < n && !this.atEnd) {
      const from = this.base + this.buf.length;
      const piece = await this.source.read(from, Math.max(this.chunk, n));
      if (piece.length === 0) break;
      const keep = this.buf.subarray(this.pos);
      const next = new Uint8Array(keep.length + piece.length);
      next.set(keep);
      next.set(piece, keep.length);
      this.base += this.pos;
      this.buf = next;
      this.pos = 0;
    }
  }

  /** Moves to a file offset at or after `offset()` (skipping bytes not yet read without reading them). */
  async seek(offset: number): Promise<void> {
    if (offset <= this.base + this.buf.length) {
      this.pos = offset - this.base;
      return;
    }
    this.base = offset;
    this.buf = new Uint8Array(0);
    this.pos = 0;
  }
}
