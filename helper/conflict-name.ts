import { withoutInvisibleChars } from "../shared/visible-name.ts";

/**
 * The name a conflicting local copy takes: «Отчёт (конфликт 2026-11-26).docx». Both sides changed a file since the
 * last sync, so neither may be lost: the server's version keeps the original name, the local one is renamed with
 * this name and uploaded as a new file. A second conflict on the same day numbers the copies: «… (конфликт
 * 2026-11-26 2).docx».
 * @example conflictName("Отчёт.docx", new Date("2026-11-26"), () => false) // "Отчёт (конфликт 2026-11-26).docx"
 */
export function conflictName(name: string, when: Date, taken: (candidate: string) => boolean): string {
  const dot = name.lastIndexOf(".");
  // A leading dot (".env") or no dot: the whole name is the stem.
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  const day = when.toISOString().slice(0, 10);
  for (let n = 1; ; n++) {
    const candidate = `${stem} (конфликт ${day}${n === 1 ? "" : ` ${n}`})${ext}`;
    if (!taken(candidate)) return candidate;
  }
}

/**
 * A remote file name made safe as one local path segment: no separators, no control characters, not "." or "..", and
 * no invisible or direction-changing characters (a name stored before the server refused them must not show on the
 * user's disk as something else: «\u202Egpj.exe» as «exe.jpg»).
 */
export function localNameOf(remoteName: string): string {
  const cleaned = withoutInvisibleChars(remoteName.replace(/[\u0000-\u001f/\\]/g, "_")).trim();
  if (cleaned === "" || cleaned === "." || cleaned === "..") return "_";
  // Names starting with a dot are the helper's own (.mam-helper, .trash) or hidden: keep them visible and ours apart.
  return cleaned.startsWith(".") ? `_${cleaned}` : cleaned;
}

/** The first of `name`, «name (2).ext», «name (3).ext» … that `taken` refuses. */
export function uniqueName(name: string, taken: (candidate: string) => boolean): string {
  if (!taken(name)) return name;
  const dot = name.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  for (let n = 2; ; n++) {
    const candidate = `${stem} (${n})${ext}`;
    if (!taken(candidate)) return candidate;
  }
}
