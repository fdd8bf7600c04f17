import { describe, expect, it } from "vitest";
import { bufferSource } from "../../workers/services/imaging/byte-source";
import type { Pixels } from "../../workers/services/imaging/image-codec";
import { decodePhoto } from "../../workers/services/imaging/photo-decoder";
import { PreviewUnavailable } from "../../workers/services/imaging/preview-unavailable";
import { decodeWebpScaled } from "../../workers/services/imaging/webp-scaled";
import { ru } from "../../shared/i18n/ru";
import { expectQuarters } from "../fixtures/quarters";
import animatedUrl from "../fixtures/quarters-6000x4000-animated.webp?inline";
import losslessUrl from "../fixtures/quarters-6000x4000-lossless.webp?inline";
import lossyUrl from "../fixtures/quarters-6000x4000-lossy.webp?inline";
import smallUrl from "../fixtures/quarters-1600x1200.webp?inline";
import { expectBigImagePreviews } from "./big-image-previews";

/**
 * WebPs past the whole-image limit (12 MP): decoded by libwebp straight to preview size (webp-scaled.ts), in
 * workerd, where its WebAssembly is loaded as the media Worker loads it. The fixtures are 6000 × 4000 quarters
 * (tests/fixtures/make-big-webp-fixtures.mjs) with the top-left eighth transparent.
 */
const bytesOf = (url: string) => Uint8Array.from(atob(url.slice(url.indexOf(",") + 1)), (c) => c.charCodeAt(0));
const lossy = bytesOf(lossyUrl);
const lossless = bytesOf(losslessUrl);
const animated = bytesOf(animatedUrl);

const alphaAt = (p: Pixels, fx: number, fy: number) => p.data[(Math.floor(fy * p.height) * p.width + Math.floor(fx * p.width)) * 4 + 3];

async function refusal(bytes: Uint8Array, cover = 1280): Promise<string> {
  try {
    await decodeWebpScaled(bufferSource(bytes), cover);
  } catch (error) {
    expect(error).toBeInstanceOf(PreviewUnavailable);
    return (error as PreviewUnavailable).reason;
  }
  throw new Error("decoded a WebP that should have been refused");
}

/** A lossless WebP's RIFF, VP8L signature and header declaring width × height, with no image data after it. */
function vp8lHeader(width: number, height: number): Uint8Array {
  const b = new Uint8Array(30);
  const v = new DataView(b.buffer);
  b.set([..."RIFF"].map((c) => c.charCodeAt(0)), 0);
  v.setUint32(4, 22, true);
  b.set([..."WEBPVP8L"].map((c) => c.charCodeAt(0)), 8);
  v.setUint32(16, 10, true);
  b[20] = 0x2f;
  // 14 bits width − 1, 14 bits height − 1, alpha, 3 bits version 0 (little-endian bit order).
  v.setUint32(21, ((width - 1) | ((height - 1) << 14)) >>> 0, true);
  return b;
}

/** A lossy WebP with alpha (VP8X, an empty ALPH, a VP8 frame header) declaring width × height, no image data. */
function lossyAlphaHeader(width: number, height: number): Uint8Array {
  const chunk = (tag: string, body: Uint8Array) => {
    const b = new Uint8Array(8 + body.length + (body.length & 1));
    b.set([...tag].map((c) => c.charCodeAt(0)));
    new DataView(b.buffer).setUint32(4, body.length, true);
    b.set(body, 8);
    return b;
  };
  const vp8x = new Uint8Array(10);
  vp8x[0] = 0x10; // alpha
  for (let i = 0; i < 3; i++) {
    vp8x[4 + i] = ((width - 1) >> (8 * i)) & 255;
    vp8x[7 + i] = ((height - 1) >> (8 * i)) & 255;
  }
  // A key frame's tag (shown, first partition of 0 bytes), the start code, then 14-bit width and height.
  const vp8 = new Uint8Array(10);
  vp8[0] = 0x10;
  vp8.set([0x9d, 0x01, 0x2a], 3);
  new DataView(vp8.buffer).setUint16(6, width, true);
  new DataView(vp8.buffer).setUint16(8, height, true);
  const parts = [new TextEncoder().encode("WEBP"), chunk("VP8X", vp8x), chunk("ALPH", new Uint8Array(2)), chunk("VP8 ", vp8)];
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    body.set(p, at);
    at += p.length;
  }
  return chunk("RIFF", body);
}

