/**
 * Image types every browser we support draws in `<img>`. Others — TIFF, camera RAW, HEIC/HEIF (only Safari), PSD,
 * JPEG 2000 / XL — are shown from their largest preview, which the server made from their bytes.
 */
const DRAWN_NATIVELY = new Set([
  "image/jpeg",
  "image/pjpeg",
  "image/png",
  "image/apng",
  "image/gif",
  "image/webp",
  "image/avif",
  "image/svg+xml",
  "image/bmp",
  "image/x-icon",
  "image/vnd.microsoft.icon",
]);

export function drawsNatively(mime: string): boolean {
  return DRAWN_NATIVELY.has(mime.split(";")[0].trim().toLowerCase());
}
