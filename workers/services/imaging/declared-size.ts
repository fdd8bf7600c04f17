import { imageInfo } from "../media/decode";
import { jpegFrameSize } from "./jpeg-scaled";
import type { ImageKind } from "./sniff";

const u32 = (b: Uint8Array, at: number) => ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;

/**
 * The largest `ispe` (image spatial extents) box in an ISO-BMFF head: an AVIF's or HEIC's primary image (a grid's
 * own extents are its full size, larger than its tiles'). The `meta` box holding them comes first in such files.
 */
function largestIspe(head: Uint8Array): { width: number; height: number } | null {
  let best: { width: number; height: number } | null = null;
  for (let i = 4; i + 16 <= head.length; i++) {
    if (head[i] !== 0x69 || head[i + 1] !== 0x73 || head[i + 2] !== 0x70 || head[i + 3] !== 0x65) continue;
    if (u32(head, i - 4) < 20) continue;
    const width = u32(head, i + 8);
    const height = u32(head, i + 12);
    if (width > 0 && height > 0 && (!best || width * height > best.width * best.height)) best = { width, height };
  }
  return best;
}

/**
 * The width and height a still image's first bytes declare (JPEG SOF, PNG IHDR, WebP VP8/VP8L/VP8X, AVIF/HEIC
 * `ispe`), read before anything is decoded or handed on; null when the head does not say.
 */
export function declaredSize(kind: ImageKind, head: Uint8Array): { width: number; height: number } | null {
  if (kind === "jpeg") {
    const frame = jpegFrameSize(head);
    return frame && frame.width > 0 && frame.height > 0 ? { width: frame.width, height: frame.height } : null;
  }
  if (kind === "png" || kind === "webp") {
    const info = imageInfo(head);
    return info ? { width: info.width, height: info.height } : null;
  }
  if (kind === "avif" || kind === "heif") return largestIspe(head);
  return null;
}
