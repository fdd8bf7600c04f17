import type { RoundTripMeter } from "../db/round-trips";

/**
 * `Server-Timing` on every API and page answer (decision 030): the request's D1 time and sequential round trips
 * (`db;dur=12.3;desc="3 round trips, 4 queries"`) and the Worker's whole time (`total;dur=`). Browsers show it in
 * the network panel; tests and bench/edge.mjs read the round trips from it.
 */
export function applyServerTiming(headers: Headers, meter: RoundTripMeter | null, totalMs: number): void {
  const entries = [meter ? meter.serverTiming() : `db;dur=0.0;desc="0 round trips, 0 queries"`, `total;dur=${totalMs.toFixed(1)}`];
  headers.append("Server-Timing", entries.join(", "));
}
