import { readZipEntry, zipDirectory, type ZipDirectoryEntry } from "./zip-reader";

/**
 * Plain text of a document, for search, RAG and the read-only document view: the plain-text family (text/*, JSON,
 * CSV, Markdown …) as UTF-8, and the XML inside office documents (DOCX, XLSX, PPTX, ODT, ODS, ODP). Pure (bytes in,
 * text out) so the search indexer can share it. Besides the text, `blocks` keep the document's shape (headings,
 * paragraphs, table rows) for rendering without an office server.
 */

export type TextBlock = { type: "heading" | "paragraph"; text: string } | { type: "row"; cells: string[] } | { type: "sheet"; name: string };

export interface ExtractedText {
  /** "plain", "docx", "xlsx", "pptx", "odt", "ods", "odp", or null when the type is not one we read */
  kind: string | null;
  text: string;
  blocks: TextBlock[];
  /** the text or the blocks were cut at the limits */
  truncated: boolean;
}

/** Characters of text kept at most. */
export const MAX_TEXT_CHARS = 1_000_000;
/** Blocks kept at most. */
export const MAX_BLOCKS = 20_000;
/** Decompressed bytes read from one archive entry at most. */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

const PLAIN_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/x-yaml",
  "application/yaml",
  "application/x-ndjson",
  "application/csv",
]);
const PLAIN_EXTENSIONS = new Set(["txt", "md", "markdown", "csv", "tsv", "json", "xml", "yaml", "yml", "log", "ini", "srt", "vtt"]);

const OFFICE_TYPES: Record<string, string> = {
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.oasis.opendocument.text": "odt",
  "application/vnd.oasis.opendocument.spreadsheet": "ods",
  "application/vnd.oasis.opendocument.presentation": "odp",
};

/** Which extractor reads a file: by MIME type, else by extension. */
export function textKindOf(mime: string, fileName: string): string | null {
  const m = mime.toLowerCase().split(";")[0].trim();
  const ext = /\.([a-z0-9]{1,10})$/i.exec(fileName)?.[1].toLowerCase() ?? "";
  if (OFFICE_TYPES[m]) return OFFICE_TYPES[m];
  if (["docx", "xlsx", "pptx", "odt", "ods", "odp"].includes(ext)) return ext;
  if (m.startsWith("text/") || PLAIN_TYPES.has(m) || PLAIN_EXTENSIONS.has(ext)) return "plain";
  return null;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * Text inside an XML fragment: group 1 of each `runs` match, or a tab / line break for a matched OOXML tab or break
 * element; ODF's tab, line-break and repeated-space elements become characters first.
 */
function inlineText(xml: string, runs: RegExp): string {
  const normalised = xml
    .replace(/<text:tab\b[^>]*\/>/g, "\t")
    .replace(/<text:line-break\b[^>]*\/>/g, "\n")
    .replace(/<text:s\b([^>]*)\/>/g, (_, attrs: string) => " ".repeat(Math.min(Number(/text:c="(\d+)"/.exec(attrs)?.[1] ?? 1), 100)));
  let out = "";
  for (const m of normalised.matchAll(runs)) {
    if (m[1] !== undefined) out += m[1];
    else if (/^<(?:w|a):tab\b/.test(m[0])) out += "\t";
    else if (/^<(?:w:br|w:cr|a:br)\b/.test(m[0])) out += "\n";
  }
  return unescapeXml(out.replace(/<[^>]+>/g, ""));
}

class Collector {
  blocks: TextBlock[] = [];
  chars = 0;
  truncated = false;
  add(block: TextBlock): boolean {
    if (this.blocks.length >= MAX_BLOCKS || this.chars >= MAX_TEXT_CHARS) {
      this.truncated = true;
      return false;
    }
    this.blocks.push(block);
    this.chars += block.type === "row" ? block.cells.join("\t").length : block.type === "sheet" ? block.name.length : block.text.length;
    return true;
  }
  result(kind: string): ExtractedText {
    const lines = this.blocks.map((b) => (b.type === "row" ? b.cells.join("\t") : b.type === "sheet" ? b.name : b.text));
    let text = lines.join("\n");
    if (text.length > MAX_TEXT_CHARS) {
      text = text.slice(0, MAX_TEXT_CHARS);
      this.truncated = true;
    }
    return { kind, text, blocks: this.blocks, truncated: this.truncated };
  }
}

function docx(xml: string, c: Collector): void {
  for (const p of xml.matchAll(/<w:p\b[^>]*?(?:\/>|>([\s\S]*?)<\/w:p>)/g)) {
    const body = p[1] ?? "";
    const style = /<w:pStyle\b[^>]*w:val="([^"]*)"/.exec(body)?.[1] ?? "";
    const text = inlineText(body, /<w:t\b[^>]*>([\s\S]*?)<\/w:t>|<w:(?:tab|br|cr)\b[^>]*\/>/g);
    if (!c.add({ type: /^(Heading|Title)/i.test(style) ? "heading" : "paragraph", text })) return;
  }
}

