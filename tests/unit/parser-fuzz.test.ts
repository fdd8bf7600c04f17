import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bufferSource } from "../../workers/services/imaging/byte-source";
import { declaredSize } from "../../workers/services/imaging/declared-size";
import { findEmbeddedJpegs } from "../../workers/services/imaging/embedded-jpeg";
import { decodeJpegScaled, jpegFrameSize } from "../../workers/services/imaging/jpeg-scaled";
import { jpegScanCount } from "../../workers/services/imaging/jpeg-scans";
import { PreviewUnavailable } from "../../workers/services/imaging/preview-unavailable";
import { sniffImage } from "../../workers/services/imaging/sniff";
import { readCapped } from "../../workers/services/imaging/strip-reader";
import { svgForResvg } from "../../workers/services/imaging/svg-gate";
import { decodeTiffPage, jpegCandidates, readTiff } from "../../workers/services/imaging/tiff";
import { documentCard } from "../../workers/services/media/document-card";
import { extractDocument } from "../../workers/services/media/extract/extract";
import { ParseLimitError } from "../../workers/services/media/extract/parse-limit";
import { checkPdfStreams } from "../../workers/services/media/extract/pdf-streams";
import { gifFrames } from "../../workers/services/media/gif-frames";
import { imageInfo } from "../../workers/services/media/image-info";
import { probeMedia, readExif } from "../../workers/services/media/media-probe";
import { svgInfo } from "../../workers/services/media/svg-probe";
import { parseWav, PeakAccumulator, WavError } from "../../workers/services/media/wav-peaks";
import { exifLoopJpeg, gifFrames as gifOf } from "../hostile/corpus.mjs";
import { makeIsoBmff, makeRaw, makeTiff, makeWav } from "../fixtures/media-makers";
import { makeDocx, makeOdt, makeXlsx } from "../fixtures/office-docs";
import { textPdf } from "../fixtures/text-pdf";
import { fuzz } from "../fixtures/byte-fuzz";

/**
 * The hostile tier grows with the parsers: every parser that runs in Node gets a seeded, time-bounded fuzz run over
 * mutations of a valid sample (bytes flipped, cut, repeated, set to boundary values, format tokens spliced in).
 * Each call must end within its budget and throw nothing but its module's own typed error. The seed is fixed so a
 * failure reproduces; fast-check prints the shrunk input.
 */

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/${name}`, import.meta.url)));
const enc = (s: string) => new TextEncoder().encode(s);

const preview = (e: unknown) => e instanceof PreviewUnavailable;
const parseLimit = (e: unknown) => e instanceof ParseLimitError;

const SVG_SAMPLE = enc(
  `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 40 20">` +
    `<style>.a{fill:#f00;opacity:.5}</style><defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>` +
    `<g class="a" transform="translate(1 2)"><rect width="20" height="20" style="fill:url(#g)"/><path d="M0 0L10 10Z"/></g></svg>`,
);
const JPEG = fixture("tiny-200x100.jpg");

