/**
 * Counts one request's D1 round trips (decision 030). A call is one `.run/.all/.first/.raw` of a statement or one
 * `.batch([...])`; its depth is one more than the deepest call that had finished when it started, so calls made
 * together (Promise.all) share a depth and `roundTrips` — the deepest depth — is the number of sequential waits a far
 * user pays for. `dbMs` is the wall time during which at least one call was under way. Lives in the request context:
 * requests interleave in one isolate, so nothing here is module state.
 */
export class RoundTripMeter {
  /** sequential waves of calls: the figure the round-trip budgets limit */
  roundTrips = 0;
  /** prepared-statement executions and batches */
  calls = 0;
  /** statements sent, a batch counting each of its statements */
  statements = 0;
  /** wall time (ms) with at least one call under way */
  dbMs = 0;
  /** a client bookmark the database refused: the session started again without it */
  bookmarkRetried = false;

  private finishedDepth = 0;
  private inFlight = 0;
  private busySince = 0;

  /** A call starts; returns its depth, to hand back to `end`. */
  begin(statements: number): number {
    this.calls += 1;
    this.statements += statements;
    if (this.inFlight++ === 0) this.busySince = performance.now();
    const depth = this.finishedDepth + 1;
    if (depth > this.roundTrips) this.roundTrips = depth;
    return depth;
  }

  end(depth: number): void {
    if (depth > this.finishedDepth) this.finishedDepth = depth;
    if (--this.inFlight === 0) this.dbMs += performance.now() - this.busySince;
  }

  /** The `db` entry of a Server-Timing header: `db;dur=12.3;desc="3 round trips, 4 queries"`. */
  serverTiming(): string {
    const trips = `${this.roundTrips} round trip${this.roundTrips === 1 ? "" : "s"}`;
    return `db;dur=${this.dbMs.toFixed(1)};desc="${trips}, ${this.statements} quer${this.statements === 1 ? "y" : "ies"}"`;
  }
}

/** A call counted like a database call (a library shard's: one round trip, however many statements run inside it). */
export async function metered<T>(meter: RoundTripMeter | undefined, statements: number, call: () => Promise<T>): Promise<T> {
  if (!meter) return call();
  const depth = meter.begin(statements);
  try {
    return await call();
  } finally {
    meter.end(depth);
  }
}

/** Reads the round trips back from a Server-Timing header value (tests and benchmarks); null when absent. */
export function roundTripsOf(serverTiming: string | null): number | null {
  const match = /(?:^|,)\s*db;dur=[\d.]+;desc="(\d+) round trips?/.exec(serverTiming ?? "");
  return match ? Number(match[1]) : null;
}
