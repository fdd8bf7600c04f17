import { MARK_END, MARK_START } from "../../db/repositories/search.repository";

/** The index's folding of a text (migration 0013): ё → е and Ё → Е, one character for one, so positions carry over. */
export const foldYo = (text: string): string => text.replace(/ё/g, "е").replace(/Ё/g, "Е");

/** The ellipsis FTS5 puts where a snippet cuts the column's text (search.repository `highlightsOf`). */
const CUT = "…";

/** Puts the original characters under a folded, marked fragment found at `at` of the original text. */
function unfold(original: string, marked: string, at: number): string {
  let out = "";
  let i = at;
  for (const c of marked) {
    if (c === MARK_START || c === MARK_END) out += c;
    else {
      out += original.slice(i, i + c.length) || c;
      i += c.length;
    }
  }
  return out;
}

/**
 * A snippet of the folded index text shown in the words of the original text (issue 28: «Отчет по съемке» where the
 * file says «Отчёт по съёмке»). The snippet is a verbatim run of the folded column with match marks and, where it
 * cuts the text, a leading or trailing «…»; the run is found in the folded original and read back from the
 * original, marks kept where they were. A snippet that cannot be placed is answered as it is.
 *
 * @example restoreSnippet("Отчёт по съёмке", "\u0002Отчет\u0003 по съемке") // "\u0002Отчёт\u0003 по съёмке"
 */
export function restoreSnippet(original: string, snippet: string): string {
  if (!snippet || original === foldYo(original)) return snippet;
  const folded = foldYo(original);
  const head = snippet.startsWith(CUT) ? CUT : "";
  const tail = snippet.length > head.length && snippet.endsWith(CUT) ? CUT : "";
  // With the cuts taken off first; a «…» that is the text's own is tried as text after that.
  for (const [prefix, core, suffix] of [
    [head, snippet.slice(head.length, snippet.length - tail.length), tail],
    ["", snippet, ""],
  ]) {
    const plain = core.replaceAll(MARK_START, "").replaceAll(MARK_END, "");
    const at = plain ? folded.indexOf(plain) : -1;
    if (at >= 0) return prefix + unfold(original, core, at) + suffix;
  }
  return snippet;
}