function pptx(xml: string, c: Collector): void {
  for (const p of xml.matchAll(/<a:p\b[^>]*>([\s\S]*?)<\/a:p>/g)) {
    const text = inlineText(p[1], /<a:t\b[^>]*>([\s\S]*?)<\/a:t>|<a:br\b[^>]*>/g);
    if (text.trim() && !c.add({ type: "paragraph", text })) return;
  }
}

function odfText(xml: string, c: Collector): void {
  const body = /<office:body\b[^>]*>([\s\S]*)<\/office:body>/.exec(xml)?.[1] ?? xml;
  for (const p of body.matchAll(/<text:(h|p)\b[^>]*?(?:\/>|>([\s\S]*?)<\/text:\1>)/g)) {
    const text = inlineText(p[2] ?? "", /([\s\S]+)/g);
    if (!c.add({ type: p[1] === "h" ? "heading" : "paragraph", text })) return;
  }
}

function odfSheet(xml: string, c: Collector): void {
  for (const table of xml.matchAll(/<table:table\b([^>]*)>([\s\S]*?)<\/table:table>/g)) {
    const name = /table:name="([^"]*)"/.exec(table[1])?.[1];
    if (name !== undefined && !c.add({ type: "sheet", name: unescapeXml(name) })) return;
    for (const row of table[2].matchAll(/<table:table-row\b[^>]*>([\s\S]*?)<\/table:table-row>/g)) {
      const cells = [...row[1].matchAll(/<table:table-cell\b[^>]*?(?:\/>|>([\s\S]*?)<\/table:table-cell>)/g)].map((m) =>
        [...(m[1] ?? "").matchAll(/<text:p\b[^>]*>([\s\S]*?)<\/text:p>/g)].map((p) => inlineText(p[1], /([\s\S]+)/g)).join("\n"),
      );
      while (cells.length > 0 && cells[cells.length - 1] === "") cells.pop();
      if (cells.length > 0 && !c.add({ type: "row", cells })) return;
    }
  }
}

function columnIndex(ref: string): number {
  const letters = /^([A-Z]+)/.exec(ref)?.[1] ?? "";
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

function xlsxSheet(xml: string, shared: string[], c: Collector): boolean {
  for (const row of xml.matchAll(/<row\b[^>]*>([\s\S]*?)<\/row>/g)) {
    const cells: string[] = [];
    for (const cell of row[1].matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const attrs = cell[1];
      const inner = cell[2] ?? "";
      const type = /\bt="([^"]*)"/.exec(attrs)?.[1];
      const ref = /\br="([A-Z]+\d+)"/.exec(attrs)?.[1];
      const raw = /<v>([\s\S]*?)<\/v>/.exec(inner)?.[1];
      let value = "";
      if (type === "s" && raw !== undefined) value = shared[Number(raw)] ?? "";
      else if (type === "inlineStr") value = inlineText(inner, /<t\b[^>]*>([\s\S]*?)<\/t>/g);
      else if (raw !== undefined) value = unescapeXml(raw);
      const at = ref ? columnIndex(ref) : cells.length;
      if (at >= 0 && at < 1000) {
        while (cells.length < at) cells.push("");
        cells[at] = value;
      }
    }
    while (cells.length > 0 && cells[cells.length - 1] === "") cells.pop();
    if (cells.length > 0 && !c.add({ type: "row", cells })) return false;
  }
  return true;
}