describe("parser fuzz (seeded, bounded in time)", { timeout: 30_000 }, () => {
  it("SVG: probe and rasteriser gate", async () => {
    const tokens = ["<s1:filter>", "</s1:filter>", ' xmlns:s1="http://www.w3.org/2000/svg"', "&#116;", "&amp;", "<![CDATA[", "]]>", "<style>", "</style>", "fil\\74 er:", "<!DOCTYPE svg [<!ENTITY a 'b'>]>", "<g>", "</g>", "<use/>", ' style="opacity:1"', "url(#g)", "<!--", "-->", "<!---->"];
    const tried = await fuzz({
      samples: [SVG_SAMPLE],
      tokens,
      run: (b) => {
        sniffImage(b);
        svgInfo(b);
        svgForResvg(b);
      },
      allowed: (e) => preview(e) || parseLimit(e),
      budgetMs: 1_500,
    });
    expect(tried).toBeGreaterThan(50);
  });

  it("TIFF and TIFF-based RAW: IFDs, previews, strips", async () => {
    const samples = [
      makeTiff([{ width: 24, height: 16, compression: 8, rowsPerStrip: 4, predictor: true }]),
      makeTiff([{ width: 20, height: 12, compression: 5, rowsPerStrip: 3 }, { width: 4, height: 4, compression: 32773, spp: 1, bits: 16 }]),
      makeRaw(JPEG),
    ];
    const tried = await fuzz({
      samples,
      run: async (b) => {
        const source = readCapped(bufferSource(b));
        const file = await readTiff(source);
        jpegCandidates(file, source.size);
        await decodeTiffPage(source, file, file.ifds[0], 64);
      },
      allowed: preview,
      budgetMs: 1_000,
    });
    expect(tried).toBeGreaterThan(50);
  });

  it("JPEG: frame header, scan count, scaled decoder", async () => {
    const tried = await fuzz({
      samples: [JPEG],
      tokens: [Uint8Array.of(0xff, 0xda), Uint8Array.of(0xff, 0xc2), Uint8Array.of(0xff, 0xd9), Uint8Array.of(0xff, 0xdd, 0, 4, 0, 1), Uint8Array.of(0xff, 0xc4)],
      run: async (b) => {
        jpegFrameSize(b);
        jpegScanCount(b, 100);
        await decodeJpegScaled(bufferSource(b), { cover: 64 });
      },
      allowed: preview,
      budgetMs: 1_500,
    });
    expect(tried).toBeGreaterThan(20);
  });

  it("PNG, WebP, GIF headers, HEIC/AVIF/CR3 embedded previews and sniffing", async () => {
    const heic = makeIsoBmff("heic", [JPEG.subarray(0, 2048)]);
    const tried = await fuzz({
      samples: [fixture("logo-400x300.png"), fixture("quarters-1600x1200.webp").subarray(0, 4096), gifOf(3), heic, makeIsoBmff("avif", [])],
      tokens: ["ispe", "ftyp", "IHDR", "VP8X", Uint8Array.of(0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0xff, 0xff, 0xff, 0xff, 1, 1, 0x11, 0)],
      run: (b) => {
        imageInfo(b);
        gifFrames(b);
        const kind = sniffImage(b);
        if (kind) declaredSize(kind, b);
        declaredSize("heif", b);
        findEmbeddedJpegs(b);
      },
      allowed: parseLimit,
      budgetMs: 1_000,
    });
    expect(tried).toBeGreaterThan(50);
  });

  it("WAV: header and peaks", async () => {
    const tried = await fuzz({
      samples: [makeWav({ seconds: 0.05 }), makeWav({ seconds: 0.02, bits: 24, channels: 2 }), makeWav({ seconds: 0.02, bits: 32, float: true })],
      tokens: ["fmt ", "data", "LIST", "RF64", "ds64"],
      run: (b) => {
        const format = parseWav(b, b.length);
        const peaks = new PeakAccumulator(format, 64);
        peaks.add(b.subarray(format.dataOffset, format.dataOffset + format.dataBytes));
      },
      allowed: (e) => e instanceof WavError,
      budgetMs: 1_000,
    });
    expect(tried).toBeGreaterThan(50);
  });

  it("PDF stream check", async () => {
    const tried = await fuzz({
      samples: [textPdf([["Первая страница"], ["Вторая"]])],
      tokens: ["/Filter /FlateDecode", "/Filter [/LZWDecode /RunLengthDecode]", "stream\n", "endstream", "/Length 99999999", " 0 R", "obj", "/DecodeParms <</Predictor 12>>"],
      run: (b) => checkPdfStreams(b),
      allowed: parseLimit,
      budgetMs: 1_000,
    });
    expect(tried).toBeGreaterThan(50);
  });

  it("ZIP-based office documents (DOCX, XLSX, ODT)", async () => {
    const samples = [makeDocx("Заголовок", ["Абзац один", "Абзац два"]), makeXlsx("Лист", [["a", 1], ["b", 2]]), makeOdt("Заголовок", ["Текст"])];
    const mimes = ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.oasis.opendocument.text"];
    const names = ["a.docx", "a.xlsx", "a.odt"];
    let i = 0;
    const tried = await fuzz({
      samples,
      tokens: [Uint8Array.of(0x50, 0x4b, 3, 4), Uint8Array.of(0x50, 0x4b, 1, 2), Uint8Array.of(0x50, 0x4b, 5, 6), "<!DOCTYPE", "<w:t>", "</w:p>"],
      run: async (b) => {
        i++;
        await extractDocument(b, mimes[i % 3], names[i % 3]);
      },
      allowed: parseLimit,
      budgetMs: 1_500,
    });
    expect(tried).toBeGreaterThan(30);
  });

  it("EXIF/XMP (exifr) never throws out of readExif", async () => {
    const tried = await fuzz({
      samples: [JPEG, new Uint8Array(exifLoopJpeg()), makeTiff([{ width: 4, height: 4 }])],
      tokens: ["Exif\0\0", "II*\0", "MM\0*", "http://ns.adobe.com/xap/1.0/\0", "<x:xmpmeta>"],
      run: (b) => readExif(b),
      allowed: () => false,
      budgetMs: 1_500,
    });
    expect(tried).toBeGreaterThan(30);
  });

  it("MP4/MOV boxes and the whole tech probe", async () => {
    const box = (type: string, ...body: Uint8Array[]) => {
      const size = 8 + body.reduce((n, b) => n + b.length, 0);
      const out = new Uint8Array(size);
      new DataView(out.buffer).setUint32(0, size);
      out.set(enc(type), 4);
      let at = 8;
      for (const b of body) {
        out.set(b, at);
        at += b.length;
      }
      return out;
    };
    const mvhd = new Uint8Array(100);
    new DataView(mvhd.buffer).setUint32(12, 1000);
    new DataView(mvhd.buffer).setUint32(16, 5000);
    const mp4 = new Uint8Array([
      ...box("ftyp", enc("isom"), new Uint8Array(4), enc("isommp41")),
      ...box("moov", mvhd.length ? box("mvhd", mvhd) : mvhd, box("trak", box("tkhd", new Uint8Array(84)), box("mdia", box("mdhd", new Uint8Array(24)), box("minf", box("stbl", box("stsd", new Uint8Array(8))))))),
      ...box("mdat", new Uint8Array(64)),
    ]);
    const mimes = ["video/mp4", "image/jpeg", "image/png", "image/tiff", "image/svg+xml", "application/pdf", "image/gif"];
    let i = 0;
    const tried = await fuzz({
      samples: [mp4, JPEG, fixture("logo-400x300.png"), SVG_SAMPLE, gifOf(2)],
      tokens: ["moov", "trak", "mdia", "stsd", "avc1", "mvhd", Uint8Array.of(0, 0, 0, 1), Uint8Array.of(0, 0, 0, 0)],
      run: async (b) => {
        const mime = mimes[i++ % mimes.length];
        await probeMedia({ mime, size: b.length, head: b, read: async (offset, length) => (offset >= b.length ? null : b.subarray(offset, offset + length)) });
      },
      allowed: parseLimit,
      budgetMs: 1_500,
    });
    expect(tried).toBeGreaterThan(30);
  });

  it("CSV and plain text cards", async () => {
    const csv = enc('имя,число,"в кавычках, с запятой"\nа,1,"x""y"\nб;2;3\n\tтаб\tвкладка\n');
    let i = 0;
    const kinds: [string, string][] = [["text/csv", "a.csv"], ["text/tab-separated-values", "a.tsv"], ["text/markdown", "a.md"], ["application/json", "a.json"], ["text/plain", "a.srt"]];
    const tried = await fuzz({
      samples: [csv, enc('{"a":[1,2,{"b":"в"}]}'), enc("# Заголовок\n*курсив* `код`\n")],
      tokens: ['"', '""', ",", ";", "\t", "\r\n", "[", "{", "\uFEFF"],
      run: async (b) => {
        const [mime, name] = kinds[i++ % kinds.length];
        await documentCard(b, mime, name);
      },
      allowed: parseLimit,
      budgetMs: 1_000,
    });
    expect(tried).toBeGreaterThan(50);
  });
});
