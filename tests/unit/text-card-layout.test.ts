import { describe, expect, it } from "vitest";
import { CARD_SPECS, cleanText, fitText, layoutCard, wrapText, type CardContent, type CardOp } from "../../workers/services/imaging/card/card-layout";
import { cardFont, measureText } from "../../workers/services/imaging/card/card-font";
import { renderTextCard } from "../../workers/services/imaging/card/text-card";
import { documentCard, markdownLine, splitDelimited, utf8Prefix } from "../../workers/services/media/document-card";

const body = cardFont("r10");
const texts = (ops: CardOp[]) => ops.filter((o): o is Extract<CardOp, { type: "text" }> => o.type === "text");
const content = (over: Partial<CardContent> = {}): CardContent => ({ badge: "DOCX", accent: "#2b579a", title: "Отчёт", lines: [], ...over });

describe("text-card fonts", () => {
  it("hold Latin, Cyrillic, digits and punctuation; unknown characters fall back to «?»", () => {
    for (const ch of "AZaz09ЁёЖжЯя«»—№.,;:!?") expect(body.glyphs.has(ch.codePointAt(0)!)).toBe(true);
    expect(measureText(body, "漢")).toBe(measureText(body, "?"));
    expect(measureText(body, "ШШШ")).toBeGreaterThan(measureText(body, "iii"));
  });
});

describe("wrapText / fitText", () => {
  it("wraps at spaces, never wider than the line", () => {
    const lines = wrapText(body, "Мы выехали в понедельник рано утром, и дорога заняла около десяти часов", 100);
    expect(lines.length).toBeGreaterThan(2);
    for (const l of lines) expect(measureText(body, l)).toBeLessThanOrEqual(100);
    expect(lines.join(" ")).toBe("Мы выехали в понедельник рано утром, и дорога заняла около десяти часов");
  });

  it("splits a word longer than a line by characters, and stops at maxLines", () => {
    const long = "а".repeat(200);
    const lines = wrapText(body, long, 60);
    expect(lines.join("")).toBe(long);
    for (const l of lines) expect(measureText(body, l)).toBeLessThanOrEqual(60);
    expect(wrapText(body, long, 60, 2)).toHaveLength(2);
  });

  it("cuts a line with «…» only when it does not fit", () => {
    expect(fitText(body, "коротко", 200)).toBe("коротко");
    const cut = fitText(body, "очень длинная строка текста, которая не помещается", 80);
    expect(cut.endsWith("…")).toBe(true);
    expect(measureText(body, cut)).toBeLessThanOrEqual(80);
  });

  it("drops control characters and turns tabs into spaces", () => {
    expect(cleanText("a\tb\u0000c\u200b\r")).toBe("a    bc");
  });
});

describe("layoutCard", () => {
  it("draws the badge, the title and the lines inside the page, stopping at its bottom margin", () => {
    const spec = CARD_SPECS.thumb;
    const lines = Array.from({ length: 500 }, (_, i) => ({ type: "paragraph" as const, text: `Строка номер ${i}` }));
    const ops = layoutCard(content({ lines }), spec);
    const t = texts(ops);
    expect(t[0]).toMatchObject({ text: "DOCX", color: "#ffffff" });
    expect(t[1]).toMatchObject({ text: "Отчёт", font: spec.title });
    expect(t[2].text).toBe("Строка номер 0");
    // The page ends before the content does: no text below the bottom margin.
    expect(t.length).toBeLessThan(100);
    for (const op of t) expect(op.y).toBeLessThanOrEqual(spec.height - spec.margin);
    expect(ops[0]).toEqual({ type: "rect", x: 0, y: 0, w: spec.width, h: spec.height, color: expect.any(String) });
  });

  it("lays table rows out in columns, the first row bold, at most maxColumns", () => {
    const spec = CARD_SPECS.thumb;
    const ops = layoutCard(content({ lines: [{ type: "row", cells: ["A", "B", "C", "D", "E", "F"] }, { type: "row", cells: ["1", "2", "3", "4", "5", "6"] }] }), spec);
    const cells = texts(ops).slice(2);
    expect(cells.map((c) => c.text)).toEqual(["A", "B", "C", "D", "1", "2", "3", "4"]);
    expect(cells[0].font).toBe(spec.bold);
    expect(cells[4].font).toBe(spec.body);
    expect(new Set(cells.slice(0, 4).map((c) => c.x)).size).toBe(4);
  });

  it("keeps a long title to two lines", () => {
    const t = texts(layoutCard(content({ title: "Очень длинное название документа ".repeat(8) }), CARD_SPECS.thumb));
    expect(t.filter((o) => o.font === CARD_SPECS.thumb.title)).toHaveLength(2);
  });
});

