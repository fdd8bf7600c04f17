import { describe, expect, it } from "vitest";
import { documentCard } from "../../workers/services/media/document-card";
import { extractDocument } from "../../workers/services/media/extract/extract";
import { pageText } from "../../workers/services/media/extract/pdf";
import { officeThumbnail } from "../../workers/services/media/office-thumbnail";
import { DOCX_MIME, makeZip } from "../fixtures/office-docs";
import { textPdf } from "../fixtures/text-pdf";

/** Document text keeps its line, paragraph and page breaks, so a text card never runs two paragraphs together. */

const item = (str: string, y: number, hasEOL = false) => ({ str, hasEOL, transform: [1, 0, 0, 1, 72, y], height: 12 });
const lineTexts = (card: Awaited<ReturnType<typeof documentCard>>) => card.lines.map((l) => (l.type === "row" ? l.cells.join("|") : l.text));

describe("document text breaks", () => {
  it("a PDF page's items on different baselines are different lines, even without an end-of-line mark", () => {
    expect(pageText([item("рекламной ", 760), item("кампании", 760), item("Страница первая", 746)])).toBe("рекламной кампании\nСтраница первая");
    // A step down of more than two lines is a paragraph gap.
    expect(pageText([item("Итоги", 760), item("Выводы", 700)])).toBe("Итоги\n\nВыводы");
    expect(pageText([item("a", 760, true), item("b", 746)])).toBe("a\nb");
  });

  it("a PDF's card has each line on its own and its pages set apart", async () => {
    const pdf = textPdf([["Results of the campaign"], ["Page one", "More text"]]);
    const card = await documentCard(pdf, "application/pdf", "report.pdf");
    expect(lineTexts(card)).toEqual(["Results of the campaign", "", "Page one", "More text"]);
  });

  it("a DOCX line break inside a paragraph starts a new card line; paragraphs stay apart", async () => {
    const xml =
      '<w:document><w:body><w:p><w:r><w:t>Итоги кампании</w:t><w:br/><w:t>Страница первая</w:t></w:r></w:p>' +
      '<w:p><w:r><w:instrText>PAGE</w:instrText><w:t xml:space="preserve">Второй </w:t></w:r><w:r><w:t>абзац</w:t></w:r></w:p></w:body></w:document>';
    const docx = makeZip([{ name: "word/document.xml", text: xml }]);
    const card = await documentCard(docx, DOCX_MIME, "a.docx");
    expect(lineTexts(card)).toEqual(["Итоги кампании", "Страница первая", "Второй абзац"]);
    expect((await extractDocument(docx, DOCX_MIME, "a.docx")).text).toBe("Итоги кампании\nСтраница первая\nВторой абзац");
  });

  it("finds the page picture an office document carries, and none in one without", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    const docx = makeZip([{ name: "word/document.xml", text: "<w:document/>" }, { name: "docProps/thumbnail.png", bytes: png }]);
    expect(officeThumbnail(docx, DOCX_MIME, "a.docx")).toEqual({ mime: "image/png", bytes: png, part: "docProps/thumbnail.png" });
    expect(officeThumbnail(makeZip([{ name: "word/document.xml", text: "<w:document/>" }]), DOCX_MIME, "a.docx")).toBeNull();
    expect(officeThumbnail(png, "image/png", "a.png")).toBeNull();
  });
});
