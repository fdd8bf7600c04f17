/** What an image file's first bytes say it is, whatever its name or declared type claims. */
export type ImageKind = "jpeg" | "png" | "webp" | "gif" | "tiff" | "heif" | "avif" | "cr3" | "svg" | "bmp";

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));

/** Sniffs the magic bytes (the extension and the declared type may lie); null when no image kind matches. */
export function sniffImage(head: Uint8Array): ImageKind | null {
  if (head.length < 12) return null;
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpeg";
  if (head[0] === 0x89 && ascii(head, 1, 3) === "PNG") return "png";
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 4) === "WEBP") return "webp";
  if (ascii(head, 0, 4) === "GIF8") return "gif";
  if ((head[0] === 0x49 && head[1] === 0x49 && head[2] === 42 && head[3] === 0) || (head[0] === 0x4d && head[1] === 0x4d && head[2] === 0 && head[3] === 42)) return "tiff";
  if (ascii(head, 0, 2) === "BM") return "bmp";
  if (ascii(head, 4, 4) === "ftyp") {
    const size = Math.min(head.length, ((head[0] << 24) | (head[1] << 16) | (head[2] << 8) | head[3]) >>> 0);
    const brands = [ascii(head, 8, 4)];
    for (let at = 16; at + 4 <= size; at += 4) brands.push(ascii(head, at, 4));
    if (brands[0] === "crx ") return "cr3";
    if (brands[0] === "avif" || brands[0] === "avis") return "avif";
    if (["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].includes(brands[0])) return brands.includes("avif") && !brands.includes("heic") ? "avif" : "heif";
    return null;
  }
  return startsWithSvg(new TextDecoder("utf-8", { fatal: false }).decode(head.subarray(0, 4096))) ? "svg" : null;
}

/**
 * Whether text's first element (after a BOM, an XML declaration, comments or a doctype) is `<svg`: one forward walk.
 * (A pattern with a repeated group of lazy comments backtracked exponentially: 22 empty comments before a non-SVG
 * took 0.3 s, 40 would take hours.)
 */
function startsWithSvg(text: string): boolean {
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at])) at++;
  };
  const startsHere = (word: string) => text.slice(at, at + word.length).toLowerCase() === word;
  skipSpace();
  if (startsHere("<?xml")) {
    const end = text.indexOf(">", at);
    if (end < 0) return false;
    at = end + 1;
  }
  for (;;) {
    skipSpace();
    if (startsHere("<!--")) {
      const end = text.indexOf("-->", at + 4);
      if (end < 0) return false;
      at = end + 3;
    } else if (startsHere("<!doctype")) {
      const end = text.indexOf(">", at);
      if (end < 0) return false;
      at = end + 1;
    } else return startsHere("<svg") && at + 4 < text.length && /[\s>]/.test(text[at + 4]);
  }
}
