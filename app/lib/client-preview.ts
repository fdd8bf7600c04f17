import { apiRequest, type RequestOptions } from "./api-client";
import { videoPreviews } from "./browser-previews";
import { mediaKind } from "./media-kind";

/** Longest side of the preview the browser makes (the server's 'thumb' size). */
const THUMB_SIZE = 320;

function drawToJpeg(source: CanvasImageSource, width: number, height: number): Promise<Blob | null> {
  const scale = Math.min(1, THUMB_SIZE / Math.max(width, height));
  if (typeof document === "undefined") {
    // The upload Service Worker has no DOM: an OffscreenCanvas draws the same thumbnail.
    const offscreen = new OffscreenCanvas(Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)));
    offscreen.getContext("2d")?.drawImage(source, 0, 0, offscreen.width, offscreen.height);
    return offscreen.convertToBlob({ type: "image/jpeg", quality: 0.82 });
  }
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  canvas.getContext("2d")?.drawImage(source, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.82));
}

/** A poster frame of a video, taken a second in (or at its middle when shorter). */
function videoPoster(file: File): Promise<Blob | null> {
  return new Promise((resolve) => {
    const url = URL.createObjectURL(file);
    const video = document.createElement("video");
    const done = (blob: Blob | null) => {
      URL.revokeObjectURL(url);
      resolve(blob);
    };
    video.muted = true;
    video.preload = "metadata";
    video.onloadedmetadata = () => {
      video.currentTime = Math.min(1, (video.duration || 0) / 2);
    };
    video.onseeked = () => void drawToJpeg(video, video.videoWidth, video.videoHeight).then(done, () => done(null));
    video.onerror = () => done(null);
    setTimeout(() => done(null), 10_000);
    video.src = url;
  });
}

async function makePreview(file: File): Promise<Blob | null> {
  const kind = mediaKind(file.type);
  if (kind === "image") {
    const bitmap = await createImageBitmap(file);
    try {
      return await drawToJpeg(bitmap, bitmap.width, bitmap.height);
    } finally {
      bitmap.close();
    }
  }
  // A poster frame needs a <video> element: only a page has one (the server's processing makes it otherwise).
  if (kind === "video" && typeof document !== "undefined") return videoPoster(file);
  return null;
}

/**
 * Makes a thumbnail of an uploaded image or a poster of a video in the browser and stores it as the asset's preview,
 * so the folder shows it at once (server-side processing may replace it later). Failures only cost the thumbnail.
 */
export async function uploadClientPreview(
  assetId: string,
  file: File,
  request: <T>(path: string, options: RequestOptions) => Promise<T> = apiRequest,
): Promise<void> {
  try {
    const preview = await makePreview(file);
    if (preview)
      await request(`/api/asset/upload-preview/${assetId}`, { method: "POST", body: preview, query: { size: "thumb" }, toast: false });
    // A video's hover-scrub strip (decision 029), made while the file is still at hand.
    if (mediaKind(file.type) === "video" && typeof document !== "undefined") {
      const url = URL.createObjectURL(file);
      try {
        const { strip } = await videoPreviews(url, { poster: false, strip: true });
        if (strip) await request(`/api/asset/upload-preview/${assetId}`, { method: "POST", body: strip, query: { size: "strip" }, toast: false });
      } finally {
        URL.revokeObjectURL(url);
      }
    }
  } catch (error) {
    console.warn("preview not made", error);
  }
}
