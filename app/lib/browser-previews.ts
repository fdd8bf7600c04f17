/**
 * Pictures a browser makes of a file it can decode (decision 029): the SPEC preview sizes of an image, a video's
 * poster and its hover-scrub strip, a PDF's first page (pdf.js, loaded only when needed). Each answers JPEG blobs
 * that fit the server's boxes exactly, so a heal is never refused for its size.
 */

/** The server's preview boxes (GET /api/asset/preview-size) and the strip's: ten frames, each inside 160 × 160. */
export const BOXES = { thumb: 320, medium: 1280 } as const;
export const STRIP_FRAMES = 10;
export const STRIP_FRAME_BOX = 160;

export type PreviewBlobs = Partial<Record<"thumb" | "medium" | "strip", Blob>>;

/** Width and height of `w × h` scaled to fit inside a `box` square, never enlarged. */
export function fitInside(w: number, h: number, box: number): { width: number; height: number } {
  const scale = Math.min(1, box / Math.max(w, h));
  return { width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) };
}

function canvasOf(width: number, height: number): HTMLCanvasElement {
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  return canvas;
}

export function canvasJpeg(canvas: HTMLCanvasElement, quality = 0.82): Promise<Blob | null> {
  return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", quality));
}

/** `source` drawn to fit inside `box`, as JPEG (a dark backdrop under transparent pixels, like the app). */
export function drawFitted(source: CanvasImageSource, w: number, h: number, box: number): Promise<Blob | null> {
  const size = fitInside(w, h, box);
  const canvas = canvasOf(size.width, size.height);
  const g = canvas.getContext("2d")!;
  g.fillStyle = "#ffffff";
  g.fillRect(0, 0, size.width, size.height);
  g.drawImage(source, 0, 0, size.width, size.height);
  return canvasJpeg(canvas);
}

/** Both preview sizes of something drawable. */
export async function sizesOf(source: CanvasImageSource, w: number, h: number): Promise<PreviewBlobs> {
  const [thumb, medium] = await Promise.all([drawFitted(source, w, h, BOXES.thumb), drawFitted(source, w, h, BOXES.medium)]);
  return { ...(thumb ? { thumb } : {}), ...(medium ? { medium } : {}) };
}

/** An image the browser decodes (whatever it can: AVIF, and HEIC where the platform can); null when it cannot. */
export async function imagePreviews(blob: Blob): Promise<PreviewBlobs | null> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(blob);
  } catch {
    return null;
  }
  try {
    return await sizesOf(bitmap, bitmap.width, bitmap.height);
  } finally {
    bitmap.close();
  }
}

/** Resolves when the element fires `event`, rejects on `error` or after `ms`. */
function once(target: HTMLMediaElement, event: string, ms = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`timeout waiting for ${event}`)), ms);
    const ok = () => finish(null);
    const fail = () => finish(new Error(target.error?.message || "media error"));
    function finish(error: Error | null) {
      clearTimeout(timer);
      target.removeEventListener(event, ok);
      target.removeEventListener("error", fail);
      if (error) reject(error);
      else resolve();
    }
    target.addEventListener(event, ok);
    target.addEventListener("error", fail);
  });
}

async function seek(video: HTMLVideoElement, time: number) {
  const seeked = once(video, "seeked");
  video.currentTime = time;
  await seeked;
}

/** Why a video's pictures could not be made: the browser cannot read it (a codec or container it lacks). */
export class UnreadableMediaError extends Error {}

/**
 * A video's poster (both preview sizes, a second in or at its middle when shorter) and, when `strip`, its scrub
 * strip: `STRIP_FRAMES` frames taken at the middle of each tenth, side by side. `src` is a same-origin link (the
 * signed play link: Range requests, so only the frames' bytes travel). Throws UnreadableMediaError when the
 * browser cannot decode it.
 */
export async function videoPreviews(src: string, want: { poster: boolean; strip: boolean }): Promise<PreviewBlobs> {
  const video = document.createElement("video");
  video.muted = true;
  video.preload = "auto";
  video.playsInline = true;
  const ready = once(video, "loadeddata");
  video.src = src;
  try {
    await ready;
  } catch (error) {
    throw new UnreadableMediaError(String(error));
  }
  try {
    const w = video.videoWidth;
    const h = video.videoHeight;
    if (!w || !h) throw new UnreadableMediaError("no video track");
    // A WebM recorded by a browser (MediaRecorder) declares no duration: seeking far past the end makes the
    // element find it.
    if (!Number.isFinite(video.duration)) await seek(video, 1e7).catch(() => undefined);
    const duration = Number.isFinite(video.duration) && video.duration > 0 ? video.duration : 0;
    const out: PreviewBlobs = {};
    if (want.poster) {
      await seek(video, Math.min(1, duration / 2));
      Object.assign(out, await sizesOf(video, w, h));
    }
    if (want.strip && duration > 0) {
      const frame = fitInside(w, h, STRIP_FRAME_BOX);
      const canvas = canvasOf(frame.width * STRIP_FRAMES, frame.height);
      const g = canvas.getContext("2d")!;
      for (let i = 0; i < STRIP_FRAMES; i++) {
        await seek(video, Math.min(duration - 0.01, ((i + 0.5) / STRIP_FRAMES) * duration));
        g.drawImage(video, i * frame.width, 0, frame.width, frame.height);
      }
      const strip = await canvasJpeg(canvas, 0.75);
      if (strip) out.strip = strip;
    }
    return out;
  } finally {
    video.removeAttribute("src");
    video.load();
  }
}
