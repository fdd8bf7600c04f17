/**
 * Pictures a browser makes of a file it can decode (decision 029): the SPEC preview sizes of an image, a video's
 * poster and its hover-scrub strip, a PDF's first page (pdf.js, loaded only when needed), an SVG drawn through an
 * `<img>`. Each answers JPEG blobs that fit the server's boxes exactly, so a heal is never refused for its size.
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

/** An SVG without width and height (and no viewBox to size it) is drawn this large before fitting. */
export const SVG_DEFAULT_SIDE = 1024;
/** An SVG that has not loaded in its `<img>` by then is given up. */
export const SVG_LOAD_MS = 5_000;

/** What an SVG's root element says of its size: an absolute width and height (not %), and its viewBox. */
export interface SvgRootSize {
  sized: boolean;
  viewBox: { width: number; height: number } | null;
}

/** Reads the root `<svg …>` tag's size attributes from the text (nothing is run or fetched). */
export function svgRootSize(text: string): SvgRootSize {
  const tag = /<svg\b[^>]*>/i.exec(text)?.[0] ?? "";
  const attr = (name: string) => new RegExp(`\\s${name}\\s*=\\s*["']([^"']*)["']`, "i").exec(tag)?.[1].trim() ?? null;
  const absolute = (v: string | null) => v !== null && v !== "" && !v.endsWith("%") && Number.parseFloat(v) > 0;
  const parts = attr("viewBox")
    ?.split(/[\s,]+/)
    .map(Number);
  const viewBox =
    parts && parts.length === 4 && parts.every(Number.isFinite) && parts[2] > 0 && parts[3] > 0
      ? { width: parts[2], height: parts[3] }
      : null;
  return { sized: absolute(attr("width")) && absolute(attr("height")), viewBox };
}

/**
 * The size an SVG is drawn at before fitting: its own (as the `<img>` resolved it) when the root declares an
 * absolute width and height; otherwise `SVG_DEFAULT_SIDE` on the long side, in the viewBox's proportions when it
 * has one (browsers disagree on the natural size of an unsized SVG: 300 × 150, 0 × 0 or the viewBox).
 */
export function svgDrawSize(natural: { width: number; height: number }, root: SvgRootSize): { width: number; height: number } {
  if (root.sized && natural.width > 0 && natural.height > 0) return natural;
  const box = root.viewBox;
  if (!box) return { width: SVG_DEFAULT_SIDE, height: SVG_DEFAULT_SIDE };
  const scale = SVG_DEFAULT_SIDE / Math.max(box.width, box.height);
  return { width: Math.max(1, Math.round(box.width * scale)), height: Math.max(1, Math.round(box.height * scale)) };
}

/**
 * The SVG without the links of the pictures it would fetch: `href`/`xlink:href` of `<image>` and `<feImage>` tags
 * that are not inline (`data:`) or local (`#…`). In an `<img>` they are never fetched anyway, but Chromium paints a
 * broken-image icon in their place. Done on the text: a DOMParser would compile the file's event handlers (the
 * page's CSP refuses them, but nothing of a hostile file should get that far), and whatever this yields only ever
 * goes into an `<img>`.
 */
export function withoutExternalImages(text: string): string {
  return text.replace(/<(?:image|feImage)\b[^>]*>/gi, (tag) =>
    tag.replace(/\s(?:xlink:)?href\s*=\s*("[^"]*"|'[^']*')/gi, (attr, value: string) => (/^["']\s*(data:|#)/i.test(value) ? attr : "")),
  );
}

/**
 * An SVG's pictures, drawn by this browser (the Worker has no rasteriser, decision 029). The bytes go into an
 * `<img>` as a Blob of type image/svg+xml: an image-context SVG runs no scripts and fetches nothing external, so a
 * hostile file can only draw itself (external pictures are dropped first: see withoutExternalImages). Given up
 * (null) when it does not load within `SVG_LOAD_MS`.
 */
export async function svgPreviews(blob: Blob): Promise<PreviewBlobs | null> {
  const text = withoutExternalImages(await blob.text());
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  const image = new Image();
  try {
    const loaded = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), SVG_LOAD_MS);
      image.onload = () => {
        clearTimeout(timer);
        resolve(true);
      };
      image.onerror = () => {
        clearTimeout(timer);
        resolve(false);
      };
      image.decoding = "async";
      image.src = url;
    });
    if (!loaded) return null;
    const { width, height } = svgDrawSize({ width: image.naturalWidth, height: image.naturalHeight }, svgRootSize(text));
    return await sizesOf(image, width, height);
  } finally {
    image.onload = image.onerror = null;
    image.removeAttribute("src");
    URL.revokeObjectURL(url);
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
