/**
 * Items opened a bounded number ahead of their use: while the caller reads one item's body, the next `ahead` are
 * already being opened (an R2 GET's round trip overlaps the bytes before it instead of following them), and never
 * more than `ahead` + 1 bodies are held at once, so memory stays flat whatever the number of items.
 */

/** One item and what `open` answered for it. */
export interface Opened<T, B> {
  item: T;
  body: B;
}

/**
 * `items` in order, each with its opened body. An item `early` refuses is opened only at its turn (still counted
 * among the `ahead`). When the caller stops early (or an open fails), the bodies opened ahead are handed to `discard`
 * and the items' iterator is closed.
 */
export async function* openAhead<T, B>(
  items: AsyncIterable<T> | Iterable<T>,
  open: (item: T) => Promise<B>,
  ahead: number,
  discard: (body: B) => unknown,
  early: (item: T) => boolean = () => true,
): AsyncGenerator<Opened<T, B>, void, undefined> {
  const iterator = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  const queue: { item: T; body: Promise<B> | null }[] = [];
  const opening = (item: T) => {
    const body = open(item);
    // Awaited when the caller reaches it; until then a failure must not count as unhandled.
    body.catch(() => undefined);
    return body;
  };
  let exhausted = false;
  const pull = async (now: boolean) => {
    const next = await iterator.next();
    if (next.done) {
      exhausted = true;
      return null;
    }
    return { item: next.value, body: now || early(next.value) ? opening(next.value) : null };
  };
  // An item's turn: one held back is opened now, before any behind it.
  const turn = (entry: { item: T; body: Promise<B> | null } | null | undefined) =>
    entry ? { item: entry.item, body: entry.body ?? opening(entry.item) } : null;
  let current: { item: T; body: Promise<B> } | null = null;
  let finished = false;
  try {
    current = turn(await pull(true));
    while (current) {
      while (queue.length < ahead && !exhausted) {
        const next = await pull(false);
        if (next) queue.push(next);
      }
      const { item, body } = current;
      const opened = await body;
      // From here the caller holds this body (and closes it); only the ones queued behind it are still ours.
      current = null;
      yield { item, body: opened };
      current = turn(queue.length > 0 ? queue.shift() : exhausted ? null : await pull(true));
    }
    finished = true;
  } finally {
    for (const waiting of [...(current ? [current] : []), ...queue.splice(0)]) waiting.body?.then(discard, () => undefined);
    if (!finished) await iterator.return?.();
  }
}
