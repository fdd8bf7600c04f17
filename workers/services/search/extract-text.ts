/**
 * Text of a document, for the search index and for RAG passages (decision 011). Plain text, Markdown, CSV, JSON,
 * subtitles (SRT, WebVTT) and office XML documents (docx, xlsx, pptx, odt, ods, odp: zip archives of XML) are read
 * in workerd with no library; PDF text through `unpdf` (a serverless build of Mozilla's PDF.js, loaded only when a
 * PDF comes); other types answer null. Exported for reuse (the WOPI text-data call).
 */

/** Characters kept of one document: enough for its passages, bounded so one row stays small. */
export const MAX_TEXT_CHARS = 200_000;

const PLAIN = new Set([
  "application/json",
  "application/ld+json",
  "application/x-subrip",
  "application/xml",
  "application/x-ndjson",
  "application/yaml",
  "application/x-yaml",
]);
const PLAIN_EXTENSIONS = /\.(txt|md|markdown|csv|tsv|json|srt|vtt|xml|yaml|yml|log|ini)$/i;

const OFFICE: Record<string, (name: string) => boolean> = {
  docx: (n) => n === "word/document.xml" || /^word\/(header|footer|footnotes)\d*\.xml$/.test(n),
  xlsx: (n) => n === "xl/sharedStrings.xml" || /^xl\/worksheets\/sheet\d+\.xml$/.test(n),
  pptx: (n) => /^ppt\/slides\/slide\d+\.xml$/.test(n) || /^ppt\/notesSlides\/notesSlide\d+\.xml$/.test(n),
  odt: (n) => n === "content.xml",
  ods: (n) => n === "content.xml",
  odp: (n) => n === "content.xml",
};
const OFFICE_MIMES: Record<string, keyof typeof OFFICE> = {
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.oasis.opendocument.text": "odt",
  "application/vnd.oasis.opendocument.spreadsheet": "ods",
  "application/vnd.oasis.opendocument.presentation": "odp",
};

/** Pages of a PDF read for text: enough for search and passages, bounded so a 5,000-page scan stays one task. */
export const MAX_PDF_PAGES = 300;

/** Which extractor fits a file, by MIME type first and file extension second; null when none does. */
export function textKind(mime: string, fileName = ""): "plain" | "json" | "subtitles" | "pdf" | keyof typeof OFFICE | null {
  const m = mime.split(";")[0].trim().toLowerCase();
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase() ?? "";
  if (m === "application/pdf" || ext === "pdf") return "pdf";
  if (OFFICE_MIMES[m]) return OFFICE_MIMES[m];
  if (ext in OFFICE) return ext as keyof typeof OFFICE;
  if (m === "text/vtt" || m === "application/x-subrip" || ext === "srt" || ext === "vtt") return "subtitles";
  if (m === "application/json" || m.endsWith("+json") || ext === "json") return "json";
  if (m.startsWith("text/") || PLAIN.has(m) || PLAIN_EXTENSIONS.test(fileName)) return "plain";
  return null;
}

/** UTF-8 (with or without BOM), else Windows-1251 when the bytes are not valid UTF-8 (old Russian text files). */
export function decodeText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1251").decode(bytes);
  }
}

/** The string values of a JSON document (keys and punctuation say little), or the raw text if it is not JSON. */
function jsonText(text: string): string {
  try {
    const out: string[] = [];
    const walk = (v: unknown) => {
      if (typeof v === "string" || typeof v === "number") out.push(String(v));
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") Object.values(v).forEach(walk);
    };
    walk(JSON.parse(text));
    return out.join("\n");
  } catch {
    return text;
  }
}

/** Subtitle cues without numbers, timings and markup. */
function subtitleText(text: string): string {
  return text
    .split(/\r?\n/)
    .filter((line) => !/^\s*(\d+|WEBVTT.*|NOTE.*|[\d:.,]+\s*-->\s*[\d:.,]+.*)\s*$/.test(line))
    .map((line) => line.replace(/<[^>]*>/g, "").trim())
    .filter(Boolean)
    .join("\n");
}

