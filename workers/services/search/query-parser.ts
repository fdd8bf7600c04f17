import { contentWords, stemPrefix, words } from "./tokenize";

/**
 * Turns what a user typed into an FTS5 MATCH expression. User text never reaches MATCH as syntax: it is cut into
 * words of letters and digits (quotes, `*`, `-`, `:`, parentheses, `NEAR`-as-operator cannot survive), and each
 * word becomes quoted terms. A word matches an indexed word that starts with its stem (`пляжа` → `"пляж"*`; a stem
 * longer than 8 letters by its first 8) or that is a shorter form of it of at least 4 letters (`фотографии` →
 * `"фото"`, `"фотог"` …), so `фотографии пляжа` finds `Фото-пляж.jpg`. Words are joined with AND (all must match)
 * or OR (any, for RAG and vector recall).
 */

/** Most words a query uses; the rest of a very long query is ignored (10,000 characters stay a cheap query). */
export const MAX_QUERY_WORDS = 12;
const MIN_SHORT_FORM = 4;
/** Longest word kept (a 10,000-letter "word" is no word). */
const MAX_WORD = 64;

const quote = (term: string) => `"${term}"`;

/**
 * The longest prefix the index keeps a prefix index for (migrations-search/0001: `prefix = '2 3 4 5 6 7 8'`). A longer
 * prefix term is answered by merging the doclists of every word it covers, again at each row FTS5 seeks: the
 * highlights of one page of `"презентац"*` took 0.3 s at a million documents, 2 ms as `"презента"*` (decision 041).
 */
export const LONGEST_INDEXED_PREFIX = 8;

/**
 * The OR of the terms one word matches: words starting with its stem (its first LONGEST_INDEXED_PREFIX letters for a
 * longer stem) and its shorter forms of at least MIN_SHORT_FORM letters.
 */
export function wordExpression(word: string): string {
  const base = stemPrefix(word);
  const terms = [`${quote(base.slice(0, LONGEST_INDEXED_PREFIX))}*`];
  for (let n = MIN_SHORT_FORM; n < Math.min(base.length, LONGEST_INDEXED_PREFIX); n++) terms.push(quote(base.slice(0, n)));
  return terms.length === 1 ? terms[0] : `(${terms.join(" OR ")})`;
}

export interface ParsedQuery {
  /** the normalized words used */
  words: string[];
  /** the MATCH expression, or null when the text has no word at all (then nothing matches) */
  match: string | null;
}

function usable(list: string[]): string[] {
  return list.filter((w) => w.length <= MAX_WORD).slice(0, MAX_QUERY_WORDS);
}

/**
 * @example parseQuery("фотографии пляжа").match
 * // '("фотограф"* OR "фото" OR "фотог" OR "фотогр" OR "фотогра") AND "пляж"*'
 */
export function parseQuery(text: string, join: "AND" | "OR" = "AND"): ParsedQuery {
  const list = usable(join === "OR" ? contentWords(text, 64) : words(text));
  return { words: list, match: list.length ? list.map(wordExpression).join(` ${join} `) : null };
}

/**
 * Autocomplete: the finished words as in `parseQuery`, the last one (being typed) as a plain prefix, in the
 * given columns (`{name meta}`).
 * @example parsePrefix("морской пл").match // '{name meta} : (("морск"* OR "морс") AND "пл"*)'
 */
export function parsePrefix(text: string, columns = ["name", "meta"]): ParsedQuery & { prefix: string } {
  const list = usable(words(text));
  if (list.length === 0) return { words: [], match: null, prefix: "" };
  const last = list[list.length - 1];
  // Still typing the last word (no space after it): any word starting with it; else a finished word.
  const typing = !/\s$/.test(text);
  const terms = list.slice(0, -1).map(wordExpression);
  terms.push(typing ? `${quote(last)}*` : wordExpression(last));
  return { words: list, prefix: last, match: `{${columns.join(" ")}} : (${terms.join(" AND ")})` };
}
