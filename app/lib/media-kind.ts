/** How the viewer shows a MIME type. */
export type MediaKind = "image" | "video" | "audio" | "pdf" | "text" | "other";

const TEXT_TYPES = new Set(["application/json", "application/xml", "application/javascript", "application/x-yaml", "application/yaml"]);

export function mediaKind(mime: string | null | undefined): MediaKind {
  const m = (mime ?? "").toLowerCase().split(";")[0].trim();
  if (m.startsWith("image/")) return "image";
  if (m.startsWith("video/")) return "video";
  if (m.startsWith("audio/")) return "audio";
  if (m === "application/pdf") return "pdf";
  if (m.startsWith("text/") || TEXT_TYPES.has(m)) return "text";
  return "other";
}

const UNITS = ["Б", "КБ", "МБ", "ГБ", "ТБ"];

/** A byte count for people, in Russian units: 1536 → "1,5 КБ". */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes == null || !Number.isFinite(bytes) || bytes < 0) return "—";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toLocaleString("ru-RU", { maximumFractionDigits: digits, minimumFractionDigits: 0 })} ${UNITS[unit]}`;
}
