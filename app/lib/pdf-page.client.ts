/**
 * A PDF's first page drawn by pdf.js. A `.client` module reached only through a dynamic import: pdf.js (≈ 400 KB)
 * and its worker (a separate asset, ≈ 1 MB) load the first time a browser heals a PDF, never with the app.
 */
import { GlobalWorkerOptions, getDocument } from "pdfjs-dist";
import workerUrl from "pdfjs-dist/build/pdf.worker.min.mjs?url";

GlobalWorkerOptions.workerSrc = workerUrl;

/** Page 1 of `bytes` rendered to fit inside `box` × `box` pixels; null when the file has no pages. */
export async function renderFirstPage(bytes: ArrayBuffer, box: number): Promise<HTMLCanvasElement | null> {
  // No eval (the page's CSP forbids it) and no fetches of fonts or CMaps from elsewhere.
  const task = getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: false, useSystemFonts: true });
  const doc = await task.promise;
  try {
    if (doc.numPages < 1) return null;
    const page = await doc.getPage(1);
    const unit = page.getViewport({ scale: 1 });
    const viewport = page.getViewport({ scale: box / Math.max(unit.width, unit.height) });
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.floor(viewport.width));
    canvas.height = Math.max(1, Math.floor(viewport.height));
    const context = canvas.getContext("2d")!;
    context.fillStyle = "#ffffff";
    context.fillRect(0, 0, canvas.width, canvas.height);
    await page.render({ canvasContext: context, viewport }).promise;
    return canvas;
  } finally {
    await doc.destroy();
  }
}
