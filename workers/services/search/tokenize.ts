import { stemmer as stemEnglish } from "@orama/stemmers/english";
import { stemmer as stemRussian } from "@orama/stemmers/russian";

/**
 * Words of search text, the Worker's half of the search index (decision 011). D1 has no Russian tokenizer, so the
 * index keeps words as written (FTS5 unicode61 folds case and diacritics) and the Worker reduces query words to
 * their Snowball stems (Russian and English), which it then matches as prefixes of indexed words.
 */

/** Letters and digits; anything else (punctuation, dots of file names, hyphens, emoji, FTS syntax) separates words. */
const WORD = /[\p{L}\p{N}]+/gu;
const CYRILLIC = /[\u0400-\u04ff]/;
const LATIN = /[a-z]/;

/** Lower case, `ё` folded to `е`, Unicode NFC (so a decomposed `й` is one letter). */
export function normalize(text: string): string {
  return text.normalize("NFC").toLowerCase().replace(/ё/g, "е");
}

/**
 * The words of a text, normalized: `"Фото-пляж.jpg"` → `["фото", "пляж", "jpg"]`.
 * @example words("Съёмка 2026 🎬") // ["съемка", "2026"]
 */
export function words(text: string): string[] {
  return normalize(text).match(WORD) ?? [];
}

/**
 * The Snowball stem of one normalized word: Russian for Cyrillic words, English for Latin ones, the word itself
 * otherwise (numbers, other scripts). Words of 2 letters or fewer are kept whole.
 */
export function stem(word: string): string {
  if (word.length <= 2) return word;
  if (CYRILLIC.test(word)) return stemRussian(word).replace(/ё/g, "е");
  if (LATIN.test(word) && /^[a-z]+$/.test(word)) return stemEnglish(word);
  return word;
}

/**
 * What an indexed word must start with to be a form of `word`: its stem when the stem is a prefix of the word
 * (always so for Russian Snowball), else the longest common prefix of both (English `pony` → `poni` gives `pon`).
 */
export function stemPrefix(word: string): string {
  const s = stem(word);
  if (word.startsWith(s)) return s;
  let i = 0;
  while (i < s.length && i < word.length && s[i] === word[i]) i++;
  return word.slice(0, Math.max(i, Math.min(3, word.length)));
}

/** Function words a question or query may drop when other words remain (they match nearly every document). */
export const STOP_WORDS = new Set(
  (
    "и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне было вот от меня еще нет о из ему " +
    "теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где " +
    "есть надо ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе под будет ж тогда кто этот того потому этого какой " +
    "совсем ним здесь этом один почти мой тем чтобы нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после " +
    "над больше тот через эти нас про всего них какая много разве три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя " +
    "такой им более всегда конечно всю между это как какие каких каким каково какова где когда почему сколько " +
    "a an the and or of to in on at for from by with is are was were be been it its this that these those what which who whom whose " +
    "how when where why do does did has have had i you he she we they me my your our their there here as not no"
  ).split(" "),
);

/** Content words of a text (stop words dropped unless nothing else remains), normalized, at most `max`. */
export function contentWords(text: string, max = 16): string[] {
  const all = words(text);
  const kept = all.filter((w) => !STOP_WORDS.has(w));
  return (kept.length > 0 ? kept : all).slice(0, max);
}
