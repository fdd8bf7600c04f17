import { OFFICE_KINDS } from "./extract/office";
import { textKind } from "./extract/extract";
import { BoundedZip } from "./extract/zip";

/**
 * Where office suites store a picture of a document's first page: Word, Excel and PowerPoint save
 * `docProps/thumbnail.jpeg` (or .png) when «Save preview picture» is on (the default on macOS), LibreOffice saves
 * `Thumbnails/thumbnail.png` in every ODF file. EMF/WMF thumbnails (Windows) are not raster and are left out.
 */
const THUMBNAIL_PARTS: readonly { name: string; mime: "image/jpeg" | "image/png" }[] = [
  { name: "docProps/thumbnail.jpeg", mime: "image/jpeg" },
  { name: "docProps/thumbnail.jpg", mime: "image/jpeg" },
  { name: "docProps/thumbnail.png", mime: "image/png" },
  { name: "Thumbnails/thumbnail.png", mime: "image/png" },
];

/**
 * The page picture an office document carries, read through the bounded ZIP reader (its limits and ParseLimitError
 * apply); null when the file is no office document or holds none. The caller decodes it with its size checks.
 * @example officeThumbnail(bytes, DOCX_MIME, "Отчёт.docx") // { mime: "image/jpeg", bytes: Uint8Array(…) }
 */
export function officeThumbnail(bytes: Uint8Array, mime: string, fileName: string): { mime: "image/jpeg" | "image/png"; bytes: Uint8Array; part: string } | null {
  const kind = textKind(mime, fileName);
  if (!kind || !(OFFICE_KINDS as readonly string[]).includes(kind)) return null;
  const zip = BoundedZip.open(bytes);
  if (!zip) return null;
  for (const part of THUMBNAIL_PARTS) {
    const entry = zip.entry(part.name);
    const data = entry ? zip.read(entry) : null;
    if (data && data.length > 0) return { mime: part.mime, bytes: data, part: part.name };
  }
  return null;
}
