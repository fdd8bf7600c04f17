/**
 * Recent search answers per access class, in the isolate's memory (decision 031). An answer is stored under the
 * search epoch read before it was computed (migration 0024: every write that can change an answer moves the epoch in
 * its own statement), and served only while the epoch is still that value, so a cached answer is never older than a
 * fresh one would be. The access class is the caller's visibility (one class for every administrator; a user, with
 * their chroot, rules and token scope, otherwise), so an answer is never shown to a caller who could see other
 * things. Bounded by entries and by characters, least recently used first out.
 */

const MAX_ENTRIES = 500;
/** About 16 MB of UTF-16: a page of 20 hits with facets is 10–20 thousand characters. */
const MAX_CHARS = 8_000_000;

interface Entry {
  epoch: number;
  json: string;
}

/** Map order is use order: the first key is the least recently used. */
const entries = new Map<string, Entry>();
let chars = 0;
/** The newest epoch seen: entries of older epochs can never be served again and are dropped at once. */
let newest = -1;

function drop(key: string) {
  const entry = entries.get(key);
  if (!entry) return;
  chars -= entry.json.length;
  entries.delete(key);
}

function advance(epoch: number) {
  if (epoch <= newest) return;
  newest = epoch;
  for (const [key, entry] of entries) if (entry.epoch < epoch) drop(key);
}

/** The answer stored for `key` at `epoch` (a fresh copy), or undefined. */
export function cachedAnswer<T>(key: string, epoch: number): T | undefined {
  advance(epoch);
  const entry = entries.get(key);
  if (!entry || entry.epoch !== epoch) return undefined;
  entries.delete(key);
  entries.set(key, entry);
  return JSON.parse(entry.json) as T;
}

/** Stores an answer computed after reading `epoch`. */
export function rememberAnswer(key: string, epoch: number, answer: unknown): void {
  advance(epoch);
  if (epoch < newest) return;
  const json = JSON.stringify(answer);
  if (json.length > MAX_CHARS / 10) return;
  drop(key);
  entries.set(key, { epoch, json });
  chars += json.length;
  for (const oldest of entries.keys()) {
    if (entries.size <= MAX_ENTRIES && chars <= MAX_CHARS) break;
    drop(oldest);
  }
}

/** Empties the cache (tests that compare a cached answer with a computed one). */
export function forgetAnswers(): void {
  entries.clear();
  chars = 0;
}
