import { limits } from "../media/decode";
import { jpegFrameSize } from "./jpeg-scaled";

/** A JPEG found inside another file (a camera RAW's or a HEIC's preview). */
export interface EmbeddedJpeg {
  offset: number;
  width: number;
  height: number;
  /** bytes up to its end marker, when found in the scanned bytes; null: it runs past them */
  length: number | null;
}

/** Most embedded JPEG starts looked at: a file of nothing but FF D8 FF does not make a million header parses. */
const MAX_CANDIDATES = 64;

/**
 * JPEGs embedded in the scanned bytes of an ISO-BMFF file (CR3's THMB/PRVW and full-size preview, a HEIC's Exif
 * thumbnail): each start of image (FF D8 FF) whose header parses to a baseline or progressive frame. Bounded by
 * the bytes scanned (MAX_EMBEDDED_SCAN_BYTES) and MAX_CANDIDATES.
 */
export function findEmbeddedJpegs(bytes: Uint8Array, base = 0): EmbeddedJpeg[] {
  const out: EmbeddedJpeg[] = [];
  let looked = 0;
  // The first FF D9 at or after a position, remembered: candidates come in file order, so the search only moves
  // forward (64 candidates over 16 MiB of D9 bytes would otherwise walk them 64 times).
  let endFrom = -1;
  let endAt = -1;
  const endAfter = (from: number): number => {
    if (endFrom >= 0 && from >= endFrom && (endAt < 0 || endAt >= from)) return endAt;
    let e = bytes.indexOf(0xd9, Math.max(from, endAt + 1, 1));
    while (e >= 0 && bytes[e - 1] !== 0xff) e = bytes.indexOf(0xd9, e + 1);
    endFrom = from;
    endAt = e;
    return e;
  };
  for (let at = bytes.indexOf(0xff); at >= 0 && at + 3 < bytes.length && looked < MAX_CANDIDATES; at = bytes.indexOf(0xff, at + 1)) {
    if (bytes[at + 1] !== 0xd8 || bytes[at + 2] !== 0xff) continue;
    looked++;
    const frame = jpegFrameSize(bytes.subarray(at, Math.min(bytes.length, at + 256 * 1024)));
    if (!frame || (frame.sof !== 0xc0 && frame.sof !== 0xc1 && frame.sof !== 0xc2) || !frame.width || !frame.height) continue;
    if (frame.width * frame.height > limits.MAX_PREVIEW_SOURCE_PIXELS) continue;
    // Its end: the first FF D9 after the header (entropy-coded data never holds FF D9 unescaped).
    const end = endAfter(at + 4);
    const stop = end >= 0 ? end + 1 : -1;
    out.push({ offset: base + at, width: frame.width, height: frame.height, length: stop > 0 ? stop - at : null });
    if (stop > 0) at = stop - 1;
  }
  return out;
}

/** The largest of the found JPEGs (most pixels), or null. */
export function largestJpeg(found: readonly EmbeddedJpeg[]): EmbeddedJpeg | null {
  return found.reduce<EmbeddedJpeg | null>((best, j) => (!best || j.width * j.height > best.width * best.height ? j : best), null);
}
