/**
 * Counts the scans (SOS segments) of a JPEG held in memory, walking its markers and jumping over each scan's
 * entropy-coded data (to the next marker that is neither a stuffed 0xFF00 nor a restart), and stops as soon as the
 * count passes `stopAfter`. Malformed structure ends the walk: the decoder that follows refuses it with its reason.
 */
export function jpegScanCount(bytes: Uint8Array, stopAfter: number): number {
  let scans = 0;
  let i = 2;
  while (i + 1 < bytes.length) {
    if (bytes[i] !== 0xff) return scans;
    const marker = bytes[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd9) return scans;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (i + 3 >= bytes.length) return scans;
    i += 2 + ((bytes[i + 2] << 8) | bytes[i + 3]);
    if (marker !== 0xda) continue;
    if (++scans > stopAfter) return scans;
    i = nextMarker(bytes, i);
  }
  return scans;
}

/** The offset of the first marker at or after `from` that ends entropy-coded data (not 0xFF00, not RST0–7). */
function nextMarker(bytes: Uint8Array, from: number): number {
  for (let at = bytes.indexOf(0xff, from); at >= 0; at = bytes.indexOf(0xff, at + 1)) {
    const next = bytes[at + 1];
    if (next !== 0x00 && next !== 0xff && !(next >= 0xd0 && next <= 0xd7)) return at;
  }
  return bytes.length;
}
