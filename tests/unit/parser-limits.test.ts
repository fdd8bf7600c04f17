import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Collector } from "../../workers/services/media/extract/collector";
import { extractDocument, extractSearchText } from "../../workers/services/media/extract/extract";
import * as limits from "../../workers/services/media/extract/limits";
import { ParseLimitError } from "../../workers/services/media/extract/parse-limit";
import { descendants, parseXml, textOf } from "../../workers/services/media/extract/xml";
import { BoundedZip } from "../../workers/services/media/extract/zip";
import { probeMedia } from "../../workers/services/media/media-probe";
import { deflate, docxOf, hostileCorpus, zipOf } from "../hostile/corpus.mjs";

const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const MiB = 1024 * 1024;

/** `n` bytes that deflate about 15:1 (a random byte every 32), so the ratio checks do not fire. */
function lowRatioText(n: number): Buffer {
  const out = Buffer.alloc(n, 0x61);
  const random = randomBytes(n >> 5);
  for (let i = 0; i < random.length; i++) out[i << 5] = random[i];
  return out;
}

async function refusal(work: Promise<unknown>): Promise<ParseLimitError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ParseLimitError);
  return error as ParseLimitError;
}

const probe = (bytes: Uint8Array, mime: string) =>
  probeMedia({ mime, size: bytes.length, head: bytes, read: async (o, l) => (o >= bytes.length ? null : bytes.subarray(o, o + l)) });

