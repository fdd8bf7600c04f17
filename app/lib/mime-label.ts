import { ru } from "../i18n/ru";

type Kind = keyof typeof ru.mime.kinds;

/** Types whose subtype says nothing to people (vnd.openxmlformats-…, x-zip-compressed): kind and format by hand. */
const KNOWN: Record<string, [Kind, string]> = {
  "application/pdf": ["document", "PDF"],
  "application/msword": ["document", "Word"],
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ["document", "Word"],
  "application/rtf": ["document", "RTF"],
  "application/vnd.oasis.opendocument.text": ["document", "ODT"],
  "application/vnd.ms-excel": ["spreadsheet", "Excel"],
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ["spreadsheet", "Excel"],
  "application/vnd.oasis.opendocument.spreadsheet": ["spreadsheet", "ODS"],
  "text/csv": ["spreadsheet", "CSV"],
  "application/vnd.ms-powerpoint": ["presentation", "PowerPoint"],
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": ["presentation", "PowerPoint"],
  "application/vnd.oasis.opendocument.presentation": ["presentation", "ODP"],
  "application/zip": ["archive", "ZIP"],
  "application/x-zip-compressed": ["archive", "ZIP"],
  "application/x-7z-compressed": ["archive", "7Z"],
  "application/vnd.rar": ["archive", "RAR"],
  "application/x-rar-compressed": ["archive", "RAR"],
  "application/gzip": ["archive", "GZIP"],
  "application/x-gzip": ["archive", "GZIP"],
  "application/x-tar": ["archive", "TAR"],
  "application/json": ["data", "JSON"],
  "application/xml": ["data", "XML"],
  "text/xml": ["data", "XML"],
  "application/x-yaml": ["data", "YAML"],
  "application/yaml": ["data", "YAML"],
  "text/html": ["page", "HTML"],
  "text/markdown": ["text", "Markdown"],
  "image/svg+xml": ["image", "SVG"],
  "image/x-icon": ["icon", "ICO"],
  "image/vnd.microsoft.icon": ["icon", "ICO"],
  "video/quicktime": ["video", "MOV"],
  "video/x-matroska": ["video", "MKV"],
  "video/x-msvideo": ["video", "AVI"],
  "audio/mpeg": ["audio", "MP3"],
  "audio/mp4": ["audio", "M4A"],
  "audio/x-m4a": ["audio", "M4A"],
  "audio/wav": ["audio", "WAV"],
  "audio/x-wav": ["audio", "WAV"],
};

/** Top-level types that name their kind; anything under application/ is a «Файл» of its format. */
const TOP_LEVEL: Record<string, Kind> = { image: "image", video: "video", audio: "audio", text: "text", font: "font", model: "model" };

/** The format part of a subtype: vnd./x- prefixes and +xml/+json suffixes dropped, upper-cased, kept short. */
function formatOf(subtype: string): string {
  const last = subtype.replace(/\+(xml|json|zip)$/, "").split(".").pop() ?? "";
  return last.replace(/^x-/, "").toUpperCase().slice(0, 16);
}

/**
 * A MIME type as people read it: «Изображение JPEG», «Видео MP4», «Документ PDF», «Архив ZIP»; plain text is
 * just «Текст» and octet-stream «Двоичный файл». Unknown or missing types answer «Файл».
 */
export function mimeLabel(mime: string | null | undefined): string {
  const m = (mime ?? "").toLowerCase().split(";")[0].trim();
  if (m === "text/plain") return ru.mime.kinds.text;
  if (m === "application/octet-stream") return ru.mime.binary;
  const known = KNOWN[m];
  if (known) return `${ru.mime.kinds[known[0]]} ${known[1]}`;
  const [top, subtype = ""] = m.split("/");
  const format = formatOf(subtype);
  const kind = TOP_LEVEL[top] ?? (top === "application" ? "file" : null);
  if (!kind || !format) return ru.mime.unknown;
  return `${ru.mime.kinds[kind]} ${format}`;
}
