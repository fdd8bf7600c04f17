import { describe, expect, it } from "vitest";
import { bufferSource } from "../../workers/services/imaging/byte-source";
import { decodeImage, encodeJpeg, encodePng } from "../../workers/services/imaging/image-codec";
import { decodePhoto } from "../../workers/services/imaging/photo-decoder";
import { PreviewUnavailable } from "../../workers/services/imaging/preview-unavailable";
import { rasteriseSvg } from "../../workers/services/imaging/svg-raster";
import { decodeWebpScaled } from "../../workers/services/imaging/webp-scaled";
import { ParseLimitError } from "../../workers/services/media/extract/parse-limit";
import { fuzz } from "../fixtures/byte-fuzz";
import { makeTiff } from "../fixtures/media-makers";
import { quarters } from "../fixtures/quarters";
import webp from "../fixtures/quarters-1600x1200.webp?inline";
import webpLossless from "../fixtures/quarters-3000x2000-lossless.webp?inline";
import { fixture } from "./processing-fixtures";

/**
 * The parsers that need workerd (the WebAssembly codecs and resvg) under the seeded byte mutator: each call ends
 * within its budget and throws only its module's own error — decodeImage's «cannot decode …», the makers'
 * PreviewUnavailable, the parser limits' ParseLimitError. resvg is fed what the SVG gate re-emitted, so mutated
 * files that pass the gate are drawn for real. workerd's clock stands still while code runs, so these runs are
 * bounded by a number of inputs (byte-fuzz.ts).
 */
const codecError = (e: unknown) => e instanceof Error && e.message.startsWith("cannot decode");
const makerError = (e: unknown) => e instanceof PreviewUnavailable || e instanceof ParseLimitError;

describe("codec fuzz in workerd (seeded, bounded in time)", { timeout: 60_000 }, () => {
  it("PNG, JPEG and WebP through the wasm codecs", async () => {
    const png = await encodePng(quarters(48, 32, { alpha: true }));
    const jpeg = await encodeJpeg(quarters(48, 32, { texture: true }), 80);
    const small = Uint8Array.from(atob(webp.slice(webp.indexOf(",") + 1)), (c) => c.charCodeAt(0));
    const kinds = ["image/png", "image/jpeg", "image/webp"] as const;
    let i = 0;
    const tried = await fuzz({
      samples: [png, jpeg, small],
      tokens: ["IDAT", "IHDR", "IEND", "VP8 ", "VP8L", Uint8Array.of(0xff, 0xda), Uint8Array.of(0xff, 0xd9)],
      run: async (b) => {
        await decodeImage(kinds[i++ % 3], b);
      },
      allowed: codecError,
      budgetMs: 3_000,
      workerd: { runs: 600 },
    });
    expect(tried).toBe(600);
  });

  it("photos as the preview maker reads them (JPEG whole or scaled, TIFF)", async () => {
    const jpeg = await encodeJpeg(quarters(64, 48), 80);
    const tiff = makeTiff([{ width: 32, height: 16, compression: 8, rowsPerStrip: 4 }]);
    const tried = await fuzz({
      samples: [jpeg, tiff],
      run: async (b) => {
        const kind = b[0] === 0xff ? "jpeg" : "tiff";
        await decodePhoto(kind, bufferSource(b), b.subarray(0, 65_536), 320);
      },
      allowed: (e) => makerError(e) || codecError(e),
      budgetMs: 3_000,
      workerd: { runs: 600 },
    });
    expect(tried).toBe(600);
  });

  it("WebP through libwebp's scaled decoder (lossy with alpha, lossless past its sliding window)", async () => {
    const lossy = Uint8Array.from(atob(webp.slice(webp.indexOf(",") + 1)), (c) => c.charCodeAt(0));
    const lossless = Uint8Array.from(atob(webpLossless.slice(webpLossless.indexOf(",") + 1)), (c) => c.charCodeAt(0));
    const tried = await fuzz({
      samples: [lossy, lossless],
      tokens: ["VP8 ", "VP8L", "VP8X", "ALPH", "ANIM", Uint8Array.of(0x2f), Uint8Array.of(0xff, 0xff, 0xff, 0x0f)],
      run: (b) => decodeWebpScaled(bufferSource(b), 320),
      allowed: makerError,
      budgetMs: 3_000,
      workerd: { runs: 200 },
    });
    expect(tried).toBe(200);
  });

  it("SVG: the gate's output drawn by resvg", async () => {
    const svg = new TextEncoder().encode(
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:s="http://www.w3.org/2000/svg" viewBox="0 0 40 20"><style>.a{fill:#0a0}</style>` +
        `<linearGradient id="g"><stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient>` +
        `<s:g class="a"><rect width="20" height="20" fill="url(#g)" opacity=".5"/><circle cx="30" cy="10" r="8" stroke-dasharray="1 1" stroke="#000"/></s:g></svg>`,
    );
    const tried = await fuzz({
      samples: [svg],
      tokens: [
        "<s:filter>",
        "&#116;",
        "<g>",
        "</g>",
        ' transform="scale(1e9)"',
        ' stroke-width="1e30"',
        ' r="1e38"',
        '<pattern id="p" width="1e-9" height="1e-9">',
        'fill="url(#p)"',
      ],
      run: (b) => rasteriseSvg(b, 320),
      allowed: makerError,
      budgetMs: 3_000,
      workerd: { runs: 600 },
    });
    expect(tried).toBe(600);
  });
});

/**
 * A codec that failed is not the next file's problem: libjpeg leaves a failed decode by exit(), which unwinds none of
 * the WebAssembly module's stack or heap, so a media Worker that had read a few hundred broken JPEGs could no longer
 * decode a whole photo and fell back to 1/8 scaled previews for every later upload in that isolate (found when these
 * fuzz runs first shared an isolate with the preview tests).
 */
describe("the WebAssembly decoders after failures", () => {
  /** Decodes 1,000 copies of `sample` cut short (`cut(i)` bytes, byte `flip(i)` inverted), then the whole `good` file. */
  async function afterBroken(
    type: "image/jpeg" | "image/webp",
    sample: Uint8Array,
    good: Uint8Array,
    cut: (i: number) => number,
    flip: (i: number) => number,
  ) {
    let failed = 0;
    for (let i = 0; i < 1_000; i++) {
      const broken = sample.slice(0, cut(i));
      broken[flip(i)] ^= 0xff;
      await decodeImage(type, broken).catch(() => failed++);
    }
    expect(failed).toBeGreaterThan(500);
    const image = await decodeImage(type, good);
    expect([image.width, image.height]).toEqual([1600, 1200]);
  }

  it("decode a 1600×1200 JPEG whole after 1,000 broken ones", { timeout: 120_000 }, async () => {
    await afterBroken(
      "image/jpeg",
      await encodeJpeg(quarters(64, 48), 80),
      fixture("photo"),
      (i) => 200 + (i % 400),
      (i) => 180 + (i % 17),
    );
  });

  it("decode a 1600×1200 WebP after 1,000 broken ones", { timeout: 120_000 }, async () => {
    const good = Uint8Array.from(atob(webp.slice(webp.indexOf(",") + 1)), (c) => c.charCodeAt(0));
    await afterBroken(
      "image/webp",
      good,
      good,
      (i) => 100 + (i % 300),
      (i) => 40 + (i % 23),
    );
  });
});