describe("parser limits: the hostile corpus", () => {
  const corpus = hostileCorpus();
  const refused = corpus.filter((c) => c.reason);

  it.each(refused.map((c) => [c.name, c] as const))("%s is stopped by its limit", async (_name, c) => {
    const bytes = new Uint8Array(c.build());
    const work =
      c.expect.text === "failed" ? extractDocument(bytes, c.mime, c.name, "index") : probe(bytes, c.mime);
    const error = await refusal(work);
    expect(error.reason).toMatch(/^Файл слишком сложно распаковать: /);
    expect(error.reason).toMatch(c.reason!);
  });

  it("reads the files that stay within the limits, quickly", async () => {
    const started = Date.now();
    const exif = corpus.find((c) => c.name === "Петля-EXIF.jpg")!;
    expect(await probe(new Uint8Array(exif.build()), "image/jpeg")).toMatchObject({ width: 1, height: 1 });
    const svg = corpus.find((c) => c.name === "Внешние-ссылки.svg")!;
    expect(await probe(new Uint8Array(svg.build()), "image/svg+xml")).toMatchObject({ width: 100, height: 50, external_refs: 6 });
    const mov = corpus.find((c) => c.name === "Битые-атомы.mov")!;
    expect(await probe(new Uint8Array(mov.build()), "video/quicktime")).toMatchObject({ container: "isom" });
    for (const name of ["Глубокий.json", "Длинная-строка.md", "Широкая.csv"]) {
      const c = corpus.find((x) => x.name === name)!;
      const text = await extractSearchText(c.mime, c.name, new Uint8Array(c.build()));
      expect(text!.length).toBeLessThanOrEqual(limits.MAX_INDEX_CHARS);
    }
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("parser limits: the ZIP reader", () => {
  it("refuses two entries that share bytes, and duplicate names, before inflating anything", () => {
    const docx = docxOf();
    const shared = zipOf([{ name: "a.xml", data: deflate(Buffer.from("<a/>")), size: 4 }], ([a]) => [a, { ...a, name: "b.xml" }]);
    expect(() => BoundedZip.open(shared)).toThrow(/перекрываются/);
    const twice = zipOf([{ name: "a.xml", data: deflate(Buffer.from("<a/>")), size: 4 }], ([a]) => [a, a]);
    expect(() => BoundedZip.open(twice)).toThrow(/перекрываются/);
    expect(BoundedZip.open(docx)!.entries.map((e) => e.name)).toEqual(["[Content_Types].xml", "word/document.xml"]);
  });

  it("stops one entry at MAX_ENTRY_BYTES while inflating, when its declared size and ratio looked fine", () => {
    const big = lowRatioText(limits.MAX_ENTRY_BYTES + MiB);
    const zip = BoundedZip.open(zipOf([{ name: "word/document.xml", data: deflate(big), size: big.length }]))!;
    expect(() => zip.read(zip.entries[0])).toThrow(/больше чем в 32 МиБ/);
  }, 30_000);

  it("stops the whole file at MAX_TOTAL_INFLATED_BYTES", () => {
    const part = lowRatioText(30 * MiB);
    const data = deflate(part);
    const slides = Array.from({ length: 4 }, (_, i) => ({ name: `ppt/slides/slide${i + 1}.xml`, data, size: part.length }));
    const zip = BoundedZip.open(zipOf(slides))!;
    expect(() => zip.entries.forEach((e) => zip.read(e))).toThrow(/архив распаковывается больше чем в 96 МиБ/);
  }, 30_000);

  it("answers null for bytes that are no ZIP, and refuses ZIP64 markers", () => {
    expect(BoundedZip.open(new TextEncoder().encode("just text"))).toBeNull();
    const z = zipOf([{ name: "a", data: Buffer.alloc(0), method: 0 }]);
    z.writeUInt32LE(0xffffffff, z.length - 6); // directory offset
    expect(() => BoundedZip.open(z)).toThrow(/ZIP64/);
  });
});

describe("parser limits: XML and output", () => {
  it("refuses DOCTYPE and ENTITY declarations and XML over MAX_XML_CHARS", () => {
    const keep = { elements: new Set(["x"]), text: "kept" as const };
    expect(() => parseXml('<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>', keep)).toThrow(/сущности/);
    expect(() => parseXml("<x>" + "a".repeat(limits.MAX_XML_CHARS) + "</x>", keep)).toThrow(/XML больше/);
    expect(textOf(parseXml("<x>&amp;</x>", keep))).toBe("&");
  });

  it("parses under budgets: depth, element count and kept text; broken XML is refused, not guessed at", () => {
    const keep = { elements: new Set(["w:p"]), text: "any" as const };
    const started = Date.now();
    // A million unclosed tags stop at the depth budget, not after a million-deep walk.
    expect(() => parseXml("<w:p>".repeat(1_000_000) + "<w:p>конец</w:p>", keep)).toThrow(/глубже 256/);
    expect(() => parseXml(`<r>${"<e/>".repeat(limits.MAX_XML_ELEMENTS)}</r>`, keep)).toThrow(/больше 1\s000\s000 элементов/);
    expect(Date.now() - started).toBeLessThan(5_000);
    const big = parseXml(`<r><w:p>${"я".repeat(limits.MAX_XML_TEXT_CHARS + 10)}</w:p></r>`, keep);
    expect(textOf(big)).toHaveLength(limits.MAX_XML_TEXT_CHARS);
    expect(() => parseXml("<a:p>1</a:p><a:p/>", keep)).toThrow(/XML повреждён/);
    const doc = parseXml("<r><a:p>1</a:p><a:pPr/><a:p/></r>", { elements: new Set(["a:p"]), text: "kept" });
    expect([...descendants(doc, new Set(["a:p"]))].map((e) => textOf(e))).toEqual(["1", ""]);
  });

  it("cuts blocks together with the text: the blocks never hold more than the text", () => {
    const c = new Collector(10);
    expect(c.add({ type: "paragraph", text: "12345" })).toBe(true);
    expect(c.add({ type: "paragraph", text: "abcdefgh" })).toBe(false);
    expect(c.add({ type: "paragraph", text: "never" })).toBe(false);
    const r = c.result("plain");
    expect(r).toEqual({ kind: "plain", text: "12345\nabcd", blocks: [{ type: "paragraph", text: "12345" }, { type: "paragraph", text: "abcd" }], truncated: true });
  });

  it("answers WOPI /text of a huge document at MAX_VIEW_CHARS with blocks cut at the same point", async () => {
    const paragraphs = Array.from({ length: 30_000 }, (_, i) => `<w:p><w:r><w:t>${"абзац ".repeat(10)}${i}</w:t></w:r></w:p>`).join("");
    const r = await extractDocument(docxOf(`<w:document><w:body>${paragraphs}</w:body></w:document>`), DOCX, "big.docx");
    expect(r.truncated).toBe(true);
    expect(r.text.length).toBeLessThanOrEqual(limits.MAX_VIEW_CHARS);
    expect(r.blocks.length).toBeLessThanOrEqual(limits.MAX_BLOCKS);
    const joined = r.blocks.map((b) => ("text" in b ? b.text : "")).join("\n");
    expect(joined).toBe(r.text);
  });

  it("reads a normal PPTX within the limits", async () => {
    const slide = (t: string) => `<p:sld><a:p><a:r><a:t>${t}</a:t></a:r></a:p></p:sld>`;
    const pptx = zipOf([
      { name: "ppt/slides/slide2.xml", data: deflate(Buffer.from(slide("два"))), size: Buffer.byteLength(slide("два")) },
      { name: "ppt/slides/slide1.xml", data: deflate(Buffer.from(slide("один"))), size: Buffer.byteLength(slide("один")) },
    ]);
    expect((await extractDocument(pptx, PPTX, "d.pptx")).text).toBe("один\nдва");
  });
});
