import type { RoundTripMeter } from "../db/round-trips";
import { timingSafeEqual } from "./crypto";

/**
 * The header an operator sends with the configured METRICS_TOKEN to get the database detail without being an
 * administrator (bench/edge.mjs and the round-trip budget tests measure readers and anonymous visitors with it).
 */
export const TIMING_KEY_HEADER = "x-timing-key";

const encoder = new TextEncoder();

/**
 * Whether an answer may carry the database detail of `Server-Timing`: to administrators, and to whoever presents
 * the operator's metrics token. Everyone else gets the plain total: how many queries an answer took tells whether
 * an id they may not read exists (a 404 for a missing id stops earlier than one for a hidden id).
 */
export function timingDetailAllowed(request: Request, metricsToken: string | undefined, isAdmin: boolean): boolean {
  if (isAdmin) return true;
  const presented = request.headers.get(TIMING_KEY_HEADER);
  if (!metricsToken || !presented) return false;
  return timingSafeEqual(encoder.encode(presented), encoder.encode(metricsToken));
}

/**
 * `Server-Timing` on every API and page answer (decision 030): the Worker's whole time (`total;dur=`) for everyone,
 * and, when `detailed`, the request's D1 time and sequential round trips first
 * (`db;dur=12.3;desc="3 round trips, 4 queries"`). Browsers show it in the network panel; tests and bench/edge.mjs
 * read the round trips from it.
 */
export function applyServerTiming(headers: Headers, meter: RoundTripMeter | null, totalMs: number, detailed: boolean): void {
  const total = `total;dur=${totalMs.toFixed(1)}`;
  if (!detailed) {
    headers.append("Server-Timing", total);
    return;
  }
  const entries = [meter ? meter.serverTiming() : `db;dur=0.0;desc="0 round trips, 0 queries"`, total];
  headers.append("Server-Timing", entries.join(", "));
}
