/** Id of the virtual root group ('Доступные Файлы'): 32 `f` characters. */
export const ROOT_GROUP_ID = "f".repeat(32);

/** Matches ids in the project's format: 32 lowercase hex characters. */
export const ID_PATTERN = /^[0-9a-f]{32}$/;

/**
 * The library shard the work under way runs over (decision 043), whose number the ids it mints carry: told by the
 * Worker (`mintingIn`, workers/lib/id-minting.ts, which keeps it per request); none in the browser.
 */
let mintingShard: () => number | undefined = () => undefined;

/** Where `newId` learns the shard the work under way runs over (the Worker's id-minting module, once). */
export function mintShardsFrom(source: () => number | undefined): void {
  mintingShard = source;
}

/**
 * A time-ordered 32-character lowercase hex id (UUIDv7 layout without dashes), so primary keys sort by creation —
 * inside work over a library's shard, one that carries the shard (`newShardedId`).
 * @example newId() // "01936f0c8a4b7c3d9e2f0a1b2c3d4e5f"
 */
export function newId(now = Date.now()): string {
  const shard = mintingShard();
  return shard === undefined ? toHex(uuid7(now)) : newShardedId(shard, now);
}

function uuid7(now: number): Uint8Array {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let ms = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return bytes;
}

/** The largest shard number an id can carry (24 bits, decision 043). */
export const MAX_SHARD = 0xffffff;

/**
 * An id minted into library shard `shard` (decision 043): UUIDv8 with UUIDv7's layout, so ids still sort by creation —
 * 48 bits of milliseconds, version digit `8`, the shard number in the next 24 bits (the 12 bits after the version and
 * the 12 after the variant bits), 50 random bits.
 * @example shardOfId(newShardedId(3)) // 3
 */
export function newShardedId(shard: number, now = Date.now()): string {
  if (!Number.isInteger(shard) || shard < 0 || shard > MAX_SHARD) throw new RangeError(`shard ${shard} is not a 24-bit number`);
  const bytes = uuid7(now);
  bytes[6] = 0x80 | (shard >>> 20);
  bytes[7] = (shard >>> 12) & 0xff;
  bytes[8] = 0x80 | ((shard >>> 6) & 0x3f);
  bytes[9] = ((shard & 0x3f) << 2) | (bytes[9] & 0x03);
  return toHex(bytes);
}

/** The shard an id was minted into, or null for an id minted before sharding (UUIDv7: found through the directory). */
export function shardOfId(id: string): number | null {
  if (!ID_PATTERN.test(id) || id[12] !== "8") return null;
  const b = hexToBytes(id);
  return ((b[6] & 0x0f) << 20) | (b[7] << 12) | ((b[8] & 0x3f) << 6) | (b[9] >>> 2);
}

function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}
