/** How /editor/{id} handles a file, from its name (extension) and MIME type. */
export type EditorKind = "text" | "office" | "pdf" | "image" | "other";

/** Edited in the built-in text editor: plain text, Markdown, CSV, JSON and their close relatives. */
const TEXT_EXTENSIONS = new Set(["txt", "md", "markdown", "csv", "tsv", "json", "log"]);
const TEXT_TYPES = new Set(["text/plain", "text/markdown", "text/csv", "text/tab-separated-values", "application/json"]);
/** Office formats an office editor opens; the first six are also shown read-only without one. */
const OFFICE_EXTENSIONS = new Set(["docx", "xlsx", "pptx", "odt", "ods", "odp", "doc", "xls", "ppt", "rtf", "odg"]);
export const RENDERED_EXTENSIONS = new Set(["docx", "xlsx", "pptx", "odt", "ods", "odp"]);

export function extensionOf(name: string): string {
  return /\.([A-Za-z0-9]{1,10})$/.exec(name)?.[1].toLowerCase() ?? "";
}

export function editorKind(name: string, mime: string | null | undefined): EditorKind {
  const ext = extensionOf(name);
  const m = (mime ?? "").toLowerCase().split(";")[0].trim();
  if (TEXT_EXTENSIONS.has(ext) || TEXT_TYPES.has(m)) return "text";
  if (OFFICE_EXTENSIONS.has(ext) || m.includes("officedocument") || m.includes("opendocument") || m === "application/msword") return "office";
  if (ext === "pdf" || m === "application/pdf") return "pdf";
  if (m.startsWith("image/")) return "image";
  return "other";
}

/** Whether "Открыть в редакторе" is offered for a file: office documents and text files. */
export function opensInEditor(name: string, mime: string | null | undefined): boolean {
  const kind = editorKind(name, mime);
  return kind === "text" || kind === "office";
}
