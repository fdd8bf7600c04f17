/**
 * The serialised subtrees this isolate answered lately, keyed by group and the versions of its rollup row (decision
 * records 017 and 033): `tree_version` grows in the same statement as any change of shape, name or trash state inside
 * the subtree, `files_version` as any change of a file a tree form can list. An entry can never be stale: a changed
 * tree has a new key, and old keys age out. Only unfiltered trees (administrators') are cached; bounded by entries
 * and bytes so memory stays small.
 *
 * An entry keeps the answer as UTF-8 bytes and, once a client accepting gzip asked for it, gzipped: a hit then costs
 * neither `JSON.stringify` nor encoding nor compression of a tree form that runs to megabytes.
 */

const MAX_ENTRIES = 32;
const MAX_BYTES = 24 * 1024 * 1024;

/** One remembered answer. */
export interface SubtreeBody {
  /** the JSON as UTF-8 */
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** the same bytes gzipped, made on first use and kept */
  gzipped(): Promise<Uint8Array<ArrayBuffer>>;
}

interface Entry extends SubtreeBody {
  size: number;
}

const entries = new Map<string, Entry>();
let total = 0;

async function gzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function entryOf(json: string): Entry {
  const bytes = new TextEncoder().encode(json);
  let compressed: Promise<Uint8Array<ArrayBuffer>> | undefined;
  const entry: Entry = {
    bytes,
    size: bytes.byteLength,
    gzipped() {
      if (!compressed) {
        compressed = gzip(bytes);
        // A failed compression is forgotten, so the next caller tries again (and this one gets the error).
        compressed.then(
          (gz) => {
            // An entry evicted (or never kept) meanwhile is no longer counted: only a kept one grows the total.
            if (![...entries.values()].includes(entry)) return;
            entry.size = bytes.byteLength + gz.byteLength;
            total += gz.byteLength;
            evict();
          },
          () => (compressed = undefined),
        );
      }
      return compressed;
    },
  };
  return entry;
}

function evict(): void {
  for (const [k, v] of entries) {
    if (entries.size <= MAX_ENTRIES && total <= MAX_BYTES) break;
    entries.delete(k);
    total -= v.size;
  }
}

/**
 * The answer remembered under `key`, if any (it becomes the most recent).
 * @example const body = cachedSubtree(`${groupId}:t${treeVersion}`)
 */
export function cachedSubtree(key: string): SubtreeBody | undefined {
  const hit = entries.get(key);
  if (hit !== undefined) {
    entries.delete(key);
    entries.set(key, hit);
  }
  return hit;
}

/**
 * Remembers `json` under `key`: the key of the versions the tree was read at, in the same read transaction, so an
 * entry holds exactly the state its key names. Too large an answer is not kept. Answers what to send either way.
 * @example const body = rememberSubtree(`${groupId}:t${treeVersion}`, json)
 */
export function rememberSubtree(key: string, json: string): SubtreeBody {
  const existing = entries.get(key);
  if (existing) return existing;
  const entry = entryOf(json);
  if (entry.size > MAX_BYTES) return entry;
  entries.set(key, entry);
  total += entry.size;
  evict();
  return entry;
}
