import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseMoov, pdfPageCount, probeIsoBmff, probeMedia, techSummary } from "../../workers/services/media/media-probe";

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/${name}`, import.meta.url)));

/** An ISO-BMFF box: size, type, body. */
function box(type: string, ...body: Uint8Array[]): Uint8Array {
  const size = 8 + body.reduce((n, b) => n + b.length, 0);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, size);
  out.set(new TextEncoder().encode(type), 4);
  let at = 8;
  for (const b of body) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}
const u32 = (...values: number[]) => {
  const out = new Uint8Array(values.length * 4);
  values.forEach((v, i) => new DataView(out.buffer).setUint32(i * 4, v));
  return out;
};
const zeros = (n: number) => new Uint8Array(n);
const ascii = (s: string) => new TextEncoder().encode(s);

/** A minimal MP4: ftyp, mdat, then moov (duration 12.5 s, a 1920×1080 avc1 track and an mp4a track). */
function mp4(): Uint8Array {
  const mvhd = box("mvhd", u32(0, 0, 0, 1000, 12_500), zeros(80));
  const tkhd = (w: number, h: number) => box("tkhd", u32(0), zeros(72), u32(w * 65536, h * 65536));
  const hdlr = (kind: string) => box("hdlr", u32(0, 0), ascii(kind), zeros(12));
  const stsd = (codec: string) => box("stsd", u32(0, 1), u32(16), ascii(codec), zeros(8));
  const trak = (kind: string, codec: string, w: number, h: number) =>
    box("trak", tkhd(w, h), box("mdia", hdlr(kind), box("minf", box("stbl", stsd(codec)))));
  const parts = [
    box("ftyp", ascii("isom"), u32(512), ascii("isomavc1")),
    box("mdat", zeros(5000)),
    box("moov", mvhd, trak("vide", "avc1", 1920, 1080), trak("soun", "mp4a", 0, 0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe("media probe", () => {
  it("reads duration, video size and codecs from an MP4 whose moov comes after mdat", async () => {
    const file = mp4();
    const reads: [number, number][] = [];
    const read = async (offset: number, length: number) => {
      reads.push([offset, length]);
      return file.subarray(offset, offset + length);
    };
    expect(await probeIsoBmff(read, file.length)).toEqual({
      brand: "isom",
      duration: 12.5,
      width: 1920,
      height: 1080,
      codecs: ["avc1", "mp4a"],
    });
    // After the head, it reads box headers and moov only, hopping over mdat instead of reading it.
    expect(reads.slice(1).every(([, length]) => length < 1000)).toBe(true);
  });

  it("answers null for bytes that are not ISO-BMFF, and survives a truncated moov", async () => {
    const text = ascii("not a movie at all");
    expect(await probeIsoBmff(async (o, l) => text.subarray(o, o + l), text.length)).toBeNull();
    expect(parseMoov(mp4().subarray(0, 60))).toEqual({ codecs: [] });
  });

  it("counts PDF pages from the root page tree", () => {
    expect(pdfPageCount(fixture("three-pages.pdf"))).toBe(3);
    expect(pdfPageCount(ascii("%PDF-1.7\n1 0 obj << /Type /Page >> endobj 2 0 obj << /Type /Page >> endobj"))).toBe(2);
    expect(pdfPageCount(ascii("hello"))).toBeNull();
  });

  it("reads size and EXIF of the JPEG fixture", async () => {
    const bytes = fixture("photo-1600x1200.jpg");
    const fields = await probeMedia({ mime: "image/jpeg", size: bytes.length, head: bytes, read: async () => null });
    expect(fields).toMatchObject({ width: 1600, height: 1200, container: "jpeg", exif: { Make: "EdgeCam", Model: "Fixture 1" } });
    expect(fields.exif?.DateTimeOriginal).toMatch(/^2026-11-01T/);
    expect(techSummary(fields)).toContain("1600×1200");
  });

  it("reads an MP4 through probeMedia", async () => {
    const file = mp4();
    const fields = await probeMedia({ mime: "video/mp4", size: file.length, head: file, read: async (o, l) => file.subarray(o, o + l) });
    expect(fields).toMatchObject({ duration: 12.5, width: 1920, height: 1080, codecs: ["avc1", "mp4a"], container: "isom" });
    expect(techSummary(fields)).toBe("1920×1080, 12.5 с, кодеки avc1, mp4a");
  });
});
