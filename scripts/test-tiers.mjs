#!/usr/bin/env node
// npm test: runs every test tier and, at the end (also when a tier failed), prints each tier's wall time, so a slow
// tier is seen in every CI log before more is added to it (the whole run must stay under 35 minutes on the 2-core
// CI machine). Stops after the first failing tier, as `a && b && …` did.
//
// A tier marked `beside` runs in a second lane while the tier it names runs: the grouped integration tier leaves
// about a quarter of the two cores idle (its last group runs alone), which the small tiers fill. Their output is
// held and printed, whole, after the tier beside which they ran, so the log reads as if they ran one after another.
// Tiers that measure latency (hostile) or start servers of their own under restarts (faults) run alone.
//
//   node scripts/test-tiers.mjs                 every tier
//   node scripts/test-tiers.mjs unit hostile    only the named tiers (names from TIERS below), in the usual order
import { spawn } from "node:child_process";
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
  { name: "workers", command: "npm run test:workers:grouped" },
  { name: "workers-alone", command: "npm run test:workers:alone", beside: "workers" },
  { name: "helper", command: "npm run test:helper", beside: "workers" },
  { name: "workers-sharded", command: "npm run test:workers:sharded" },
  { name: "faults", command: "npm run test:faults" },
  { name: "hostile", command: "npm run test:hostile" },
  { name: "e2e", command: "npm run test:e2e", env: { SKIP_BUILD: "1" } },
];

/** `m:ss` of a duration in milliseconds. */
export function clock(ms) {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** The closing table: one line per tier run (time, outcome, the tier it ran beside), then the whole run's wall time. */
export function timingTable(rows, totalMs = rows.reduce((sum, r) => sum + r.ms, 0)) {
  const width = Math.max(...rows.map((r) => r.name.length), "total".length);
  const lines = rows.map(
    (r) =>
      `  ${r.name.padEnd(width)}  ${clock(r.ms).padStart(6)}  ${r.ok ? "ok" : `FAILED (exit ${r.status})`}${
        r.beside ? `  (beside ${r.beside})` : ""
      }`,
  );
  return ["==> tier times (wall clock)", ...lines, `  ${"total".padEnd(width)}  ${clock(totalMs).padStart(6)}`].join("\n");
}

/**
 * The selected tiers as stages: each tier that is not `beside` another opens a stage; a `beside` tier joins the
 * stage of the tier it names when that one is selected too, else it runs as a stage of its own.
 */
export function stagesOf(tiers) {
  const stages = [];
  for (const tier of tiers) {
    const host = tier.beside && stages.find((s) => s.main.name === tier.beside);
    if (host) host.beside.push(tier);
    else stages.push({ main: tier, beside: [] });
  }
  return stages;
}

/** Runs one tier's command; its output goes to this terminal, or into `output` when held. Resolves to its row. */
function runTier(tier, { hold = false, beside } = {}) {
  if (!hold) console.log(`\n==> ${tier.name}: ${tier.command}`);
  const started = performance.now();
  const child = spawn(tier.command, {
    cwd: root,
    stdio: hold ? ["ignore", "pipe", "pipe"] : "inherit",
    shell: true,
    env: { ...env, ...tier.env },
  });
  const chunks = [];
  if (hold) for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => chunks.push(chunk));
  return new Promise((resolve) =>
    child.on("close", (code) => {
      const status = code ?? 1;
      resolve({
        name: tier.name,
        command: tier.command,
        ms: performance.now() - started,
        ok: status === 0,
        status,
        beside,
        output: Buffer.concat(chunks).toString(),
      });
    }),
  );
}

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !TIERS.some((t) => t.name === name));
  if (unknown.length > 0) {
    console.error(`unknown tier(s): ${unknown.join(", ")}; known: ${TIERS.map((t) => t.name).join(", ")}`);
    process.exit(2);
  }
  const started = performance.now();
  const rows = [];
  for (const stage of stagesOf(wanted.length > 0 ? TIERS.filter((t) => wanted.includes(t.name)) : TIERS)) {
    if (stage.beside.length > 0)
      console.log(`\n==> beside ${stage.main.name}: ${stage.beside.map((t) => t.name).join(", ")} (their output follows it)`);
    const lane = (async () => {
      const done = [];
      for (const tier of stage.beside) {
        done.push(await runTier(tier, { hold: true, beside: stage.main.name }));
        if (!done.at(-1).ok) break;
      }
      return done;
    })();
    const main = await runTier(stage.main);
    const besides = await lane;
    for (const row of besides) {
      console.log(`\n==> ${row.name} (ran beside ${stage.main.name}): ${row.command}`);
      process.stdout.write(row.output);
    }
    rows.push(main, ...besides);
    if (!rows.every((r) => r.ok)) break;
  }
  console.log(`\n${timingTable(rows, performance.now() - started)}`);
  process.exit(rows.every((r) => r.ok) ? 0 : 1);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
