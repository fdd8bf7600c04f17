import { describe, expect, it } from "vitest";
import { bufferSource } from "../../workers/services/imaging/byte-source";
import { decodePngScaled } from "../../workers/services/imaging/png-rows";
import { PreviewUnavailable } from "../../workers/services/imaging/preview-unavailable";
import { expectQuarters } from "../fixtures/quarters";
import { chunk, makePng, quarterPixel } from "../fixtures/png-maker";

const SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function header(width: number, height: number, colorType = 2, interlace = 0): Uint8Array {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, colorType, 0, 0, interlace], 8);
  return chunk("IHDR", ihdr);
}

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

async function refusal(bytes: Uint8Array): Promise<{ reason: string; ms: number }> {
  const started = performance.now();
  try {
    await decodePngScaled(bufferSource(bytes), 1280);
  } catch (error) {
    expect(error).toBeInstanceOf(PreviewUnavailable);
    return { reason: (error as PreviewUnavailable).reason, ms: performance.now() - started };
  }
  throw new Error("decoded a PNG that should have been refused");
}

describe("PNG decoded by rows into a downscaled buffer", () => {
  it("a 24 MP PNG (6000 × 4000, every filter type) comes out at 1/4, right side up", async () => {
    const png = makePng(6000, 4000, quarterPixel(6000, 4000));
    const pixels = await decodePngScaled(bufferSource(png), 1280);
    expect([pixels.width, pixels.height]).toEqual([1500, 1000]);
    expectQuarters(pixels);
  }, 60_000);

  it("keeps transparency (RGBA) in the downscaled pixels", async () => {
    const png = makePng(400, 300, (x, y, out) => {
      out[0] = 200;
      out[1] = 100;
      out[2] = 50;
      out[3] = x < 200 ? 0 : 255;
    }, { alpha: true });
    const pixels = await decodePngScaled(bufferSource(png), 100);
    expect(pixels.data[3]).toBe(0);
    expect(pixels.data[(pixels.width - 1) * 4 + 3]).toBe(255);
  });

  it("refuses a header declaring 100000 × 100000 at once, before inflating anything", async () => {
    const { reason, ms } = await refusal(concat(SIGNATURE, header(100_000, 100_000), chunk("IEND", new Uint8Array(0))));
    expect(reason).toContain("100000 × 100000");
    expect(ms).toBeLessThan(50);
  });

  it("refuses a truncated file and one whose data stops short of its rows, quickly", async () => {
    const png = makePng(1200, 900, quarterPixel(1200, 900));
    const truncated = await refusal(png.subarray(0, Math.floor(png.length / 2)));
    expect(truncated.reason).toContain("PNG");
    expect(truncated.ms).toBeLessThan(5_000);
    // A valid zlib stream of one row for a header declaring 14 MP: the missing rows are not drawn as blank.
    const short = makePng(4000, 1, quarterPixel(4000, 1));
    const idatEnd = short.length - 12;
    const lying = concat(SIGNATURE, header(4000, 3500), short.subarray(33, idatEnd), chunk("IEND", new Uint8Array(0)));
    const { reason, ms } = await refusal(lying);
    expect(reason).toContain("PNG");
    expect(ms).toBeLessThan(1_000);
  }, 30_000);

  it("refuses interlaced PNGs with the reason instead of holding their passes", async () => {
    const { reason } = await refusal(concat(SIGNATURE, header(5000, 3000, 2, 1), chunk("IEND", new Uint8Array(0))));
    expect(reason).toContain("Adam7");
  });
});
