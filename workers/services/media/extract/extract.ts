import { ru } from "../../../../shared/i18n/ru";
import { Collector, type ExtractedText } from "./collector";
import { ParseLimitError } from "./parse-limit";
import { MAX_CARD_CHARS, MAX_INDEX_CHARS, MAX_VIEW_CHARS } from "./limits";
import { OFFICE_KINDS, readOffice, type OfficeKind } from "./office";
import { decodeText, jsonText, markdownText, subtitleText } from "./plain";
import { pdfPages } from "./pdf";
import { BoundedZip } from "./zip";

/**
 * The one text extractor (issue 25, decision 027): search indexing, RAG passages, WOPI `/text` and the tech-fields
 * task all read documents here. Plain text, Markdown, CSV, JSON, subtitles, office documents (DOCX, XLSX, PPTX, ODT,
 * ODS, ODP) and, for the index, PDF. Every step keeps the limits of limits.ts and throws a ParseLimitError when a
 * file crosses one; a file of a type we do not read answers `kind: null`.
 *
 * Two purposes: "view" (WOPI `/text`: the document's shape as blocks, raw Markdown and JSON as written, up to
 * MAX_VIEW_CHARS) and "index" (what a reader sees: Markdown marks, JSON keys and subtitle timings dropped, PDF
 * pages, headers, footers and notes included, up to MAX_INDEX_CHARS); and "card" (the first MAX_CARD_CHARS of any
 * readable type, PDF included, shaped as for "view": what a text-card preview draws, decision 029).
 */

export type ExtractPurpose = "view" | "index" | "card";
export type TextKind = "plain" | "json" | "subtitles" | "pdf" | OfficeKind;

const PLAIN_TYPES = new Set([
  "application/json",
  "application/ld+json",
  "application/x-subrip",
  "application/xml",
  "application/javascript",
  "application/x-ndjson",
  "application/yaml",
  "application/x-yaml",
  "application/csv",
]);
const PLAIN_EXTENSIONS = /\.(txt|md|markdown|csv|tsv|json|srt|vtt|xml|yaml|yml|log|ini)$/i;

const OFFICE_TYPES: Record<string, OfficeKind> = {
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.oasis.opendocument.text": "odt",
  "application/vnd.oasis.opendocument.spreadsheet": "ods",
  "application/vnd.oasis.opendocument.presentation": "odp",
};

/** Which reader fits a file, by MIME type first and file extension second; null when none does. */
export function textKind(mime: string, fileName = ""): TextKind | null {
  const m = mime.split(";")[0].trim().toLowerCase();
  const ext = /\.([a-z0-9]{1,10})$/i.exec(fileName)?.[1]?.toLowerCase() ?? "";
  if (m === "application/pdf" || ext === "pdf") return "pdf";
  if (OFFICE_TYPES[m]) return OFFICE_TYPES[m];
  if ((OFFICE_KINDS as readonly string[]).includes(ext)) return ext as OfficeKind;
  if (m === "text/vtt" || m === "application/x-subrip" || ext === "srt" || ext === "vtt") return "subtitles";
  if (m === "application/json" || m.endsWith("+json") || ext === "json") return "json";
  if (m.startsWith("text/") || PLAIN_TYPES.has(m) || PLAIN_EXTENSIONS.test(fileName)) return "plain";
  return null;
}

/** Whether WOPI `/text` reads this type (the plain family and office documents; PDFs are viewed as PDFs). */
export function viewKind(mime: string, fileName: string): "plain" | OfficeKind | null {
  const kind = textKind(mime, fileName);
  if (kind === null || kind === "pdf") return null;
  return kind === "json" || kind === "subtitles" ? "plain" : kind;
}

export const isMarkdown = (mime: string, fileName: string) => /\.(md|markdown)$/i.test(fileName) || /^text\/(x-)?markdown\b/i.test(mime);

function linesInto(c: Collector, text: string): void {
  for (const line of text.split(/\r?\n/)) if (!c.add({ type: "paragraph", text: line })) break;
}

/**
 * The text and blocks of a file. Throws a ParseLimitError past a limit.
 * @example const { text } = await extractDocument(bytes, "application/vnd.oasis.opendocument.text", "Отчёт.odt")
 */
export async function extractDocument(bytes: Uint8Array, mime: string, fileName: string, purpose: ExtractPurpose = "view"): Promise<ExtractedText> {
  const kind = purpose === "view" ? viewKind(mime, fileName) : textKind(mime, fileName);
  const maxChars = purpose === "view" ? MAX_VIEW_CHARS : purpose === "card" ? MAX_CARD_CHARS : MAX_INDEX_CHARS;
  const c = new Collector(maxChars);
  const empty: ExtractedText = { kind: null, text: "", blocks: [], truncated: false };
  if (kind === null) return empty;
  if (kind === "plain" || kind === "json" || kind === "subtitles") {
    // Decoded text is cut before it is split: a 16 MiB one-line file costs one slice, not a 16 MiB pattern run.
    let text = decodeText(bytes);
    const cut = text.length > maxChars * 2;
    if (cut) text = text.slice(0, maxChars * 2);
    if (purpose === "index") {
      if (kind === "json") text = jsonText(text);
      else if (kind === "subtitles") text = subtitleText(text);
      else if (isMarkdown(mime, fileName)) text = markdownText(text);
    }
    linesInto(c, text);
    if (cut) c.truncated = true;
    return c.result("plain");
  }
  if (kind === "pdf") {
    for (const page of await pdfPages(bytes, maxChars)) if (page && !c.add({ type: "paragraph", text: page })) break;
    return c.result("pdf");
  }
  const zip = BoundedZip.open(bytes);
  // An office file that is no archive at all is truncated or mislabelled: refused with why, not «no text».
  if (!zip) throw new ParseLimitError(ru.parse.corruptArchive(ru.parse.noDirectory));
  if (!readOffice(kind, zip, c, purpose === "index")) return empty;
  return c.result(kind);
}

/**
 * The text of a file for the search index and RAG, or null when its type has no reader or it holds no text.
 * @example await extractSearchText("text/markdown", "notes.md", bytes) // "Заметки …"
 */
export async function extractSearchText(mime: string, fileName: string, bytes: Uint8Array): Promise<string | null> {
  const { text } = await extractDocument(bytes, mime, fileName, "index");
  const clean = text.replace(/\u0000/g, "").trim();
  return clean || null;
}
