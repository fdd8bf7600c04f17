import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { beforeAll, describe, expect, it } from "vitest";
import decodeJpeg, { init as initDecode } from "@jsquash/jpeg/decode";
import encodeJpeg, { init as initEncode } from "@jsquash/jpeg/encode";
import { bufferSource } from "../../workers/services/imaging/byte-source";
import { decodeJpegScaled, jpegFrameSize, jpegScale } from "../../workers/services/imaging/jpeg-scaled";
import { jpegScanCount } from "../../workers/services/imaging/jpeg-scans";
import { MAX_JPEG_SCANS } from "../../workers/services/media/extract/limits";
import { PreviewUnavailable } from "../../workers/services/imaging/preview-unavailable";

/** The scaled JPEG decoder (decision 029) against mozjpeg's full decode, box-downsampled the same way. */

const require = createRequire(import.meta.url);
const wasm = (path: string) => new WebAssembly.Module(readFileSync(require.resolve(path)));
const quiet = { print: () => {}, printErr: () => {} };
// Node has no ImageData; the decoder's glue constructs one by its global name (as the Worker's image-codec installs).
class PixelData {
  constructor(public data: Uint8ClampedArray, public width: number, public height: number) {}
}
(globalThis as { ImageData?: unknown }).ImageData ??= PixelData;

beforeAll(async () => {
  await (initEncode as unknown as (m: WebAssembly.Module, o: object) => Promise<void>)(wasm("@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm"), quiet);
  await (initDecode as unknown as (m: WebAssembly.Module, o: object) => Promise<void>)(wasm("@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm"), quiet);
});

/** A test picture: gradients, a disc and fine stripes (high frequencies, so the AC path matters). */
function picture(width: number, height: number) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      const inDisc = (x - width / 2) ** 2 + (y - height / 2) ** 2 < (height / 3) ** 2;
      data[at] = (x * 255) / width;
      data[at + 1] = inDisc ? 220 : (y * 255) / height;
      data[at + 2] = (x >> 2) % 2 ? 200 : 40;
      data[at + 3] = 255;
    }
  }
  return { data, width, height, colorSpace: "srgb" } as unknown as ImageData;
}

async function encode(img: ImageData, opts: Record<string, unknown> = {}) {
  return new Uint8Array(await encodeJpeg(img, { quality: 92, progressive: false, ...opts }));
}

/**
 * Mean absolute difference between `scaled` and the full decode box-averaged by `factor`: of RGB, or of luma only
 * (4:2:0 chroma is upsampled by nearest sample here and smoothly by mozjpeg, which differs at every sharp colour edge).
 */
function difference(full: ImageData, scaled: { data: Uint8ClampedArray; width: number; height: number }, factor: number, luma = false) {
  const weights = luma ? [0.299, 0.587, 0.114] : null;
  let total = 0;
  let count = 0;
  for (let y = 0; y < scaled.height - 1; y++) {
    for (let x = 0; x < scaled.width - 1; x++) {
      const a = [0, 0, 0];
      for (let c = 0; c < 3; c++) {
        for (let dy = 0; dy < factor; dy++) for (let dx = 0; dx < factor; dx++) a[c] += full.data[((y * factor + dy) * full.width + x * factor + dx) * 4 + c];
        a[c] /= factor * factor;
      }
      const b = [0, 1, 2].map((c) => scaled.data[(y * scaled.width + x) * 4 + c]);
      if (weights) {
        total += Math.abs(a.reduce((s, v, c) => s + v * weights[c], 0) - b.reduce((s, v, c) => s + v * weights[c], 0));
        count++;
      } else
        for (let c = 0; c < 3; c++) {
          total += Math.abs(a[c] - b[c]);
          count++;
        }
    }
  }
  return total / count;
}

