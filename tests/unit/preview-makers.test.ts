import { describe, expect, it } from "vitest";
import { bufferSource } from "../../workers/services/imaging/byte-source";
import { findEmbeddedJpegs, largestJpeg } from "../../workers/services/imaging/embedded-jpeg";
import { PreviewUnavailable } from "../../workers/services/imaging/preview-unavailable";
import { sniffImage } from "../../workers/services/imaging/sniff";
import { decodeTiffPage, jpegCandidates, readTiff } from "../../workers/services/imaging/tiff";
import { renderWaveform } from "../../workers/services/imaging/waveform-image";
import { PeakAccumulator, WavError, parseWav } from "../../workers/services/media/wav-peaks";
import { lzw, makeIsoBmff, makeRaw, makeTiff, makeWav, type TiffPage } from "../fixtures/media-makers";

/** Pure parsers of the in-Worker preview makers (decision 029): TIFF, embedded JPEGs, sniffing, WAV peaks. */

/** A fake JPEG header: SOI, a SOF0 of width × height, EOI (enough for the embedded-preview search). */
function fakeJpeg(width: number, height: number) {
  return Uint8Array.from([0xff, 0xd8, 0xff, 0xc0, 0, 17, 8, height >> 8, height & 255, width >> 8, width & 255, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xff, 0xd9]);
}

const pixelAt = (p: { data: Uint8ClampedArray; width: number }, x: number, y: number) => Array.from(p.data.subarray((y * p.width + x) * 4, (y * p.width + x) * 4 + 4));

describe("TIFF reader", () => {
  const gradient: TiffPage = { width: 64, height: 48, pixel: (x, y, c) => (c === 0 ? x / 63 : c === 1 ? y / 47 : 0.25) };
  it.each([
    ["uncompressed 8-bit", {}],
    ["PackBits", { compression: 32773 }],
    ["Deflate + predictor", { compression: 8, predictor: true }],
    ["LZW", { compression: 5 }],
    ["LZW + predictor, 16-bit", { compression: 5, predictor: true, bits: 16 }],
    ["16-bit Deflate, 1 row per strip", { compression: 8, bits: 16, rowsPerStrip: 1 }],
  ] as [string, Partial<TiffPage>][])("decodes %s", async (_, over) => {
    const bytes = makeTiff([{ ...gradient, ...over }]);
    const file = await readTiff(bufferSource(bytes));
    const pixels = await decodeTiffPage(bufferSource(bytes), file, file.ifds[0]);
    expect([pixels.width, pixels.height]).toEqual([64, 48]);
    expect(pixelAt(pixels, 0, 0)).toEqual([0, 0, 64, 255]);
    expect(pixelAt(pixels, 63, 47)).toEqual([255, 255, 64, 255]);
    expect(pixelAt(pixels, 32, 24)[0]).toBeCloseTo((32 / 63) * 255, -1);
  });

  it("reads grey and RGBA, every page of a multi-page file, and downsamples past the pixel cap", async () => {
    const pages = makeTiff([
      { width: 10, height: 10, spp: 1, pixel: () => 0.5 },
      { width: 20, height: 5, spp: 4, pixel: (_x, _y, c) => (c === 3 ? 0.5 : 1) },
    ]);
    const file = await readTiff(bufferSource(pages));
    expect(file.ifds).toHaveLength(2);
    expect(pixelAt(await decodeTiffPage(bufferSource(pages), file, file.ifds[0]), 5, 5)).toEqual([128, 128, 128, 255]);
    expect(pixelAt(await decodeTiffPage(bufferSource(pages), file, file.ifds[1]), 5, 2)).toEqual([255, 255, 255, 128]);
  });

  it("finds a RAW's embedded JPEG preview; refuses tiles, a loop of IFDs is read once, a huge page fails with a reason", async () => {
    const jpeg = fakeJpeg(1620, 1080);
    const raw = makeRaw(jpeg);
    const file = await readTiff(bufferSource(raw));
    const [candidate] = jpegCandidates(file, raw.length);
    expect(Array.from(raw.subarray(candidate.offset, candidate.offset + candidate.length))).toEqual(Array.from(jpeg));

    const tiled = makeTiff([{ width: 8, height: 8, extra: [[322, 3, [16]]] }]);
    const t = await readTiff(bufferSource(tiled));
    await expect(decodeTiffPage(bufferSource(tiled), t, t.ifds[0])).rejects.toThrow(/тайлы/);

    const looped = makeTiff([{ width: 4, height: 4 }]);
    const ifd0 = new DataView(looped.buffer).getUint32(4, true);
    const count = new DataView(looped.buffer).getUint16(ifd0, true);
    new DataView(looped.buffer).setUint32(ifd0 + 2 + count * 12, ifd0, true); // next IFD = itself
    expect((await readTiff(bufferSource(looped))).ifds).toHaveLength(1);

    const huge = makeTiff([{ width: 4, height: 4, extra: [] }]);
    const h = await readTiff(bufferSource(huge));
    h.ifds[0].tags.set(256, [20000]);
    h.ifds[0].tags.set(257, [15000]);
    await expect(decodeTiffPage(bufferSource(huge), h, h.ifds[0])).rejects.toThrow(/20000 × 15000 пикселей/);

    await expect(readTiff(bufferSource(makeTiff([{ width: 4, height: 4 }]).slice(0, 12)))).rejects.toBeInstanceOf(PreviewUnavailable);
  });

  it("decodes no larger than the largest preview needs: a factor of 2 for a 64 px preview of 160 × 48", async () => {
    const bytes = makeTiff([{ width: 160, height: 48, pixel: (x) => (x < 80 ? 0 : 1) }]);
    const file = await readTiff(bufferSource(bytes));
    const pixels = await decodeTiffPage(bufferSource(bytes), file, file.ifds[0], 64);
    expect([pixels.width, pixels.height]).toEqual([80, 24]);
    expect([pixelAt(pixels, 10, 10)[0], pixelAt(pixels, 70, 10)[0]]).toEqual([0, 255]);
    const whole = await decodeTiffPage(bufferSource(bytes), file, file.ifds[0], 160);
    expect([whole.width, whole.height]).toEqual([160, 48]);
  });

  it("an LZW round trip of a long, repetitive input (the code width grows to 12 bits and the table resets)", async () => {
    const input = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7 + (i >> 9)) & 255);
    const bytes = makeTiff([{ width: 1000, height: 200, spp: 1, compression: 5, pixel: (x, y) => input[y * 1000 + x] / 255 }]);
    const file = await readTiff(bufferSource(bytes));
    const pixels = await decodeTiffPage(bufferSource(bytes), file, file.ifds[0]);
    for (const [x, y] of [[0, 0], [999, 199], [512, 100]]) expect(pixelAt(pixels, x, y)[0]).toBe(input[y * 1000 + x]);
    expect(lzw(input).length).toBeLessThan(input.length);
  });
});

