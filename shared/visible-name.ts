/**
 * Characters that change how a name reads without being seen: every Unicode format character (`\p{Cf}`: the bidi
 * overrides and isolates U+202A–202E and U+2066–2069, the marks U+200E/200F/061C, zero-width U+200B–200D, U+2060–2064,
 * U+FEFF, the soft hyphen U+00AD, the tag characters U+E0000–E007F …), the line and paragraph separators, and the
 * blank letters that render as nothing (U+034F, U+115F, U+1160, U+17B4, U+17B5, U+180B–180F, U+3164, U+FFA0). With
 * U+202E «\u202Egpj.exe» shows as «exe.jpg» on screen, in Content-Disposition and on the disk helper's side.
 *
 * One exception keeps emoji intact: U+200D (zero-width joiner) between two pictographs, as in 👨‍👩‍👧.
 * Pure and dependency-free: the Worker's schemas, the browser forms and the disk helper (plain Node) all import it.
 */
const INVISIBLE = /[\p{Cf}\u2028\u2029\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0]/gu;
const PICTOGRAPH_BEFORE = /[\p{Extended_Pictographic}\u{1f3fb}-\u{1f3ff}\ufe0f]$/u;
const PICTOGRAPH_AFTER = /^\p{Extended_Pictographic}/u;

/**
 * The first invisible or direction-changing character of `value` as `U+XXXX`, or null when it has none.
 * @example invisibleCharIn("\u202Egpj.exe") // "U+202E"
 * @example invisibleCharIn("Семья 👨‍👩‍👧.jpg") // null
 */
export function invisibleCharIn(value: string): string | null {
  for (const match of value.matchAll(INVISIBLE)) {
    const at = match.index;
    const char = match[0];
    if (char === "\u200d" && PICTOGRAPH_BEFORE.test(value.slice(0, at)) && PICTOGRAPH_AFTER.test(value.slice(at + 1))) continue;
    return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return null;
}

/**
 * `value` with every invisible character replaced by `replacement` (names already stored, shown where they could
 * mislead: a local file name of the disk helper).
 */
export function withoutInvisibleChars(value: string, replacement = "_"): string {
  let out = "";
  let last = 0;
  for (const match of value.matchAll(INVISIBLE)) {
    const at = match.index;
    if (match[0] === "\u200d" && PICTOGRAPH_BEFORE.test(value.slice(0, at)) && PICTOGRAPH_AFTER.test(value.slice(at + 1))) continue;
    out += value.slice(last, at) + replacement;
    last = at + match[0].length;
  }
  return out + value.slice(last);
}