/** Markdown as the text a reader sees: headings, quotes, list markers, emphasis, code fences and link targets dropped. */
export function markdownText(text: string): string {
  return text
    .split(/\r?\n/)
    .filter((line) => !/^\s*(```|~~~)/.test(line))
    .map((line) =>
      line
        .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+\[[ xX]\]\s+|[-*+]\s+|\d+[.)]\s+)/, "")
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
        // Emphasis and code marks only at word edges (snake_case names keep their underscores).
        .replace(/(^|[^\p{L}\p{N}])(\*\*|__|\*|_|`)(\S(?:.*?\S)?)\2(?![\p{L}\p{N}])/gu, "$1$3"),
    )
    .join("\n");
}

/** Text runs of an XML document; paragraph-like elements end a line. */
export function xmlText(xml: string): string {
  return xml
    .replace(/<\/(w:p|a:p|text:p|text:h|si|row|c)>/g, "\n")
    .replace(/<(w:tab|text:tab)\/>/g, "\t")
    .replace(/<[^>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, "&")
    .replace(/[ \t]*\n\s*/g, "\n")
    .trim();
}

async function inflateRaw(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data.slice()]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * The entries of a zip archive whose names pass `want`, decompressed (stored and deflated entries), in archive
 * order. Reads the central directory, so it needs the whole archive.
 */
export async function readZipEntries(bytes: Uint8Array, want: (name: string) => boolean): Promise<{ name: string; data: Uint8Array }[]> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 65_557); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return [];
  const count = view.getUint16(eocd + 10, true);
  let p = view.getUint32(eocd + 16, true);
  const names = new TextDecoder();
  const out: { name: string; data: Uint8Array }[] = [];
  for (let n = 0; n < count && p + 46 <= bytes.length; n++) {
    if (view.getUint32(p, true) !== 0x02014b50) break;
    const method = view.getUint16(p + 10, true);
    const size = view.getUint32(p + 20, true);
    const nameLength = view.getUint16(p + 28, true);
    const extra = view.getUint16(p + 30, true);
    const comment = view.getUint16(p + 32, true);
    const local = view.getUint32(p + 42, true);
    const name = names.decode(bytes.subarray(p + 46, p + 46 + nameLength));
    p += 46 + nameLength + extra + comment;
    if (!want(name) || local + 30 > bytes.length) continue;
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const raw = bytes.subarray(start, start + size);
    if (method === 0) out.push({ name, data: raw });
    else if (method === 8) out.push({ name, data: await inflateRaw(raw) });
  }
  return out;
}

/** The text of a PDF's pages (up to MAX_PDF_PAGES, or until MAX_TEXT_CHARS), one paragraph per page. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const { getDocumentProxy } = await import("unpdf");
  // PDF.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  const pdf = await getDocumentProxy(bytes.slice(), { verbosity: 0 });
  try {
    const pages: string[] = [];
    let chars = 0;
    for (let n = 1; n <= Math.min(pdf.numPages, MAX_PDF_PAGES) && chars < MAX_TEXT_CHARS; n++) {
      const content = await (await pdf.getPage(n)).getTextContent();
      const text = content.items
        .map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : ""))
        .join("")
        .replace(/[ \t]+/g, " ")
        .trim();
      pages.push(text);
      chars += text.length;
    }
    return pages.filter(Boolean).join("\n\n");
  } finally {
    await pdf.loadingTask.destroy();
  }
}

/** Natural order of `slide2.xml` before `slide10.xml`. */
const byNumber = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, "en", { numeric: true });

/**
 * The text of a file, or null when its type has no extractor or it holds no text.
 * @example await extractText("text/markdown", "notes.md", bytes) // "Заметки …"
 */
export async function extractText(mime: string, fileName: string, bytes: Uint8Array): Promise<string | null> {
  const kind = textKind(mime, fileName);
  if (!kind) return null;
  let text: string;
  if (kind === "plain") text = /\.(md|markdown)$/i.test(fileName) || /^text\/(x-)?markdown\b/i.test(mime) ? markdownText(decodeText(bytes)) : decodeText(bytes);
  else if (kind === "json") text = jsonText(decodeText(bytes));
  else if (kind === "subtitles") text = subtitleText(decodeText(bytes));
  else if (kind === "pdf") text = await pdfText(bytes);
  else {
    const entries = (await readZipEntries(bytes, OFFICE[kind])).sort(byNumber);
    text = entries.map((e) => xmlText(new TextDecoder().decode(e.data))).join("\n\n");
  }
  text = text.replace(/\u0000/g, "").trim();
  return text ? text.slice(0, MAX_TEXT_CHARS) : null;
}
