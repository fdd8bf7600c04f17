const LOCK_PREFIX = "mam-upload:";

const locksAvailable = () => typeof navigator !== "undefined" && !!navigator.locks;

/**
 * Which tab of this browser uploads which item: the uploading tab holds a Web Lock named after the item, so other
 * tabs neither start it twice nor treat it as orphaned.
 */
export class TabLocks {
  readonly #held = new Map<string, () => void>();
  #elsewhere = new Set<string>();

  take(id: string) {
    if (this.#held.has(id) || !locksAvailable()) return;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    this.#held.set(id, release);
    void navigator.locks.request(`${LOCK_PREFIX}${id}`, () => held).catch(() => undefined);
  }

  release(id: string) {
    this.#held.get(id)?.();
    this.#held.delete(id);
  }

  releaseAll() {
    for (const release of this.#held.values()) release();
    this.#held.clear();
  }

  /** Whether another tab held the item's lock at the last `refresh`. */
  heldElsewhere(id: string): boolean {
    return this.#elsewhere.has(id);
  }

  /** Reads which items other tabs hold now. */
  async refresh() {
    if (!locksAvailable()) return;
    try {
      const { held = [] } = await navigator.locks.query();
      this.#elsewhere = new Set(
        held
          .map((l) => l.name ?? "")
          .filter((name) => name.startsWith(LOCK_PREFIX))
          .map((name) => name.slice(LOCK_PREFIX.length))
          .filter((id) => !this.#held.has(id)),
      );
    } catch {
      // Locks unavailable: every item not uploading here counts as orphaned.
    }
  }
}
