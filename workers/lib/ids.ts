/** Id of the virtual root group ('Доступные Файлы'): 32 `f` characters. */
export const ROOT_GROUP_ID = "f".repeat(32);

/** Matches ids in the project's format: 32 lowercase hex characters. */
export const ID_PATTERN = /^[0-9a-f]{32}$/;

/**
 * A time-ordered 32-character lowercase hex id (UUIDv7 layout without dashes), so primary keys sort by creation.
 * @example newId() // "01936f0c8a4b7c3d9e2f0a1b2c3d4e5f"
 */
export function newId(now = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let ms = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return toHex(bytes);
}

export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}
