import { CsvTable } from "./csv-table";
import { MarkdownView } from "./markdown-view";

const base = (mime: string) => mime.split(";")[0].trim().toLowerCase();

/** Whether a text file is Markdown (by type or name), drawn rendered rather than as source. */
export const isMarkdownFile = (mime: string, name: string) => /^text\/(x-)?markdown$/.test(base(mime)) || /\.(md|markdown)$/i.test(name);

/** Whether a text file is a table (CSV or TSV, by type or name); `tab` for tab-separated. */
export function tableKind(mime: string, name: string): { tab: boolean } | null {
  const m = base(mime);
  if (m === "text/tab-separated-values" || /\.tsv$/i.test(name)) return { tab: true };
  if (m === "text/csv" || m === "application/csv" || /\.csv$/i.test(name)) return { tab: false };
  return null;
}

/** The start of a text file in the viewer: Markdown rendered, CSV/TSV as a table, anything else as written. */
export function TextPreview({ source, cut, mime, name }: { source: string; cut: boolean; mime: string; name: string }) {
  if (isMarkdownFile(mime, name)) return <MarkdownView source={source} />;
  const table = tableKind(mime, name);
  if (table) return <CsvTable source={source} cut={cut} tab={table.tab} />;
  return <pre className="text-preview">{source}</pre>;
}
