/**
 * A bounded, per-isolate memory of the shared part of JSON answers, kept as UTF-8 bytes. A cache of this kind is
 * only as safe as its keys: the caller names an entry by everything its bytes depend on (revisions read from D1 that
 * move in the same batch as every write that changes them) and checks the caller's rights before asking.
 *
 * An entry is the middle of an answer; each request wraps it in its own head and tail (the per-caller fields), so
 * callers whose answers differ only there share one entry. The gzipped form of each distinct wrapping is made once
 * and kept with the entry. Least recently used entries go first once either bound is passed.
 */

/** One answer, ready to send. */
export interface JsonBody {
  /** the JSON as UTF-8 */
  bytes(): Uint8Array<ArrayBuffer>;
  /** the same bytes gzipped (made from `bytes` only when this wrapping has not been gzipped before) */
  gzipped(): Promise<Uint8Array<ArrayBuffer>>;
}

/** A kept middle with what the caller stored beside it. */
export interface KeptJson<M> {
  readonly meta: M;
  /** The whole answer: `head`, the kept middle, `tail`. */
  body(head: string, tail: string): JsonBody;
}

interface Entry<M> extends KeptJson<M> {
  size: number;
  kept: boolean;
}

const encoder = new TextEncoder();

async function gzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function joined(head: string, middle: Uint8Array<ArrayBuffer>, tail: string): Uint8Array<ArrayBuffer> {
  const h = encoder.encode(head);
  const t = encoder.encode(tail);
  const out = new Uint8Array(h.byteLength + middle.byteLength + t.byteLength);
  out.set(h, 0);
  out.set(middle, h.byteLength);
  out.set(t, h.byteLength + middle.byteLength);
  return out;
}

export class JsonBodyCache<M> {
  private readonly entries = new Map<string, Entry<M>>();
  private total = 0;

  /** @param maxGzipped wrappings whose gzipped form one entry keeps (further ones are gzipped per request) */
  constructor(private readonly maxEntries: number, private readonly maxBytes: number, private readonly maxGzipped = 8) {}

  /** The entry kept under `key`, if any; it becomes the most recent. */
  get(key: string): KeptJson<M> | undefined {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  /** Whether any kept key starts with `prefix` (e.g. whether this isolate answered this question lately). */
  holdsAny(prefix: string): boolean {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) return true;
    return false;
  }

  /**
   * Keeps `middleJson` under `key` (a middle larger than a quarter of the bound is used once and not kept: it would
   * push out everything else). An existing entry under the key is kept and answered instead: equal keys, equal bytes.
   */
  remember(key: string, middleJson: string, meta: M): KeptJson<M> {
    const existing = this.entries.get(key);
    if (existing) return existing;
    const entry = this.entryOf(encoder.encode(middleJson), meta);
    if (entry.size > this.maxBytes / 4) return entry;
    this.entries.set(key, entry);
    entry.kept = true;
    this.total += entry.size;
    this.evict();
    return entry;
  }

  /** Forgets everything. */
  clear(): void {
    for (const entry of this.entries.values()) entry.kept = false;
    this.entries.clear();
    this.total = 0;
  }

  private entryOf(middle: Uint8Array<ArrayBuffer>, meta: M): Entry<M> {
    const compressed = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
    const entry: Entry<M> = {
      meta,
      size: middle.byteLength,
      kept: false,
      body: (head, tail) => {
        const wrapping = `${head}\u0000${tail}`;
        const bytes = () => joined(head, middle, tail);
        return {
          bytes,
          gzipped: () => {
            const known = compressed.get(wrapping);
            if (known) return known;
            const made = gzip(bytes());
            if (compressed.size >= this.maxGzipped) return made;
            compressed.set(wrapping, made);
            made.then(
              (gz) => {
                // Only an entry still kept grows the total (one evicted meanwhile, or never kept, is not counted).
                if (!entry.kept) return;
                entry.size += gz.byteLength;
                this.total += gz.byteLength;
                this.evict();
              },
              // A failed compression is forgotten, so the next caller tries again (this one gets the error).
              () => compressed.delete(wrapping),
            );
            return made;
          },
        };
      },
    };
    return entry;
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.total <= this.maxBytes) break;
      this.entries.delete(key);
      entry.kept = false;
      this.total -= entry.size;
    }
  }
}

/** An answer nobody keeps: JSON text, gzipped when asked. */
export function jsonTextBody(text: string): JsonBody {
  const bytes = () => encoder.encode(text) as Uint8Array<ArrayBuffer>;
  return { bytes, gzipped: () => gzip(bytes()) };
}

/**
 * The response for an answer: gzipped bytes as they are (`encodeBody: "manual"`, so the runtime compresses nothing
 * again) when the client accepts gzip, the plain bytes otherwise; `Vary` tells caches the two apart.
 */
export async function jsonBodyResponse(body: JsonBody, gzipAccepted: boolean, status = 200): Promise<Response> {
  const headers = { "content-type": "application/json", vary: "accept-encoding" };
  if (!gzipAccepted) return new Response(body.bytes(), { status, headers });
  return new Response(await body.gzipped(), { status, headers: { ...headers, "content-encoding": "gzip" }, encodeBody: "manual" });
}