describe("sniffImage and embedded JPEGs", () => {
  it("names a file by its bytes", () => {
    expect(sniffImage(fakeJpeg(10, 10))).toBe("jpeg");
    expect(sniffImage(makeTiff([{ width: 2, height: 2 }]))).toBe("tiff");
    expect(sniffImage(makeIsoBmff("crx ", []))).toBe("cr3");
    expect(sniffImage(makeIsoBmff("heic", []))).toBe("heif");
    expect(sniffImage(makeIsoBmff("avif", []))).toBe("avif");
    expect(sniffImage(new TextEncoder().encode('<?xml version="1.0"?>\n<!-- x -->\n<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe("svg");
    expect(sniffImage(new TextEncoder().encode("просто текст, не картинка"))).toBeNull();
  });

  it("finds the largest JPEG embedded in an ISO-BMFF file", () => {
    const file = makeIsoBmff("crx ", [fakeJpeg(160, 120), fakeJpeg(1620, 1080)]);
    const found = findEmbeddedJpegs(file);
    expect(found.map((j) => [j.width, j.height, j.length])).toEqual([
      [160, 120, 23],
      [1620, 1080, 23],
    ]);
    expect(largestJpeg(found)?.width).toBe(1620);
    expect(findEmbeddedJpegs(new Uint8Array(100_000).fill(0xff))).toEqual([]);
  });
});

describe("WAV peaks", () => {
  it("parses 16-bit PCM and float formats; refuses other codecs and broken headers", () => {
    const wav = makeWav({ seconds: 1, channels: 2 });
    expect(parseWav(wav, wav.length)).toMatchObject({ encoding: "pcm", channels: 2, sampleRate: 8000, bitsPerSample: 16, dataOffset: 44, durationSec: 1 });
    const float = makeWav({ seconds: 0.5, float: true, bits: 32 });
    expect(parseWav(float, float.length)).toMatchObject({ encoding: "float", durationSec: 0.5 });
    const lying = makeWav({ seconds: 1, declaredDataBytes: 0xffffffff });
    expect(parseWav(lying, lying.length).durationSec).toBe(1);
    const adpcm = makeWav({ seconds: 0.1 });
    adpcm[20] = 2;
    expect(() => parseWav(adpcm, adpcm.length)).toThrow(WavError);
    expect(() => parseWav(wav.slice(0, 20), 20)).toThrow(WavError);
  });

  it("gives the same peaks fed whole or in odd-sized pieces; sampled windows fill every bucket", () => {
    const wav = makeWav({ seconds: 2, bits: 24, channels: 2, amplitude: (t) => t / 2 });
    const format = parseWav(wav, wav.length);
    const data = wav.subarray(44);
    const whole = new PeakAccumulator(format, 100);
    whole.add(data);
    const pieces = new PeakAccumulator(format, 100);
    for (let at = 0; at < data.length; at += 1001) pieces.add(data.subarray(at, at + 1001));
    expect(Array.from(pieces.result())).toEqual(Array.from(whole.result()));
    expect(whole.result()[99]).toBeGreaterThan(0.95);
    expect(whole.result()[0]).toBeLessThan(0.02);

    const sampled = new PeakAccumulator(format, 100);
    for (const frame of [0, 8000, 15000]) sampled.add(data.subarray(frame * 6, frame * 6 + 600), frame);
    const peaks = Array.from(sampled.result());
    expect(peaks.every((p) => p >= 0 && p <= 1)).toBe(true);
    expect(peaks[99]).toBeGreaterThan(peaks[0]);
  });

  it("draws peaks mirrored around the middle", () => {
    const img = renderWaveform([0, 1], 4, 10);
    const at = (x: number, y: number) => img.data[(y * 4 + x) * 4 + 2];
    expect(at(3, 1)).toBe(0xff); // loud half reaches near the top
    expect(at(0, 1)).toBe(0x2a); // quiet half: background
  });
});
