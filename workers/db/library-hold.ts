import { LIBRARY_TABLES } from "./library-tables";

/**
 * A shard's hold (decision 046): while a change across libraries runs in the catalog, the shards of the switched
 * libraries it touches refuse every write to their library's tables — by triggers, as the catalog refuses a library
 * being switched, so no path into the shard has to know — and the catalog's copy is the one being changed. The copy
 * that brings the change into the shard sets its triggers aside (`importLibraryRows`) and passes. One hold at a time:
 * a second change across the same library is refused until the first ends. Created when a shard starts (idempotent).
 */
export const HOLD_SQL: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS shard_holds (crossing_id TEXT PRIMARY KEY, since INTEGER NOT NULL)",
  ...LIBRARY_TABLES.flatMap((t) =>
    (["INSERT", "UPDATE", "DELETE"] as const).map(
      (op) => `CREATE TRIGGER IF NOT EXISTS shard_hold_${t.name}_${op.toLowerCase()} BEFORE ${op} ON ${t.name}
        WHEN EXISTS (SELECT 1 FROM shard_holds) BEGIN SELECT RAISE(ABORT, 'LIBRARY_HELD'); END`,
    ),
  ),
];

/**
 * How long a write, or another change across, waits in the shard for a hold to end (decision 049) before it is
 * refused with 503: a change across holds a library for about a tenth of a second, a big folder's for seconds.
 */
export const HOLD_WAIT_MS = 3_000;

/**
 * How long it waits at most for a change across that keeps working in the shard — bringing its rows in, a slice at a
 * time (a folder of 6,000 files moved across holds its libraries about 1.2 s, nearly all of it copying) — each of its
 * calls counting as a sign of life for another HOLD_WAIT_MS. One whose Worker died shows none: its waiters are
 * refused after HOLD_WAIT_MS.
 */
export const HOLD_WAIT_MAX_MS = 30_000;

/** Inside the shard: whether a change across libraries other than `crossing` (any, when null) holds it. */
function heldByAnother(sql: SqlStorage, crossing: string | null): boolean {
  return sql.exec("SELECT 1 FROM shard_holds WHERE crossing_id IS NOT ?", crossing).toArray().length > 0;
}

/** Inside the shard: holds it for `crossing`; false when another change across libraries holds it. */
function holdShard(sql: SqlStorage, crossing: string, now: number): boolean {
  if (heldByAnother(sql, crossing)) return false;
  sql.exec("INSERT OR IGNORE INTO shard_holds (crossing_id, since) VALUES (?, ?)", crossing, now);
  return true;
}

/** Inside the shard: `crossing`'s hold let go (nothing when it holds none). */
function releaseShard(sql: SqlStorage, crossing: string): void {
  sql.exec("DELETE FROM shard_holds WHERE crossing_id = ?", crossing);
}

/** A write, or a change across asking for the hold (`crossing`), waiting its turn. */
interface Waiter {
  crossing: string | null;
  go: () => void;
}

/**
 * Inside the shard: who goes when (decision 049). Writes to the library run side by side; a change across holds it
 * alone — once the writes under way have ended (none fails half-way into a hold), and before the writes that arrived
 * after it asked. Those who cannot go wait in the order they came, woken when a hold ends or a write finishes. A wait
 * ends after HOLD_WAIT_MS without a sign of life from the change across holding the library (a crossing whose Worker
 * died is ended by the minute cron), after HOLD_WAIT_MAX_MS whatever happens: a change across is then refused (503),
 * a write runs into the hold's triggers (503) or, when nothing holds the library, runs.
 */
export class HoldGate {
  private writing = 0;
  private readonly queue: Waiter[] = [];
  /** When the change across holding the shard last did something here (took the hold, brought rows in). */
  private workedAt = 0;

  constructor(private readonly sql: SqlStorage) {}

  /** `work`, a write to the library, run in its turn. */
  async write<T>(work: () => Promise<T>): Promise<T> {
    const entered = await this.enter(null);
    try {
      return await work();
    } finally {
      if (entered) {
        this.writing--;
        this.pump();
      }
    }
  }

  /** The shard held for `crossing` in its turn; false when another change across still holds it after HOLD_WAIT_MS. */
  hold(crossing: string): Promise<boolean> {
    return this.enter(crossing);
  }

  /**
   * Whether a change across holds the shard now: its rows may be arriving in several calls, so a read here could see
   * a file without its listings; the catalog's copy, which the change wrote first and whole, answers reads meanwhile.
   */
  held(): boolean {
    return heldByAnother(this.sql, null);
  }

  /** The change across holding the shard is still at work here (its rows arriving): those waiting keep waiting. */
  working(): void {
    this.workedAt = Date.now();
  }

  /** `crossing`'s hold let go: those waiting go, in their order. */
  release(crossing: string): void {
    releaseShard(this.sql, crossing);
    this.pump();
  }

  private ready(crossing: string | null): boolean {
    return !heldByAnother(this.sql, crossing) && (crossing === null || this.writing === 0);
  }

  private grant(crossing: string | null): void {
    if (crossing === null) this.writing++;
    else {
      holdShard(this.sql, crossing, Date.now());
      this.working();
    }
  }

  private enter(crossing: string | null): Promise<boolean> {
    if (this.queue.length === 0 && this.ready(crossing)) {
      this.grant(crossing);
      return Promise.resolve(true);
    }
    const since = Date.now();
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        crossing,
        go: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const expire = () => {
        const now = Date.now();
        const quiet = now - this.workedAt;
        if (quiet < HOLD_WAIT_MS && now - since < HOLD_WAIT_MAX_MS && heldByAnother(this.sql, crossing)) {
          timer = setTimeout(expire, Math.min(HOLD_WAIT_MS - quiet, since + HOLD_WAIT_MAX_MS - now));
          return;
        }
        this.queue.splice(this.queue.indexOf(waiter), 1);
        // A write that waited behind a change across still asking for its turn goes when nothing holds the library.
        const goes = crossing === null && !heldByAnother(this.sql, null);
        if (goes) this.grant(null);
        resolve(goes);
        this.pump();
      };
      let timer = setTimeout(expire, HOLD_WAIT_MS);
      this.queue.push(waiter);
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.ready(this.queue[0]!.crossing)) {
      const next = this.queue.shift()!;
      this.grant(next.crossing);
      next.go();
    }
  }
}
