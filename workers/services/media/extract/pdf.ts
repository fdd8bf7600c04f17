import { ru } from "../../../../shared/i18n/ru";
import { MAX_PDF_BYTES, MAX_PDF_PAGES, PDF_TIME_BUDGET_MS } from "./limits";
import { mib, ParseLimitError } from "./parse-limit";
import { checkPdfStreams } from "./pdf-streams";

/** A promise that rejects with `error` after `ms` (the timer is cleared when `work` settles first). */
export async function withinTime<T>(work: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(error()), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** A text item of PDF.js: its string, whether a line ends after it, and its position (`transform[5]` is y). */
interface PdfTextItem {
  str: string;
  hasEOL: boolean;
  transform: number[];
  height: number;
}

/**
 * One page's text with its lines: a line ends where PDF.js says so or where the next item sits on another baseline
 * (a PDF placing each line on its own says nothing else), and a blank line marks a paragraph gap (a step down of
 * more than 1.5 lines). Items on one line are joined as written; runs of spaces become one.
 */
export function pageText(items: readonly (PdfTextItem | { type: string })[]): string {
  let out = "";
  let lastY: number | null = null;
  let lastHeight = 0;
  let lineEnded = false;
  for (const item of items) {
    if (!("str" in item)) continue;
    const y = item.transform[5];
    if (lastY !== null && !lineEnded && Math.abs(y - lastY) > Math.max(1, lastHeight / 2)) out += "\n";
    if (lastY !== null && lastHeight > 0 && lastY - y > lastHeight * 2.2 && out.length > 0 && !out.endsWith("\n\n")) {
      out += out.endsWith("\n") ? "\n" : "\n\n";
    }
    out += item.str;
    lineEnded = item.hasEOL;
    if (item.hasEOL) out += "\n";
    lastY = y;
    lastHeight = item.height || lastHeight;
  }
  return out
    .split("\n")
    .map((line) => line.replace(/[ \t]+/g, " ").trim())
    .join("\n")
    .trim();
}

/**
 * The text of a PDF's pages through unpdf (a serverless build of PDF.js, loaded only when a PDF comes), one string
 * per page: at most MAX_PDF_PAGES pages, until `maxChars`, within PDF_TIME_BUDGET_MS (checked between pages and
 * raced against the whole read, so a reference loop inside one page also ends). Larger than MAX_PDF_BYTES: refused.
 * PDF.js inflates compressed streams without an output limit, so they are counted first (pdf-streams.ts): a
 * deflate bomb is refused before PDF.js sees it.
 */
export async function pdfPages(bytes: Uint8Array, maxChars: number): Promise<string[]> {
  if (bytes.length > MAX_PDF_BYTES) throw new ParseLimitError(ru.parse.pdfTooLarge(mib(MAX_PDF_BYTES)), 413);
  checkPdfStreams(bytes);
  const { getDocumentProxy } = await import("unpdf");
  const started = Date.now();
  const timeUp = () => new ParseLimitError(ru.parse.pdfTime(PDF_TIME_BUDGET_MS / 1000));
  // PDF.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  const broken = (error: unknown): never => {
    throw error instanceof ParseLimitError ? error : new ParseLimitError(ru.parse.pdfCorrupt);
  };
  // A PDF that PDF.js cannot read is broken for good: a ParseLimitError, never a retried task.
  const pdf = await withinTime(getDocumentProxy(bytes.slice(), { verbosity: 0 }), PDF_TIME_BUDGET_MS, timeUp).catch(broken);
  try {
    const pages: string[] = [];
    let chars = 0;
    for (let n = 1; n <= Math.min(pdf.numPages, MAX_PDF_PAGES) && chars < maxChars; n++) {
      const left = PDF_TIME_BUDGET_MS - (Date.now() - started);
      if (left <= 0) throw timeUp();
      const content = await withinTime(
        pdf.getPage(n).then((page) => page.getTextContent()),
        left,
        timeUp,
      ).catch(broken);
      const text = pageText(content.items);
      pages.push(text);
      chars += text.length;
    }
    return pages;
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}