async function entryText(bytes: Uint8Array, entry: ZipDirectoryEntry | undefined): Promise<string | null> {
  if (!entry) return null;
  const data = await readZipEntry(bytes, entry, MAX_ENTRY_BYTES);
  return data ? new TextDecoder().decode(data) : null;
}

const numbered = (prefix: string) => (a: ZipDirectoryEntry, b: ZipDirectoryEntry) =>
  Number(a.name.slice(prefix.length).replace(/\D/g, "")) - Number(b.name.slice(prefix.length).replace(/\D/g, ""));

/**
 * Extracts the text of a file. Answers `kind: null` with no text for types it does not read, and for archives that
 * are not valid office documents.
 * @example const { text } = await extractText(bytes, "application/vnd.oasis.opendocument.text", "Отчёт.odt")
 */
export async function extractText(bytes: Uint8Array, mime: string, fileName: string): Promise<ExtractedText> {
  const kind = textKindOf(mime, fileName);
  const c = new Collector();
  if (kind === "plain") {
    let text = new TextDecoder("utf-8", { fatal: false }).decode(bytes).replace(/^\uFEFF/, "");
    if (text.length > MAX_TEXT_CHARS) {
      text = text.slice(0, MAX_TEXT_CHARS);
      c.truncated = true;
    }
    for (const line of text.split(/\r?\n/)) if (!c.add({ type: "paragraph", text: line })) break;
    return { kind, text, blocks: c.blocks, truncated: c.truncated };
  }
  const empty: ExtractedText = { kind: null, text: "", blocks: [], truncated: false };
  if (kind === null) return empty;
  const dir = zipDirectory(bytes);
  if (!dir) return empty;
  const byName = new Map(dir.map((e) => [e.name, e]));
  if (kind === "docx") {
    const xml = await entryText(bytes, byName.get("word/document.xml"));
    if (xml === null) return empty;
    docx(xml, c);
  } else if (kind === "pptx") {
    const slides = dir.filter((e) => /^ppt\/slides\/slide\d+\.xml$/.test(e.name)).sort(numbered("ppt/slides/slide"));
    for (const slide of slides) {
      const xml = await entryText(bytes, slide);
      if (xml !== null) pptx(xml, c);
    }
  } else if (kind === "xlsx") {
    const sharedXml = (await entryText(bytes, byName.get("xl/sharedStrings.xml"))) ?? "";
    const shared = [...sharedXml.matchAll(/<si\b[^>]*>([\s\S]*?)<\/si>/g)].map((m) => inlineText(m[1], /<t\b[^>]*>([\s\S]*?)<\/t>/g));
    const workbook = (await entryText(bytes, byName.get("xl/workbook.xml"))) ?? "";
    const names = [...workbook.matchAll(/<sheet\b[^>]*\bname="([^"]*)"/g)].map((m) => unescapeXml(m[1]));
    const sheets = dir.filter((e) => /^xl\/worksheets\/sheet\d+\.xml$/.test(e.name)).sort(numbered("xl/worksheets/sheet"));
    for (const [i, sheet] of sheets.entries()) {
      const xml = await entryText(bytes, sheet);
      if (xml === null) continue;
      if (!c.add({ type: "sheet", name: names[i] ?? `${i + 1}` })) break;
      if (!xlsxSheet(xml, shared, c)) break;
    }
  } else {
    const xml = await entryText(bytes, byName.get("content.xml"));
    if (xml === null) return empty;
    if (kind === "ods") odfSheet(xml, c);
    else odfText(xml, c);
  }
  return c.result(kind);
}
