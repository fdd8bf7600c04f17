import { extractDocument, isMarkdown, textKind, type TextKind } from "./extract/extract";
import { MAX_ARCHIVE_BYTES, MAX_CARD_LINES, MAX_CARD_PLAIN_BYTES, MAX_MARKDOWN_LINE_CHARS, MAX_PDF_BYTES } from "./extract/limits";
import { ru } from "../../../shared/i18n/ru";

/**
 * What a text-card preview of a document shows (decision 029): built from the one bounded extractor's «card» text,
 * drawn by imaging's renderTextCard. Its shape is imaging's CardContent (kept structural so media does not import
 * the codecs' domain).
 */
export interface DocumentCard {
  badge: string;
  accent: string;
  title: string;
  lines: ({ type: "heading" | "paragraph"; text: string } | { type: "row"; cells: string[] })[];
  /** what the card says when the document has no text (a scanned PDF, an empty file) */
  empty: string;
}

/** A Markdown line as a reader sees it on a card: links, emphasis and code marks gone, list items as bullets. */
export function markdownLine(line: string): string {
  if (line.length > MAX_MARKDOWN_LINE_CHARS) return line;
  return line
    .replace(/^(\s*)[-*+]\s+(\[[ xX]\]\s+)?/, "$1• ")
    .replace(/^\s{0,3}>\s?/, "")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(^|[^\p{L}\p{N}])(\*\*|__|\*|_|`)(\S(?:.*?\S)?)\2(?![\p{L}\p{N}])/gu, "$1$3");
}

/** Extensions shown on the badge as they are; other readable types fall back to their kind's name. */
const BADGES = new Set(["docx", "xlsx", "pptx", "odt", "ods", "odp", "pdf", "txt", "md", "csv", "tsv", "json", "srt", "vtt", "xml", "yaml", "yml", "log", "ini"]);
const KIND_BADGE: Record<TextKind, string> = {
  plain: "TXT", json: "JSON", subtitles: "SRT", pdf: "PDF", docx: "DOCX", xlsx: "XLSX", pptx: "PPTX", odt: "ODT", ods: "ODS", odp: "ODP",
};
/** Colours the office suites and readers give these types, so a folder's cards tell them apart at a glance. */
const ACCENTS: Record<string, string> = {
  DOCX: "#2b579a", ODT: "#2b579a", XLSX: "#217346", ODS: "#217346", CSV: "#217346", TSV: "#217346", PPTX: "#c43e1c",
  ODP: "#c43e1c", PDF: "#b3261e", MD: "#6f42c1", JSON: "#a05a00", YAML: "#a05a00", YML: "#a05a00", XML: "#a05a00",
};

/** Whether a file gets a text-card preview: every type the extractor reads (office, PDF, the plain-text family). */
export function hasTextCard(mime: string, fileName: string): boolean {
  return textKind(mime, fileName) !== null;
}

/**
 * Bytes of the file read for its card: plain text only its start, archives and PDFs whole (their index is at the
 * end) up to the extractor's limits; null when the file is larger than that (the caller says so).
 */
export function cardReadBytes(mime: string, fileName: string, size: number): { bytes: number } | { tooLarge: number } {
  const kind = textKind(mime, fileName);
  if (kind === "plain" || kind === "json" || kind === "subtitles") return { bytes: Math.min(size, MAX_CARD_PLAIN_BYTES) };
  const limit = kind === "pdf" ? MAX_PDF_BYTES : MAX_ARCHIVE_BYTES;
  return size > limit ? { tooLarge: limit } : { bytes: size };
}

/** The start of a longer UTF-8 text, cut back so that no character is split (a split one would fail decoding). */
export function utf8Prefix(bytes: Uint8Array): Uint8Array {
  for (let k = 0; k < Math.min(4, bytes.length); k++) {
    const b = bytes[bytes.length - 1 - k];
    if ((b & 0xc0) === 0x80) continue; // continuation byte: look further back for its lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > k + 1 ? bytes.subarray(0, bytes.length - 1 - k) : bytes;
  }
  return bytes;
}

/** A CSV/TSV line split into cells (quotes respected, no multi-line cells: a card shows the first rows). */
export function splitDelimited(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell === "") quoted = true;
    else if (ch === delimiter) cells.push(cell), (cell = "");
    else cell += ch;
  }
  cells.push(cell);
  return cells.map((c) => c.trim());
}

/**
 * The card of a document: its badge, a title from its first heading (else the file name) and its first lines.
 * `partial` says the bytes are only the start of a plain-text file. Throws the extractor's ParseLimitError.
 * @example await documentCard(bytes, "text/csv", "цены.csv") // { badge: "CSV", title: "цены.csv", lines: [{ type: "row", … }] }
 */
export async function documentCard(bytes: Uint8Array, mime: string, fileName: string, partial = false): Promise<DocumentCard> {
  const kind = textKind(mime, fileName) ?? "plain";
  const ext = /\.([a-z0-9]{1,10})$/i.exec(fileName)?.[1]?.toLowerCase() ?? "";
  const badge = BADGES.has(ext) ? ext.toUpperCase() : KIND_BADGE[kind];
  const { blocks } = await extractDocument(partial ? utf8Prefix(bytes) : bytes, mime, fileName, "card");
  const lines: DocumentCard["lines"] = [];
  const delimiter = ext === "tsv" || mime.includes("tab-separated") ? "\t" : ext === "csv" || /csv/i.test(mime) ? null : undefined;
  const markdown = isMarkdown(mime, fileName);
  let sep: string | null = null;
  for (const block of blocks.slice(0, MAX_CARD_LINES)) {
    if (block.type === "row") lines.push({ type: "row", cells: block.cells });
    else if (block.type === "sheet") lines.push({ type: "heading", text: block.name });
    else if (block.type === "heading") lines.push({ type: "heading", text: block.text });
    else if (markdown && /^#{1,6}\s/.test(block.text)) lines.push({ type: "heading", text: markdownLine(block.text.replace(/^#{1,6}\s+/, "")) });
    else if (markdown) {
      if (!/^\s*(```|~~~)/.test(block.text)) lines.push({ type: "paragraph", text: markdownLine(block.text) });
    }
    else if (delimiter !== undefined && block.text.trim()) {
      // CSV: the delimiter is whichever of , ; and tab the first line has most of.
      sep ??= delimiter ?? [",", ";", "\t"].sort((a, b) => block.text.split(b).length - block.text.split(a).length)[0];
      lines.push({ type: "row", cells: splitDelimited(block.text, sep) });
    } else {
      // A card draws each line on its own: a block's line breaks (a PDF page's lines, a DOCX break) would otherwise
      // be dropped as control characters and run the lines together; a PDF's pages are set apart by a gap.
      if (kind === "pdf" && lines.length > 0) lines.push({ type: "paragraph", text: "" });
      for (const line of block.text.split("\n")) lines.push({ type: "paragraph", text: line });
    }
  }
  if (lines.length > MAX_CARD_LINES) lines.length = MAX_CARD_LINES;
  // Leading empty lines say nothing on a card.
  while (lines.length && lines[0].type !== "row" && !lines[0].text.trim()) lines.shift();
  let title = fileName;
  const first = lines.findIndex((l) => l.type === "heading");
  if (first === 0 || (first > 0 && first < 3)) title = (lines.splice(first, 1)[0] as { text: string }).text;
  return { badge, accent: ACCENTS[badge] ?? "#5f6368", title, lines, empty: ru.processing.cardEmpty };
}
