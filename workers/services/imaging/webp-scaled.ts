/**
 * A WebP decoded straight to preview size, for WebPs too large to decode whole (over MAX_DECODE_PIXELS): libwebp
 * 1.2.4's own decoder (lossy VP8 with or without ALPH, lossless VP8L) with its rescaler, which shrinks each row as
 * the decoder produces it, so the full-resolution RGBA never exists. Its lossless decoder is patched to keep a
 * sliding window of pixels (what a backward reference can still reach) instead of the whole image; a lossy image's
 * alpha plane stays whole, one byte a pixel. Built by scripts/build-webp-scaled.sh (webp-scaled/README.md), with no
 * JS glue: a fresh instance per file, capped at WASM_MEMORY bytes, so a hostile file cannot take more and the
 * memory is given back when the decode ends.
 */
import { ru } from "../../../shared/i18n/ru";
import { limits } from "../media/decode";
import type { ByteSource } from "./byte-source";
import { MAX_DECODE_PIXELS, type Pixels } from "./image-codec";
import { PreviewUnavailable } from "./preview-unavailable";
import webpScaledModule from "./webp-scaled/webp_scaled.wasm";

/** The instance's maximum memory (MAXIMUM_MEMORY in the build script). */
const WASM_MEMORY = 64 * 1024 * 1024;
/**
 * The largest file handed to the decoder: the file sits in the instance's memory for the whole decode, next to the
 * decoder's own (rows, the lossless window, a lossy image's alpha plane) and the output.
 */
export const MAX_WEBP_SCALED_BYTES = 40 * 1024 * 1024;
/**
 * What a decode needs besides the file, its output and a lossy image's alpha plane: libwebp's rows and tables and
 * a lossless image's sliding window (measured: 24 MP lossless, 43.7 MiB file → 57.8 MiB of instance memory).
 */
const DECODER_MEMORY = 12 * 1024 * 1024;
/** Bytes copied into the instance per storage read. */
const READ_PIECE = 4 * 1024 * 1024;
/** Bytes of the file's start whose headers say its size and whether it is animated. */
const HEAD_BYTES = 64 * 1024;

/** libwebp's VP8StatusCode values the decoder answers. */
const Status = { ok: 0, outOfMemory: 1, unsupportedFeature: 4, notEnoughData: 7 } as const;

interface WebpScaledExports {
  memory: WebAssembly.Memory;
  _initialize(): void;
  webp_alloc(size: number): number;
  webp_result(): number;
  webp_info(data: number, size: number): number;
  webp_decode(data: number, size: number, cover: number): number;
}

/** What webp_info / webp_decode left in the result array (webp_scaled.c). */
interface Result {
  width: number;
  height: number;
  alpha: boolean;
  animated: boolean;
  /** 1 lossy, 2 lossless, 0 mixed or unknown */
  format: number;
  output: number;
  outputWidth: number;
  outputHeight: number;
}

const corrupt = () => new PreviewUnavailable(ru.makers.corrupt("WebP"));

async function instantiate(): Promise<WebpScaledExports> {
  // The build's only import: Emscripten tells the host that memory grew (views over it are renewed per use here).
  const instance = await WebAssembly.instantiate(webpScaledModule, { env: { emscripten_notify_memory_growth: () => {} } });
  const exports = instance.exports as unknown as WebpScaledExports;
  exports._initialize();
  return exports;
}

function result(wasm: WebpScaledExports): Result {
  const r = new Int32Array(wasm.memory.buffer, wasm.webp_result(), 8);
  return { width: r[0], height: r[1], alpha: r[2] !== 0, animated: r[3] !== 0, format: r[4], output: r[5], outputWidth: r[6], outputHeight: r[7] };
}

/**
 * Refuses what the headers say before the file is read: an animation, more pixels than previews are made from, or
 * a lossy image with alpha whose alpha plane (libwebp keeps it whole, a byte a pixel) would not fit the instance
 * next to the file and the output (libwebp would report that as a broken alpha chunk).
 */
function checkHeaders(info: Result, size: number, cover: number) {
  if (info.animated) throw new PreviewUnavailable(ru.makers.webpAnimated(MAX_DECODE_PIXELS / 1e6));
  if (info.width * info.height > limits.MAX_PREVIEW_SOURCE_PIXELS) {
    throw new PreviewUnavailable(ru.makers.tooManyPixels(info.width, info.height, limits.MAX_PREVIEW_SOURCE_PIXELS / 1e6));
  }
  const alphaPlane = info.format === 1 && info.alpha ? info.width * info.height : 0;
  if (size + alphaPlane + cover * cover * 4 + DECODER_MEMORY > WASM_MEMORY) {
    throw new PreviewUnavailable(ru.makers.webpOutOfMemory(WASM_MEMORY / 1048576));
  }
}

/** Copies the file's first `length` bytes into the instance at `to`, a piece per storage read. */
async function copyIn(wasm: WebpScaledExports, source: ByteSource, to: number, length: number) {
  for (let at = 0; at < length; ) {
    const piece = await source.read(at, Math.min(READ_PIECE, length - at));
    if (piece.length === 0) throw corrupt();
    new Uint8Array(wasm.memory.buffer, to + at, piece.length).set(piece);
    at += piece.length;
  }
}

/**
 * Decodes a still WebP to RGBA whose longer side is `cover` (never enlarged). Throws PreviewUnavailable with the
 * reason for a file past MAX_WEBP_SCALED_BYTES or MAX_PREVIEW_SOURCE_PIXELS, an animated one, one that does not fit
 * the decoder's memory, and a broken one.
 */
export async function decodeWebpScaled(source: ByteSource, cover: number): Promise<Pixels> {
  cover = Math.max(1, Math.round(cover));
  if (source.size > MAX_WEBP_SCALED_BYTES) throw new PreviewUnavailable(ru.makers.tooLarge(MAX_WEBP_SCALED_BYTES / 1048576));
  const wasm = await instantiate();
  const data = wasm.webp_alloc(Math.max(1, source.size));
  if (!data) throw new PreviewUnavailable(ru.makers.webpOutOfMemory(WASM_MEMORY / 1048576));
  try {
    const head = Math.min(source.size, HEAD_BYTES);
    await copyIn(wasm, source, data, head);
    let status = wasm.webp_info(data, head);
    if (status === Status.ok) checkHeaders(result(wasm), source.size, cover);
    else if (status !== Status.notEnoughData) throw corrupt();
    await copyIn(wasm, source, data, source.size);
    status = wasm.webp_info(data, source.size);
    if (status !== Status.ok) throw corrupt();
    checkHeaders(result(wasm), source.size, cover);
    status = wasm.webp_decode(data, source.size, cover);
    if (status === Status.outOfMemory) throw new PreviewUnavailable(ru.makers.webpOutOfMemory(WASM_MEMORY / 1048576));
    if (status !== Status.ok) throw corrupt();
    const out = result(wasm);
    const bytes = out.outputWidth * out.outputHeight * 4;
    // A copy: the instance, and its memory with it, is dropped when this returns.
    const pixels = new Uint8ClampedArray(wasm.memory.buffer.slice(out.output, out.output + bytes));
    return { data: pixels, width: out.outputWidth, height: out.outputHeight };
  } catch (error) {
    // A trap (an out-of-bounds access, abort) in the decoder is a file it could not read; its instance is dropped.
    if (error instanceof WebAssembly.RuntimeError) throw corrupt();
    throw error;
  }
}