describe("decodeJpegScaled", () => {
  it("matches mozjpeg's decode at 1/1, 1/2, 1/4 and 1/8 for 4:2:0 and 4:4:4 baseline JPEGs", async () => {
    for (const subsample of [false, true]) {
      const bytes = await encode(picture(640, 480), { auto_subsample: false, chroma_subsample: subsample ? 2 : 1 });
      const full = await decodeJpeg(bytes.buffer as ArrayBuffer);
      for (const n of [8, 4, 2, 1] as const) {
        const scaled = await decodeJpegScaled(bufferSource(bytes), { scale: n });
        expect([scaled.width, scaled.height]).toEqual([(640 * n) / 8, (480 * n) / 8]);
        // Under one level apart on average: the same picture, box-filtered.
        expect(difference(full, scaled, 8 / n, subsample), `subsample ${subsample}, n ${n}`).toBeLessThan(1);
      }
    }
  });

  it("reads odd sizes, greyscale and a progressive JPEG (from its DC scans, at 1/8)", async () => {
    const odd = await encode(picture(333, 217));
    const scaled = await decodeJpegScaled(bufferSource(odd), { scale: 4 });
    expect([scaled.width, scaled.height]).toEqual([167, 109]);
    expect(difference(await decodeJpeg(odd.buffer as ArrayBuffer), scaled, 2, true)).toBeLessThan(1);

    const grey = await encode(picture(256, 128), { color_space: 1 });
    const g = await decodeJpegScaled(bufferSource(grey), { scale: 2 });
    expect([g.width, g.height]).toEqual([64, 32]);
    expect(g.data[0]).toBe(g.data[1]);

    const progressive = await encode(picture(640, 480), { progressive: true });
    expect(jpegFrameSize(progressive)?.sof).toBe(0xc2);
    const p = await decodeJpegScaled(bufferSource(progressive));
    expect([p.width, p.height]).toEqual([80, 60]);
    expect(difference(await decodeJpeg(progressive.buffer as ArrayBuffer), p, 8, true)).toBeLessThan(2);
  });

  it("reads the compressed data in pieces (a small read chunk gives the same pixels)", async () => {
    const bytes = await encode(picture(512, 512));
    const whole = await decodeJpegScaled(bufferSource(bytes), { scale: 4 });
    let reads = 0;
    const pieces = { size: bytes.length, read: async (offset: number, length: number) => (reads++, bytes.subarray(offset, Math.min(bytes.length, offset + Math.min(length, 1000)))) };
    const again = await decodeJpegScaled(pieces, { scale: 4 });
    expect(reads).toBeGreaterThan(5);
    expect(again.data).toEqual(whole.data);
  });

  it("picks the largest scale under the pixel cap", () => {
    expect(jpegScale(6000, 4000, false)).toBe(4); // 24 MP → 6 MP
    expect(jpegScale(12000, 8333, false)).toBe(2); // 100 MP → 6.25 MP
    expect(jpegScale(20000, 10000, false)).toBe(1);
    expect(jpegScale(2000, 1000, false)).toBe(8);
    expect(jpegScale(6000, 4000, true)).toBe(1);
  });

  it("decodes no more than the largest preview needs", () => {
    expect(jpegScale(6000, 4000, false, 1280)).toBe(2); // 1500 × 1000 covers 1280
    expect(jpegScale(12000, 8333, false, 1280)).toBe(1); // 1500 × 1042
    expect(jpegScale(4000, 3000, false, 1280)).toBe(4); // 1/8 would be 500 px: too small
    expect(jpegScale(6000, 4000, false, 320)).toBe(1);
    expect(jpegScale(2000, 1000, false, 4000)).toBe(8); // nothing covers it: the full size
    expect(jpegScale(20000, 15000, false, 1280)).toBe(1); // over the cap even at 1/8: the smallest
  });

  it("refuses a truncated file, a declared 300 MP frame and a file that is not a JPEG, with a reason", async () => {
    const bytes = await encode(picture(320, 240));
    await expect(decodeJpegScaled(bufferSource(bytes.slice(0, 200)))).rejects.toBeInstanceOf(PreviewUnavailable);
    const huge = bytes.slice();
    const sof = huge.findIndex((b, i) => b === 0xff && huge[i + 1] === 0xc0);
    huge[sof + 5] = 0x4e; // height 20,000
    huge[sof + 6] = 0x20;
    huge[sof + 7] = 0x3a; // width 15,000
    huge[sof + 8] = 0x98;
    await expect(decodeJpegScaled(bufferSource(huge))).rejects.toThrow(/15000 × 20000 пикселей/);
    await expect(decodeJpegScaled(bufferSource(new TextEncoder().encode("not a jpeg at all")))).rejects.toThrow(/не похоже на «JPEG»/);
  });

  it("counts scans over stuffed bytes and restarts, and refuses a scan bomb before walking the blocks again", async () => {
    const baseline = await encode(picture(320, 240));
    const progressive = await encode(picture(320, 240), { progressive: true });
    expect(jpegScanCount(baseline, MAX_JPEG_SCANS)).toBe(1);
    expect(jpegScanCount(progressive, MAX_JPEG_SCANS)).toBeGreaterThan(5);
    expect(jpegScanCount(progressive, MAX_JPEG_SCANS)).toBeLessThan(20);
    // A restart marker and a stuffed 0xFF00 inside a scan's data are not markers.
    const marked = Uint8Array.from([0xff, 0xd8, 0xff, 0xda, 0, 2, 0x12, 0xff, 0, 0xff, 0xd3, 0x34, 0xff, 0xda, 0, 2, 0xff, 0xd9]);
    expect(jpegScanCount(marked, 10)).toBe(2);
    expect(jpegScanCount(marked, 1)).toBe(2);

    // Copies of a scan header with no data behind them: each copy would decode every block again (zeros).
    const bomb = (bytes: Uint8Array, copies: number) => {
      const at = bytes.findIndex((b, i) => b === 0xff && bytes[i + 1] === 0xda);
      const header = bytes.subarray(at, at + 2 + ((bytes[at + 2] << 8) | bytes[at + 3]));
      const out = new Uint8Array(bytes.length - 2 + header.length * copies + 2);
      out.set(bytes.subarray(0, bytes.length - 2));
      for (let k = 0; k < copies; k++) out.set(header, bytes.length - 2 + k * header.length);
      out.set([0xff, 0xd9], out.length - 2);
      return out;
    };
    expect(jpegScanCount(bomb(progressive, 500), MAX_JPEG_SCANS)).toBe(MAX_JPEG_SCANS + 1);
    await expect(decodeJpegScaled(bufferSource(bomb(progressive, 500)))).rejects.toThrow(/в JPEG больше 100 сканов/);
    // A sequential JPEG reads each channel once: the first repeat is refused.
    await expect(decodeJpegScaled(bufferSource(bomb(baseline, 2)))).rejects.toThrow(/повторяет канал/);
  });
});