describe("WebP over 12 MP decoded scaled", () => {
  it("lossy with alpha: 6000 × 4000 comes out at 1280 × 853, quarters and transparency in place", async () => {
    const pixels = await decodeWebpScaled(bufferSource(lossy), 1280);
    expect([pixels.width, pixels.height]).toEqual([1280, 853]);
    expectQuarters(pixels);
    expect(alphaAt(pixels, 0.05, 0.05)).toBe(0);
    expect(alphaAt(pixels, 0.5, 0.5)).toBe(255);
  });

  it("lossless with alpha: the same, the colours exact away from the quarters' edges", async () => {
    const pixels = await decodeWebpScaled(bufferSource(lossless), 1280);
    expect([pixels.width, pixels.height]).toEqual([1280, 853]);
    expectQuarters(pixels);
    const at = (fx: number, fy: number) => {
      const i = (Math.floor(fy * pixels.height) * pixels.width + Math.floor(fx * pixels.width)) * 4;
      return Array.from(pixels.data.subarray(i, i + 4));
    };
    expect(at(0.3, 0.3)).toEqual([20, 30, 40, 255]);
    expect(at(0.8, 0.8)).toEqual([230, 220, 40, 255]);
    expect(alphaAt(pixels, 0.05, 0.05)).toBe(0);
  });

  it("never enlarges: a cover past the image's size gives the image's own size", async () => {
    const pixels = await decodeWebpScaled(bufferSource(bytesOf(smallUrl)), 2000);
    expect([pixels.width, pixels.height]).toEqual([1600, 1200]);
    expectQuarters(pixels);
  });

  it("refuses before decoding what would not fit the instance's 64 MiB: a 96 MB output, a lossy 80 MP alpha plane", async () => {
    expect(await refusal(lossless, 9000)).toBe(ru.makers.webpOutOfMemory(64));
    expect(await refusal(lossyAlphaHeader(10000, 8000))).toBe(ru.makers.webpOutOfMemory(64));
    // The same header at 40 MP passes the check and reaches the decoder, which finds no image data.
    expect(await refusal(lossyAlphaHeader(8000, 5000))).toBe(ru.makers.corrupt("WebP"));
  });

  it("refuses truncated and broken files with the reason, never a crash", async () => {
    const corrupt = ru.makers.corrupt("WebP");
    expect(await refusal(lossy.subarray(0, lossy.length >> 1))).toBe(corrupt);
    expect(await refusal(lossless.subarray(0, lossless.length - 200))).toBe(corrupt);
    const badSignature = lossless.slice();
    badSignature[20] = 0;
    expect(await refusal(badSignature)).toBe(corrupt);
    expect(await refusal(new Uint8Array(0))).toBe(corrupt);
  });

  it("refuses an animation, and a header past the project's pixel limit before reading on", async () => {
    expect(await refusal(animated)).toBe(ru.makers.webpAnimated(12));
    expect(await refusal(vp8lHeader(16383, 16383))).toBe(ru.makers.tooManyPixels(16383, 16383, 200));
  });

  it("decodePhoto takes a big WebP by its kind", async () => {
    const { pixels, via } = await decodePhoto("webp", bufferSource(lossless), lossless.subarray(0, 4096), 320);
    expect([pixels.width, pixels.height]).toEqual([320, 213]);
    expect(via).toBe("WebP 6000×4000 → 320×213");
  });
});

describe("previews of big WebPs", () => {
  it("a 24 MP WebP uploaded through the API gets thumb and medium", async () => {
    await expectBigImagePreviews({ name: "панорама-24-Мп.webp", mime: "image/webp", bytes: lossy }, "WebP 6000×4000 → 1280×853");
  }, 180_000);
});