describe("renderTextCard", () => {
  it("paints the page size, light with dark text; different content, different pixels", () => {
    const a = renderTextCard(content({ lines: [{ type: "paragraph", text: "Первый документ" }] }), "thumb");
    const b = renderTextCard(content({ title: "Другой", lines: [{ type: "paragraph", text: "Второй документ" }] }), "thumb");
    expect([a.width, a.height, a.data.length]).toEqual([240, 320, 240 * 320 * 4]);
    expect(a.data.every((v, i) => i % 4 !== 3 || v === 255)).toBe(true);
    expect(a.data.some((v, i) => v !== b.data[i])).toBe(true);
    let dark = 0;
    for (let i = 0; i < a.data.length; i += 4) if (a.data[i] < 80) dark++;
    expect(dark).toBeGreaterThan(50);
  });
});

describe("documentCard", () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  it("takes the title from a Markdown heading and keeps the others as headings", async () => {
    const card = await documentCard(enc("\n# Заметки\nтекст\n## Раздел\n"), "text/markdown", "n.md");
    expect(card).toMatchObject({ badge: "MD", title: "Заметки" });
    expect(card.lines).toEqual([{ type: "paragraph", text: "текст" }, { type: "heading", text: "Раздел" }, { type: "paragraph", text: "" }]);
  });

  it("shows Markdown as read: no emphasis, code or link marks, list items as bullets", () => {
    expect(markdownLine("A media library on **Workers**, see [docs](http://x) and `npm start`")).toBe("A media library on Workers, see docs and npm start");
    expect(markdownLine("- [x] сделано")).toBe("• сделано");
    expect(markdownLine("snake_case_name stays")).toBe("snake_case_name stays");
  });

  it("says so on a document with no text", async () => {
    const card = await documentCard(enc(""), "text/plain", "пусто.txt");
    expect(card.lines).toEqual([]);
    expect(texts(layoutCard(card, CARD_SPECS.thumb)).at(-1)?.text).toBe("В документе нет текста");
  });

  it("reads CSV rows with the delimiter of the first line, and a TXT is titled by its file name", async () => {
    expect((await documentCard(enc("a;b\n1;2"), "text/csv", "t.csv")).lines).toEqual([
      { type: "row", cells: ["a", "b"] },
      { type: "row", cells: ["1", "2"] },
    ]);
    expect(splitDelimited('"x, y",2,"a ""q"""', ",")).toEqual(["x, y", "2", 'a "q"']);
    expect(await documentCard(enc("строка"), "text/plain", "x.txt")).toMatchObject({ badge: "TXT", title: "x.txt" });
  });

  it("cuts the start of a UTF-8 text back to a whole character", () => {
    const bytes = enc("жж"); // 4 bytes
    expect(utf8Prefix(bytes.subarray(0, 3))).toEqual(bytes.subarray(0, 2));
    expect(utf8Prefix(bytes)).toEqual(bytes);
    expect(new TextDecoder("utf-8", { fatal: true }).decode(utf8Prefix(enc("Привет").subarray(0, 5)))).toBe("Пр");
  });
});
