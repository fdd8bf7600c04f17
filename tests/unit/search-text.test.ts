import { describe, expect, it } from "vitest";
import { textPdf } from "../fixtures/text-pdf";
import { cosine, embed } from "../../workers/services/search/embedding";
import { extractSearchText as extractText, textKind } from "../../workers/services/media/extract/extract";
import { markdownText } from "../../workers/services/media/extract/plain";
import { pdfPages } from "../../workers/services/media/extract/pdf";
import { parseXml, textOf } from "../../workers/services/media/extract/xml";
import { BoundedZip } from "../../workers/services/media/extract/zip";
import { MAX_QUERY_WORDS, parsePrefix, parseQuery, wordExpression } from "../../workers/services/search/query-parser";
import { contentWords, normalize, stem, stemPrefix, words } from "../../workers/services/search/tokenize";
import { markName, markedHtml } from "../../workers/services/search/search.service";
import { passagesOf, scorePassage } from "../../workers/services/search/rag.service";

const enc = (s: string) => new TextEncoder().encode(s);

async function deflateRaw(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data.slice()]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A zip archive with deflated entries (sizes in the headers, no data descriptors), as office suites write. */
async function zipOf(files: Record<string, string>): Promise<Uint8Array> {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const nameBytes = enc(name);
    const data = await deflateRaw(enc(text));
    const local = new Uint8Array(30 + nameBytes.length + data.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(8, 8, true);
    lv.setUint32(18, data.length, true);
    lv.setUint32(22, enc(text).length, true);
    lv.setUint16(26, nameBytes.length, true);
    local.set(nameBytes, 30);
    local.set(data, 30 + nameBytes.length);
    const central = new Uint8Array(46 + nameBytes.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(10, 8, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, enc(text).length, true);
    cv.setUint16(28, nameBytes.length, true);
    cv.setUint32(42, offset, true);
    central.set(nameBytes, 46);
    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const dirSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, centrals.length, true);
  ev.setUint16(10, centrals.length, true);
  ev.setUint32(12, dirSize, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + dirSize + 22);
  let at = 0;
  for (const part of [...locals, ...centrals, end]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

describe("tokenize", () => {
  it("splits on anything but letters and digits, lower-cases and folds ё", () => {
    expect(words("Фото-пляж.jpg")).toEqual(["фото", "пляж", "jpg"]);
    expect(words("Съёмка 2026 🎬 ЁЛКА")).toEqual(["съемка", "2026", "елка"]);
    expect(words('"пляж"* NEAR(a, b) -x {name}:y')).toEqual(["пляж", "near", "a", "b", "x", "name", "y"]);
    expect(words("🏖️🌊 *** ---")).toEqual([]);
    expect(normalize("Ёж")).toBe("еж");
  });

  it("stems Russian and English with Snowball, keeps numbers and short words", () => {
    expect(stem("фотографии")).toBe(stem("фотографий"));
    expect(stem("пляжа")).toBe("пляж");
    expect(stem("пляже")).toBe("пляж");
    expect(stem("beaches")).toBe("beach");
    expect(stem("photographs")).toBe("photograph");
    expect(stem("2026")).toBe("2026");
    expect(stem("на")).toBe("на");
  });

  it("answers a prefix every form of the word starts with", () => {
    expect(stemPrefix("пляжа")).toBe("пляж");
    expect("pony".startsWith(stemPrefix("pony"))).toBe(true);
    expect("ponies".startsWith(stemPrefix("ponies"))).toBe(true);
  });

  it("drops stop words unless nothing else remains", () => {
    expect(contentWords("Что мы делали на пляже?")).toEqual(["делали", "пляже"]);
    expect(contentWords("the and")).toEqual(["the", "and"]);
  });
});

describe("query parser", () => {
  it("turns words into quoted stem-prefix terms joined by AND", () => {
    expect(parseQuery("фотографии пляжа").match).toBe('("фотограф"* OR "фото" OR "фотог" OR "фотогр" OR "фотогра") AND "пляж"*');
    expect(parseQuery("jpg").match).toBe('"jpg"*');
    // A stem past the index's longest prefix index (8 letters) is matched by its first 8 letters: one cheap seek a row.
    expect(parseQuery("презентации").match).toBe('("презента"* OR "през" OR "презе" OR "презен" OR "презент")');
    expect(parseQuery("международный").match).toBe('("междунар"* OR "межд" OR "между" OR "междун" OR "междуна")');
    expect(parseQuery("пляж море", "OR").match).toBe('"пляж"* OR "мор"*');
  });

  it.each(['"', "*", "NEAR(пляж море)", "-пляж", "пляж OR", "'; DROP TABLE assets; --", "{name}: x", "^a", "a:b", "(((", "AND OR NOT"])(
    "never passes FTS syntax through: %j",
    (q) => {
      const { match } = parseQuery(q);
      if (match === null) return;
      // Outside quoted terms only our operators, parentheses and the prefix star remain.
      const outside = match.replace(/"[\p{L}\p{N}]+"/gu, "");
      expect(outside).toMatch(/^[\s()*]*((AND|OR)[\s()*]*)*$/);
    },
  );

  it("gives no expression for text without words, and caps very long queries", () => {
    expect(parseQuery("🏖️ *** \"'").match).toBeNull();
    expect(parseQuery("слово ".repeat(1000)).words).toHaveLength(MAX_QUERY_WORDS);
    expect(parseQuery("я".repeat(10_000)).match).toBeNull();
  });

  it("autocompletes the word being typed as a plain prefix in names and metadata", () => {
    expect(parsePrefix("морской пл")).toMatchObject({ prefix: "пл", match: `{name meta} : (${wordExpression("морской")} AND "пл"*)` });
    expect(parsePrefix("пляжа").match).toBe('{name meta} : ("пляжа"*)');
    expect(parsePrefix("пляжа ").match).toBe('{name meta} : ("пляж"*)');
    expect(parsePrefix("  ").match).toBeNull();
    expect(wordExpression("ab")).toBe('"ab"*');
  });
});

describe("offline embedding", () => {
  it("is normalized and puts near word forms closer than unrelated text", () => {
    const q = embed("фотографии пляжа");
    expect(cosine(q, q)).toBeCloseTo(1, 5);
    expect(cosine(q, embed("Фото с пляжа"))).toBeGreaterThan(cosine(q, embed("Горы зимой")));
    expect(cosine(embed("beaches"), embed("beach"))).toBeGreaterThan(0.5);
    expect(Array.from(embed("🙂")).every((x) => x === 0)).toBe(true);
  });
});

describe("text extraction", () => {
  it("picks the extractor by MIME type, then by extension", () => {
    expect(textKind("text/plain")).toBe("plain");
    expect(textKind("text/markdown; charset=utf-8")).toBe("plain");
    expect(textKind("application/octet-stream", "notes.csv")).toBe("plain");
    expect(textKind("application/json")).toBe("json");
    expect(textKind("application/x-subrip")).toBe("subtitles");
    expect(textKind("application/octet-stream", "film.vtt")).toBe("subtitles");
    expect(textKind("application/vnd.openxmlformats-officedocument.wordprocessingml.document")).toBe("docx");
    expect(textKind("application/zip", "deck.pptx")).toBe("pptx");
    expect(textKind("image/jpeg", "photo.jpg")).toBeNull();
  });

  it("reads UTF-8 and Windows-1251 text, JSON string values and subtitle cues", async () => {
    expect(await extractText("text/plain", "a.txt", enc("\ufeffПривет, мир"))).toBe("Привет, мир");
    const cp1251 = new Uint8Array([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]);
    expect(await extractText("text/plain", "a.txt", cp1251)).toBe("Привет");
    expect(await extractText("application/json", "a.json", enc('{"title":"Пляж","n":3,"tags":["море"]}'))).toBe("Пляж\n3\nморе");
    const srt = "1\n00:00:01,000 --> 00:00:02,000\n<i>Смотри</i>, море!\n\n2\n00:00:03,000 --> 00:00:04,000\nКрасиво.\n";
    expect(await extractText("application/x-subrip", "a.srt", enc(srt))).toBe("Смотри, море!\nКрасиво.");
    const vtt = "WEBVTT\n\n00:01.000 --> 00:02.000\nHello beach\n";
    expect(await extractText("text/vtt", "a.vtt", enc(vtt))).toBe("Hello beach");
    expect(await extractText("image/png", "a.png", enc("xx"))).toBeNull();
    expect(await extractText("text/plain", "a.txt", enc("   "))).toBeNull();
  });

  it("reads the text of PDF pages (unpdf), one paragraph per page", async () => {
    const pdf = textPdf([["Beach report (day one)", "The sand was white."], ["Second page: sunset photographs."]]);
    expect(textKind("application/pdf")).toBe("pdf");
    expect(textKind("application/octet-stream", "scan.PDF")).toBe("pdf");
    expect(await extractText("application/pdf", "r.pdf", pdf)).toBe(
      "Beach report (day one)\nThe sand was white.\nSecond page: sunset photographs.",
    );
    // A PDF without text (the page-count fixture) has none; a broken one is refused for good (never retried).
    expect(await extractText("application/pdf", "empty.pdf", textPdf([[]]))).toBeNull();
    await expect(pdfPages(new TextEncoder().encode("%PDF-1.4 broken"), 1000)).rejects.toThrow(/PDF повреждён/);
  });

  it("reads Markdown as its visible text", async () => {
    const md = "# Интервью\n\n> Цитата героя\n\n- **море** и _пляж_\n1. [Сайт](https://example.com) и `код`\n```\nconst x = 1;\n```\nимя_файла_без_изменений";
    expect(await extractText("text/markdown", "s.md", enc(md))).toBe(
      "Интервью\n\nЦитата героя\n\nморе и пляж\nСайт и код\nconst x = 1;\nимя_файла_без_изменений",
    );
    expect(markdownText("2 * 3 * 4")).toBe("2 * 3 * 4");
    // Plain text keeps its marks.
    expect(await extractText("text/plain", "a.txt", enc("# не заголовок"))).toBe("# не заголовок");
  });

  it("reads office XML documents from their zip archives", async () => {
    const docx = await zipOf({
      "[Content_Types].xml": "<Types/>",
      "word/document.xml":
        '<w:document><w:body><w:p><w:r><w:t>Отчёт о съёмке</w:t></w:r></w:p><w:p><w:r><w:t xml:space="preserve">Пляж &amp; море</w:t></w:r></w:p></w:body></w:document>',
    });
    expect(await extractText("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "r.docx", docx)).toBe(
      "Отчёт о съёмке\nПляж & море",
    );
    const pptx = await zipOf({
      "ppt/slides/slide10.xml": "<a:p><a:t>десять</a:t></a:p>",
      "ppt/slides/slide2.xml": "<a:p><a:t>два</a:t></a:p>",
    });
    expect(await extractText("application/octet-stream", "deck.pptx", pptx)).toBe("два\nдесять");
    const odt = await zipOf({ "content.xml": "<office:text><text:h>Заголовок</text:h><text:p>Абзац</text:p></office:text>" });
    expect(await extractText("application/vnd.oasis.opendocument.text", "a.odt", odt)).toBe("Заголовок\nАбзац");
    expect(BoundedZip.open(enc("not a zip"))).toBeNull();
    // XML's five entities and numeric references are decoded by the parser; any other entity is never expanded.
    expect(textOf(parseXml("<x>a&lt;b&#1071;</x>", { elements: new Set(["x"]), text: "kept" }))).toBe("a<bЯ");
    expect(() => parseXml("<x>&custom;</x>", { elements: new Set(["x"]), text: "kept" })).toThrow(/XML повреждён/);
  });
});

describe("snippets and passages", () => {
  it("escapes HTML and marks matches", () => {
    expect(markedHtml('<b>\u0002пляж\u0003</b> & "x"')).toBe("&lt;b&gt;<mark>пляж</mark>&lt;/b&gt; &amp; &quot;x&quot;");
    expect(markName("Ёлка у дома.jpg", "\u0002Елка\u0003 у дома.jpg")).toBe("\u0002Ёлка\u0003 у дома.jpg");
  });

  it("cuts text into passages of sentences and scores them by question words", () => {
    const passages = passagesOf(`${"Первое предложение. ".repeat(30)}\n\nПесок был белый.`);
    expect(passages.length).toBeGreaterThan(1);
    expect(passages.every((p) => p.length <= 800)).toBe(true);
    const { score, html } = scorePassage("Песок был белый, пляж пустой.", ["песок", "пляж"]);
    expect(score).toBe(2);
    expect(html).toBe("<mark>Песок</mark> был белый, <mark>пляж</mark> пустой.");
  });
});
