import { describe, expect, it } from "vitest";
import { bufferSource, type ByteSource } from "../../workers/services/imaging/byte-source";
import { PreviewUnavailable } from "../../workers/services/imaging/preview-unavailable";
import { readCapped } from "../../workers/services/imaging/strip-reader";
import { decodeTiffPage, readTiff } from "../../workers/services/imaging/tiff";
import { tiffStrips } from "../hostile/corpus.mjs";

/** A buffer source that counts its range reads (what R2 would bill). */
function counted(bytes: Uint8Array): ByteSource & { reads: number } {
  const inner = bufferSource(bytes);
  const source = {
    size: inner.size,
    reads: 0,
    read(offset: number, length: number) {
      source.reads++;
      return inner.read(offset, length);
    },
  };
  return source;
}

describe("TIFF strips are read through merged runs, under a cap on reads", () => {
  it("100,000 strips at one offset cost one strip read, not 100,000", async () => {
    const source = counted(new Uint8Array(tiffStrips(100_000, () => 0)));
    const file = await readTiff(source);
    const before = source.reads;
    const pixels = await decodeTiffPage(source, file, file.ifds[0], 1280);
    expect(source.reads - before).toBe(1);
    expect(pixels.width).toBe(1);
    expect(pixels.data[0]).toBe(0x80);
  });

  it("neighbouring strips share reads; strips scattered to defeat the merging stop at MAX_TIFF_READS", async () => {
    const ordered = counted(new Uint8Array(tiffStrips(4_000, (i: number) => i * 100, { width: 100, area: 400_000 })));
    const file = await readTiff(ordered);
    const before = ordered.reads;
    await decodeTiffPage(ordered, file, file.ifds[0], 1280);
    expect(ordered.reads - before).toBe(1);

    const scattered = readCapped(bufferSource(new Uint8Array(tiffStrips(20_000, (i: number) => (i % 2) * 200_000, { area: 200_016 }))));
    const page = await readTiff(scattered);
    const error = await decodeTiffPage(scattered, page, page.ifds[0], 1280).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreviewUnavailable);
    expect((error as PreviewUnavailable).reason).toMatch(/больше 1000 чтений из хранилища/);
    expect(scattered.reads).toBe(1_001);
  });

  it("a page whose strips hold fewer rows than it declares is broken, not drawn blank pixel by pixel", async () => {
    // 2,000,000 × 16 declared over 16 bytes of pixels: the decoder used to walk 32 M blank pixels (found by the fuzzer).
    const source = bufferSource(new Uint8Array(tiffStrips(16, () => 0, { width: 2_000_000, area: 16 })));
    const file = await readTiff(source);
    const started = performance.now();
    const error = await decodeTiffPage(source, file, file.ifds[0], 1280).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreviewUnavailable);
    expect((error as PreviewUnavailable).reason).toMatch(/TIFF повреждён/);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("tag values are budgeted across all IFDs (64 IFDs of 100,000-value tables would fill the isolate)", async () => {
    // Every IFD declares StripOffsets and StripByteCounts of 100,000 LONGs over one shared table, and chains to the next.
    const ifds = 8;
    const table = 8 + ifds * (2 + 2 * 12 + 4);
    const out = new Uint8Array(table + 400_000);
    const view = new DataView(out.buffer);
    out.set([0x49, 0x49, 42, 0]);
    view.setUint32(4, 8, true);
    for (let k = 0; k < ifds; k++) {
      const at = 8 + k * 30;
      view.setUint16(at, 2, true);
      for (const [e, tag] of [273, 279].entries()) {
        view.setUint16(at + 2 + e * 12, tag, true);
        view.setUint16(at + 4 + e * 12, 4, true);
        view.setUint32(at + 6 + e * 12, 100_000, true);
        view.setUint32(at + 10 + e * 12, table, true);
      }
      view.setUint32(at + 26, k + 1 < ifds ? at + 30 : 0, true);
    }
    const error = await readTiff(bufferSource(out)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreviewUnavailable);
    expect((error as PreviewUnavailable).reason).toMatch(/больше 300000 значений в тегах/);
  });
});
