import { describe, expect, it } from "vitest";
import { MAX_PDF_INFLATED_BYTES, MAX_PDF_STREAM_BYTES, MAX_PDF_STREAMS } from "../../workers/services/media/extract/limits";
import { ParseLimitError } from "../../workers/services/media/extract/parse-limit";
import { checkPdfStreams, filtersOf, lzwDecodedLength, runLengthDecodedLength } from "../../workers/services/media/extract/pdf-streams";
import { lzwBombCodes, pdfLzwBomb } from "../hostile/corpus.mjs";
import { assemblePdf, deflate, flateBombPdf, flateTextPdf } from "../fixtures/text-pdf";

const MiB = 1024 * 1024;
const PAGE = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842]";
const HEAD = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"];
const spaces = (mib: number) => Array.from({ length: mib }, () => new Uint8Array(MiB).fill(0x20));

function refusal(bytes: Uint8Array): string {
  try {
    checkPdfStreams(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(ParseLimitError);
    return (error as ParseLimitError).reason;
  }
  throw new Error("the PDF was not refused");
}

describe("PDF stream check (deflate bombs before PDF.js)", () => {
  it("counts what the compressed streams of an ordinary PDF inflate to", async () => {
    const pdf = await flateTextPdf([["First page"], ["Second page", "more"]]);
    const { streams, inflated } = checkPdfStreams(pdf);
    expect(streams).toBe(2);
    expect(inflated).toBe("BT /F1 12 Tf 14 TL 72 760 Td (First page) Tj T* ET".length + "BT /F1 12 Tf 14 TL 72 760 Td (Second page) Tj T* (more) Tj T* ET".length);
  });

  it("refuses a content stream that inflates past MAX_PDF_STREAM_BYTES, from a small file", async () => {
    const bomb = await flateBombPdf("Bomb", 64);
    expect(bomb.length).toBeLessThan(100_000);
    expect(refusal(bomb)).toMatch(/поток PDF 5 0 R распаковывается больше чем в 16 МиБ/);
    // Just under the cap passes.
    expect(checkPdfStreams(await flateBombPdf("Almost", MAX_PDF_STREAM_BYTES / MiB - 1)).inflated).toBeLessThan(MAX_PDF_STREAM_BYTES);
  });

  it("refuses many streams each under the cap once they pass MAX_PDF_INFLATED_BYTES together", async () => {
    const data = await deflate(spaces(15));
    const count = Math.ceil(MAX_PDF_INFLATED_BYTES / (15 * MiB)) + 1;
    const objects = [...HEAD, `${PAGE} /Contents [${Array.from({ length: count }, (_, i) => `${4 + i} 0 R`).join(" ")}] >>`];
    for (let i = 0; i < count; i++) objects.push({ dict: "/Filter /FlateDecode", data } as never);
    expect(refusal(assemblePdf(objects))).toMatch(/вместе больше чем в 256 МиБ/);
  });

  it("skips image streams, unless the same object is read as page contents", async () => {
    const image = { dict: "/Type /XObject /Subtype /Image /Width 4000 /Height 4000 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /FlateDecode", data: await deflate(spaces(40)) };
    const asImage = assemblePdf([...HEAD, `${PAGE} /Resources << /XObject << /Im1 4 0 R >> >> >>`, image]);
    expect(checkPdfStreams(asImage)).toEqual({ streams: 1, inflated: 0 });
    expect(refusal(await flateBombPdf("Hidden", 40, "/Subtype /Image /Width 1 /Height 1"))).toMatch(/поток PDF 5 0 R/);
    // …also when the page naming it sits inside a compressed object stream (PDF 1.5+).
    const objStm = { dict: "/Type /ObjStm /N 1 /First 5 /Filter /FlateDecode", data: await deflate([`3 0 ${PAGE} /Contents 4 0 R >>`]) };
    expect(refusal(assemblePdf([...HEAD, "null", image, objStm]))).toMatch(/поток PDF 4 0 R/);
  });

  it("decodes ASCIIHex before Flate, so a bomb cannot hide behind a text filter", async () => {
    const data = await deflate(spaces(20));
    const hex = [...data].map((b) => b.toString(16).padStart(2, "0")).join("") + ">";
    const pdf = assemblePdf([...HEAD, `${PAGE} /Contents 4 0 R >>`, { dict: "/Filter [/AHx /Fl]", data: new TextEncoder().encode(hex) }]);
    expect(filtersOf("<< /Filter [/AHx /Fl] >>")).toEqual(["ASCIIHexDecode", "FlateDecode"]);
    expect(refusal(pdf)).toMatch(/поток PDF 4 0 R/);
  });

  it("counts what LZW codes decode to without decoding them, and refuses an LZW bomb", () => {
    const sum = (feed: (add: (n: number) => void) => void) => {
      let n = 0;
      feed((bytes) => (n += bytes));
      return n;
    };
    // "ABC", then code 258 (= "AB", learnt from A then B), then end of data: 9-bit codes 65 66 67 258 257.
    const codes = [65, 66, 67, 258, 257];
    let bits = "";
    for (const c of codes) bits += c.toString(2).padStart(9, "0");
    const abc = Uint8Array.from(bits.padEnd(Math.ceil(bits.length / 8) * 8, "0").match(/.{8}/g)!, (b) => parseInt(b, 2));
    expect(sum((add) => lzwDecodedLength(abc, 1, add))).toBe(5);
    // The bomb's codes grow to 12 bits and then repeat the longest entry.
    const eight = sum((add) => lzwDecodedLength(lzwBombCodes(8), 1, add));
    expect(eight).toBeGreaterThanOrEqual(8 * MiB);
    expect(eight).toBeLessThan(8 * MiB + 3839);
    const bomb = pdfLzwBomb(64);
    expect(bomb.length).toBeLessThan(30_000);
    expect(refusal(bomb)).toMatch(/поток PDF 4 0 R распаковывается больше чем в 16 МиБ/);
    expect(filtersOf("<< /Filter [/A85 /LZW] >>")).toEqual(["ASCII85Decode", "LZWDecode"]);
  });

  it("counts RunLength runs (literal and repeated) and refuses many of them past the cap", () => {
    let n = 0;
    runLengthDecodedLength(Uint8Array.from([2, 97, 98, 99, 255, 120, 128, 1, 1]), (bytes) => (n += bytes));
    expect(n).toBe(3 + 2);
    const runs = new Uint8Array(2 * 300_000).map((_, i) => (i % 2 === 0 ? 129 : 0x20)); // 128 spaces per 2 bytes
    const pdf = assemblePdf([...HEAD, `${PAGE} /Contents 4 0 R >>`, { dict: "/Filter /RunLengthDecode", data: runs }]);
    expect(refusal(pdf)).toMatch(/поток PDF 4 0 R/);
  });

  it("refuses a file of more than MAX_PDF_STREAMS streams; broken deflate data is left to PDF.js", async () => {
    const many = new TextEncoder().encode("%PDF-1.4\n" + "<<>>\nstream\n\nendstream\n".repeat(MAX_PDF_STREAMS + 1));
    expect(refusal(many)).toMatch(/больше 100000 потоков/);
    const broken = assemblePdf([...HEAD, `${PAGE} /Contents 4 0 R >>`, { dict: "/Filter /FlateDecode", data: new Uint8Array([0x78, 0x9c, 0xff, 0xff, 0xff]) }]);
    expect(checkPdfStreams(broken).streams).toBe(1);
  });
});
