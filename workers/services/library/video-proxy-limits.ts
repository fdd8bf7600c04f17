/**
 * The limits of a browser-made video proxy (decision 029, «The proxy maker»), shared by the viewer that makes it and
 * the route that stores it, so both refuse the same files. Pure: no bindings, importable by the browser bundle.
 */

/** Containers a proxy may have: what every browser's `<video>` plays. */
export const VIDEO_PROXY_MIME_TYPES = ["video/webm", "video/mp4"] as const;
export type VideoProxyMime = (typeof VIDEO_PROXY_MIME_TYPES)[number];

/** Largest proxy stored (bytes): ten minutes at ~0.8 Mbit/s with room to spare. */
export const VIDEO_PROXY_MAX_BYTES = 96 * 1024 * 1024;

/** Widest proxy made (pixels; the height follows the aspect). */
export const VIDEO_PROXY_MAX_WIDTH = 640;

/** Longest source the browser converts (seconds): past it the viewer says why instead of working for minutes. */
export const VIDEO_PROXY_MAX_SOURCE_SECONDS = 10 * 60;

/** How long the browser may convert before giving up (milliseconds). */
export const VIDEO_PROXY_MAX_MILLIS = 5 * 60 * 1000;

/** `video/WebM; codecs=vp9` → `video/webm`; null when not a proxy type. */
export function videoProxyMime(contentType: string | undefined | null): VideoProxyMime | null {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return (VIDEO_PROXY_MIME_TYPES as readonly string[]).includes(type) ? (type as VideoProxyMime) : null;
}

/**
 * Whether the first bytes are a file of that container: WebM is EBML (1A 45 DF A3) declaring the doc type `webm`
 * in its header; MP4 has an `ftyp` box first. Only the header is judged: a browser will refuse the rest itself.
 * @example sniffVideoProxy(bytes, "video/webm") // true for a MediaRecorder or mediabunny WebM
 */
export function sniffVideoProxy(bytes: Uint8Array, mime: VideoProxyMime): boolean {
  if (mime === "video/mp4") {
    return bytes.length >= 12 && String.fromCharCode(...bytes.subarray(4, 8)) === "ftyp";
  }
  if (bytes.length < 16 || bytes[0] !== 0x1a || bytes[1] !== 0x45 || bytes[2] !== 0xdf || bytes[3] !== 0xa3) return false;
  // The EBML header is small: its DocType element (42 82) holds "webm" within the first few dozen bytes.
  const head = String.fromCharCode(...bytes.subarray(0, Math.min(bytes.length, 64)));
  return head.includes("\u0042\u0082") && head.includes("webm");
}

/** The proxy's file extension by type. */
export const videoProxyExtension = (mime: VideoProxyMime): string => (mime === "video/mp4" ? "mp4" : "webm");
