import decodeJpegWasm, { init as initJpegDecode } from "@jsquash/jpeg/decode";
import encodeJpegWasm, { init as initJpegEncode } from "@jsquash/jpeg/encode";
import jpegDecModule from "@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm";
import jpegEncModule from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm";
import { decode as decodePngWasm, init as initPngDecode } from "@jsquash/png/decode";
import encodePngWasm, { init as initPngEncode } from "@jsquash/png/encode";
// @ts-expect-error the package types this file as the wasm instance's exports; the bundler imports it as a WebAssembly.Module
import pngModule from "@jsquash/png/codec/pkg/squoosh_png_bg.wasm";
import resizeImage, { initResize } from "@jsquash/resize";
// @ts-expect-error as above: a WebAssembly.Module at runtime
import resizeModule from "@jsquash/resize/lib/resize/pkg/squoosh_resize_bg.wasm";
import decodeWebpWasm, { init as initWebpDecode } from "@jsquash/webp/decode";
import webpDecModule from "@jsquash/webp/codec/dec/webp_dec.wasm";

/**
 * workerd has no ImageData; the codecs only need its shape (data, width, height). Installed before any codec runs,
 * since the wasm-bindgen and Emscripten glue constructs it by its global name.
 */
class PixelData {
  constructor(public data: Uint8ClampedArray, public width: number, public height: number) {}
}
if (!(globalThis as { ImageData?: unknown }).ImageData) (globalThis as { ImageData?: unknown }).ImageData = PixelData;

/** RGBA pixels of a decoded image. */
export interface Pixels {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

export type DecodableType = "image/jpeg" | "image/png" | "image/webp";
export const DECODABLE_TYPES: readonly DecodableType[] = ["image/jpeg", "image/png", "image/webp"];

/**
 * The largest image decoded: its RGBA pixels are held twice during a decode (inside the codec's memory and the copy
 * handed out), 8 bytes a pixel, so 12 MP stays near 100 MB: under a Worker's 128 MB.
 */
export const MAX_DECODE_PIXELS = 12_000_000;

// The codecs' wasm is compiled by the bundler (module imports), never fetched: the glue would fetch it from a URL
// next to the script, which does not exist in a Worker. Each init runs once per isolate.
let ready: Promise<unknown> | null = null;
/** The last message the Emscripten codecs printed: libjpeg explains a fatal error there, then the call throws. */
let codecMessage = "";
const quiet = { print: () => {}, printErr: (text: string) => void (codecMessage = String(text).slice(0, 300)) };
/** The Emscripten inits take module options as a second argument (their typings leave it out). */
const withOptions = (init: unknown) => init as (module: WebAssembly.Module, options: typeof quiet) => Promise<unknown>;
function initCodecs(): Promise<unknown> {
  ready ??= Promise.all([
    withOptions(initJpegDecode)(jpegDecModule, quiet),
    withOptions(initJpegEncode)(jpegEncModule, quiet),
    initPngDecode(pngModule),
    initPngEncode(pngModule),
    initResize(resizeModule),
    initWebpDecode(webpDecModule),
  ]).catch((error) => {
    ready = null;
    throw error;
  });
  return ready;
}

/** Decodes a JPEG, PNG or WebP into RGBA pixels; throws on bytes the codec cannot read. */
export async function decodeImage(type: DecodableType, bytes: Uint8Array): Promise<Pixels> {
  await initCodecs();
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  codecMessage = "";
  let image: Pixels | null;
  try {
    image =
      type === "image/jpeg"
        ? await decodeJpegWasm(buffer)
        : type === "image/png"
        ? await decodePngWasm(buffer)
        : await decodeWebpWasm(buffer);
  } catch (error) {
    const reason = codecMessage || (error instanceof Error ? error.message : "codec error");
    await freshDecoder(type);
    throw new Error(`cannot decode ${type}: ${reason}`);
  }
  if (!image || !image.width || !image.height) throw new Error(`cannot decode ${type}: no image`);
  return image;
}

/**
 * A new instance of mozjpeg after a failed decode. libjpeg gives up on a broken file by exit(), which unwinds neither
 * the module's stack nor its heap: a few hundred broken JPEGs later the instance answered «memory access out of
 * bounds» for every file, and every later photo of the isolate fell back to 1/8 scaled previews
 * (parser-fuzz-codecs.test.ts). Instantiating the already compiled module takes about a millisecond. libwebp and the
 * PNG decoder (Rust) return their errors and stay usable (the same test holds for WebP without a new instance).
 */
async function freshDecoder(type: DecodableType) {
  if (type === "image/jpeg") await withOptions(initJpegDecode)(jpegDecModule, quiet);
}

/** Size that fits `width` × `height` inside the box, keeping proportions and never enlarging. */
export function fitInside(width: number, height: number, box: { width: number; height: number }): { width: number; height: number } {
  const scale = Math.min(1, box.width / width, box.height / height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * Resizes pixels to exactly `width` × `height` (Lanczos3); answers the input when it already has that size. Gamma-
 * correct (linear RGB) resampling costs four times the time for a difference nobody sees at preview sizes, so it is
 * off; alpha is premultiplied only for images that may have it.
 */
export async function resizePixels(image: Pixels, width: number, height: number, opts: { alpha?: boolean } = {}): Promise<Pixels> {
  if (image.width === width && image.height === height) return image;
  await initCodecs();
  return (await resizeImage(image as ImageData, {
    width,
    height,
    method: "lanczos3",
    fitMethod: "stretch",
    premultiply: opts.alpha ?? true,
    linearRGB: false,
  })) as Pixels;
}

/**
 * JPEG has no alpha: transparent areas are laid on white, as a page or a browser shows a transparent logo (left to
 * the encoder, they come out in the colour the transparent pixels happen to carry — black for most files).
 */
export function onWhite(image: Pixels): Pixels {
  const d = image.data;
  let i = 3;
  while (i < d.length && d[i] === 255) i += 4;
  if (i >= d.length) return image;
  const out = new Uint8ClampedArray(d.length);
  for (let p = 0; p < d.length; p += 4) {
    const a = d[p + 3] / 255;
    const white = 255 * (1 - a);
    out[p] = d[p] * a + white;
    out[p + 1] = d[p + 1] * a + white;
    out[p + 2] = d[p + 2] * a + white;
    out[p + 3] = 255;
  }
  return { data: out, width: image.width, height: image.height };
}

/**
 * Encodes pixels as a baseline JPEG, transparent areas on white (`onWhite`). Baseline, not progressive: previews are
 * small, and progressive encoding takes mozjpeg 2.5 times as long.
 */
export async function encodeJpeg(image: Pixels, quality: number): Promise<Uint8Array> {
  await initCodecs();
  return new Uint8Array(await encodeJpegWasm(onWhite(image) as ImageData, { quality, progressive: false }));
}

/** Encodes pixels as an 8-bit RGBA PNG (lossless: text cards stay sharp; the same wasm module as the PNG decoder). */
export async function encodePng(image: Pixels): Promise<Uint8Array> {
  await initCodecs();
  return new Uint8Array(await encodePngWasm(image as ImageData));
}
