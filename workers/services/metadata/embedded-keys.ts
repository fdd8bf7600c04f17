/**
 * Standard embedded-metadata keys (IPTC Core names in ExifTool's `Group:Tag` spelling) resolved against the
 * technical fields the tech-fields operation stored. exifr merges EXIF, XMP and IPTC-IIM into one flat `exif` object
 * without namespaces, so one standard key looks in several places, best first: the XMP property, then its IPTC-IIM
 * twin, then the EXIF tag. A template whose `field_def_extsys_key` is one of these keys is filled by the importer.
 */
const EMBEDDED_KEYS: Record<string, { paths: readonly string[]; date?: true }> = {
  "XMP-dc:Title": { paths: ["exif.title", "exif.ObjectName", "exif.Headline"] },
  "XMP-dc:Description": { paths: ["exif.description", "exif.Caption", "exif.ImageDescription"] },
  "XMP-dc:Subject": { paths: ["exif.subject", "exif.Keywords"] },
  "XMP-dc:Creator": { paths: ["exif.creator", "exif.Byline", "exif.Artist"] },
  "XMP-dc:Rights": { paths: ["exif.rights", "exif.CopyrightNotice", "exif.Copyright"] },
  "XMP-photoshop:Credit": { paths: ["exif.Credit"] },
  "XMP-xmpRights:UsageTerms": { paths: ["exif.UsageTerms"] },
  "XMP-photoshop:DateCreated": { paths: ["exif.DateCreated", "exif.DateTimeOriginal", "exif.CreateDate"], date: true },
  "XMP-iptcCore:Location": { paths: ["exif.Location", "exif.Sublocation", "exif.City"] },
};

/** Bounds the items taken from one list-valued property (a keyword list of a hostile file). */
const MAX_ITEMS = 200;

/**
 * XMP language alternatives come as `{ lang, value }` (one language) or a list of them: the text is `value`
 * (x-default first). IPTC dates come as `YYYYMMDD`; they become ISO dates.
 */
function plain(value: unknown, date: boolean): unknown {
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => plain(v, date));
    const langs = value.slice(0, MAX_ITEMS).filter((v): v is { lang: unknown; value: unknown } => typeof v === "object" && v !== null && "lang" in v);
    if (langs.length > 0 && langs.length === items.length) return plain(langs.find((v) => v.lang === "x-default") ?? langs[0], date);
    return items;
  }
  if (typeof value === "object" && value !== null && "value" in value) return plain((value as { value: unknown }).value, date);
  if (date && typeof value === "string" && value.length === 8 && /^\d{8}$/.test(value)) return `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6)}`;
  return value;
}

const empty = (v: unknown) => v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);

/** Adds each standard key that one of its places holds to `flat` (dotted keys of the technical fields), in place. */
export function addEmbeddedKeys(flat: Map<string, unknown>): void {
  for (const [key, { paths, date }] of Object.entries(EMBEDDED_KEYS)) {
    if (flat.has(key)) continue;
    for (const path of paths) {
      const value = plain(flat.get(path), date === true);
      if (empty(value)) continue;
      flat.set(key, value);
      break;
    }
  }
}
