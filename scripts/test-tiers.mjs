#!/usr/bin/env node
// npm test: runs every test tier one after another and, at the end (also when a tier failed), prints each tier's
// wall time, so a slow tier is seen in every CI log before more is added to it (the whole run must stay under
// 35 minutes on the 2-core CI machine). Stops at the first failing tier, as `a && b && …` did.
//
//   node scripts/test-tiers.mjs                 every tier
//   node scripts/test-tiers.mjs unit hostile    only the named tiers (names from TIERS below), in the usual order
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };

/** The tiers in the order `npm test` runs them: cheap checks first, the tiers that start `wrangler dev` last. */
export const TIERS = [
  { name: "build", command: "npm run build" },
  { name: "deploy-check", command: "npm run deploy:check" },
  { name: "deps", command: "npm run check:deps" },
  { name: "openapi", command: "npm run check:openapi" },
  { name: "unit", command: "npm run test:unit" },
  { name: "workers", command: "npm run test:workers" },
  { name: "faults", command: "npm run test:faults" },
  { name: "hostile", command: "npm run test:hostile" },
  { name: "helper", command: "npm run test:helper" },
  { name: "e2e", command: "npm run test:e2e", env: { SKIP_BUILD: "1" } },
];

/** `m:ss` of a duration in milliseconds. */
export function clock(ms) {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** The closing table: one line per tier run (time and outcome), then the total. */
export function timingTable(rows) {
  const width = Math.max(...rows.map((r) => r.name.length), "total".length);
  const lines = rows.map((r) => `  ${r.name.padEnd(width)}  ${clock(r.ms).padStart(6)}  ${r.ok ? "ok" : `FAILED (exit ${r.status})`}`);
  const total = rows.reduce((sum, r) => sum + r.ms, 0);
  return ["==> tier times (wall clock)", ...lines, `  ${"total".padEnd(width)}  ${clock(total).padStart(6)}`].join("\n");
}

function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !TIERS.some((t) => t.name === name));
  if (unknown.length > 0) {
    console.error(`unknown tier(s): ${unknown.join(", ")}; known: ${TIERS.map((t) => t.name).join(", ")}`);
    process.exit(2);
  }
  const tiers = wanted.length > 0 ? TIERS.filter((t) => wanted.includes(t.name)) : TIERS;
  const rows = [];
  for (const tier of tiers) {
    console.log(`\n==> ${tier.name}: ${tier.command}`);
    const started = performance.now();
    const result = spawnSync(tier.command, { cwd: root, stdio: "inherit", shell: true, env: { ...env, ...tier.env } });
    const status = result.status ?? 1;
    rows.push({ name: tier.name, ms: performance.now() - started, ok: status === 0, status });
    if (status !== 0) break;
  }
  console.log(`\n${timingTable(rows)}`);
  process.exit(rows.every((r) => r.ok) ? 0 : 1);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
