// Helpers shared by the benchmarks under bench/: the build step, load runs with exact
// percentiles, sign-in, and the result table.
import autocannon from "autocannon";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

// Benchmarks drive far more calls than the per-user limits allow: the servers they start run without them
// (scripts/dev-server.mjs passes RATE_LIMITS on to the Worker).
process.env.RATE_LIMITS ??= "off";

/** Runs `npm run build` unless SKIP_BUILD=1 (npm run bench builds once and passes SKIP_BUILD=1 on). */
export function buildUnlessSkipped() {
  if (process.env.SKIP_BUILD === "1") return;
  console.log("> npm run build");
  const build = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit", timeout: 10 * 60_000 });
  if (build.status !== 0) throw new Error(`npm run build failed (${build.status ?? build.error})`);
}

/** The value at percentile `p` of an ascending array (nearest rank). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/**
 * Runs autocannon and records every response time, so p50/p95 are exact rather than autocannon's bucketed
 * percentiles (it has no p95). Bounded by `duration` (seconds) or `amount` (requests), and a 10 s timeout each.
 */
export async function load(options) {
  const times = [];
  const statuses = new Map();
  const instance = autocannon({ timeout: 10, ...options });
  instance.on("response", (_client, statusCode, _bytes, responseTime) => {
    times.push(responseTime);
    statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
  });
  const result = await instance;
  times.sort((a, b) => a - b);
  return {
    count: times.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    requestsPerSecond: result.duration > 0 ? times.length / result.duration : NaN,
    statuses: Object.fromEntries(statuses),
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** Answers that were not `expected` (default 200) in a load run. */
export const unexpected = (run, expected = 200) => run.count - (run.statuses[expected] ?? 0);

/** POST /api/auth/login; answers the bearer token. */
export async function login(url, user, passwd) {
  return (await signIn(url, user, passwd)).bearer;
}

/** Signs in through the API; answers the bearer and the refresh cookie a browser would carry to pages. */
export async function signIn(url, user, passwd) {
  const res = await fetch(`${url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user, passwd }),
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  const cookie = res.headers
    .getSetCookie()
    .find((c) => /mam_refresh=/.test(c))
    ?.split(";")[0];
  return { bearer: (await res.json()).bearer, cookie };
}

/** Sequential warm-up so the first measured requests do not pay for module loading or Durable Object creation. */
export async function warmUp(count, request) {
  for (let i = 0; i < count; i += 1) await request();
}

export const ms = (value) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : "n/a");

/** PASS when `value` is below `target` (or at least `target` with `atLeast`), MISS otherwise. */
export function verdict(value, target, { atLeast = false } = {}) {
  if (!Number.isFinite(value)) return "n/a";
  return (atLeast ? value >= target : value < target) ? "PASS" : "MISS";
}

/** Prints rows of [measure, value, target, result] (or of `header`'s columns) as an aligned table. */
export function printTable(rows, header = ["measure", "value", "target", "result"]) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) =>
    cells
      .map((cell, i) => String(cell).padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  console.log(`\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const row of rows) console.log(line(row));
  console.log("");
}

/** Times `request` once; throws unless its answer is `expected`. Answers the parsed body and the milliseconds. */
export async function timed(request, expected = 200) {
  const started = performance.now();
  const response = await request();
  const body = await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== expected) throw new Error(`answered ${response.status}: ${body.slice(0, 200)}`);
  return { body: body ? JSON.parse(body) : null, elapsed };
}

/** "p50 / p95" of sorted milliseconds, for a table cell. */
export const p50p95 = (sorted) => `${ms(percentile(sorted, 50))} / ${ms(percentile(sorted, 95))}`;
