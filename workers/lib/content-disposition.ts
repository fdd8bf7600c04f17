/**
 * `Content-Disposition` for downloads (RFC 6266 with RFC 8187/5987 `filename*`). A file name is user data: it may
 * hold Cyrillic, emoji, quotes, backslashes, even line breaks, and none of that may break or inject into the header.
 */

// C0 controls, DEL and C1 controls: never part of a header value.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;

/** The name as it should be offered: well-formed Unicode, no control characters, no path separators. */
export function cleanFileName(name: string): string {
  const cleaned = name.replace(LONE_SURROGATE, "\uFFFD").replace(CONTROL, "").replace(/[/\\]/g, "_").trim();
  return cleaned === "" || cleaned === "." || cleaned === ".." ? "download" : cleaned;
}

/** RFC 8187 `value-chars`: UTF-8 percent-encoding of everything but `attr-char`. */
export function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The `filename="…"` fallback for old clients: printable ASCII only, quotes and backslashes escaped. */
function asciiFallback(name: string): string {
  let out = "";
  for (const ch of name) out += /^[\u0020-\u007e]$/.test(ch) && ch !== "%" ? ch : "_";
  return out.replace(/["\\]/g, (c) => `\\${c}`);
}

/**
 * Builds the header value. Pure printable-ASCII names get only the quoted `filename`; any other name also gets
 * `filename*=UTF-8''…`, which every current browser prefers.
 * @example contentDisposition("клип.mp4")
 * // attachment; filename="____.mp4"; filename*=UTF-8''%D0%BA%D0%BB%D0%B8%D0%BF.mp4
 */
export function contentDisposition(fileName: string, type: "attachment" | "inline" = "attachment"): string {
  const name = cleanFileName(fileName);
  const header = `${type}; filename="${asciiFallback(name)}"`;
  return PRINTABLE_ASCII.test(name) && !name.includes("%") ? header : `${header}; filename*=UTF-8''${encodeRfc8187(name)}`;
}
