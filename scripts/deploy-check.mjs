#!/usr/bin/env node
/**
 * Deploy dry-run check (issue 16, item 6): builds the production Worker bundle exactly as `wrangler deploy` would
 * (`wrangler deploy --dry-run --outdir <tmp>`: offline, no account needed) and fails when
 *
 *  - its compressed size is above the Workers size limit, or its raw size above the uncompressed limit, or
 *  - a binding of wrangler.toml (as wrangler itself reads it: D1, R2, Durable Objects, Queues, Workflows, assets,
 *    [vars]) has no entry in README.md (a `NAME` in backticks, as the configuration and binding tables write them).
 *
 * Which limit: Cloudflare's Workers **Paid** plan allows 10 MiB per Worker after gzip compression (Free: 3 MiB).
 * This product needs the Paid plan anyway — Queues, Workflows and the CPU time of image previews are not on Free —
 * so 10 MiB is the limit that fails the check; going above the Free limit is only reported. The uncompressed
 * limit is 64 MiB. The gzip size is each uploaded module (the bundle and its WebAssembly files; not the source map)
 * compressed with gzip's default level, summed — what wrangler reports as "Total Upload … gzip".
 *
 * Both Workers are checked (decision 032): the API Worker (wrangler.toml) and the media Worker
 * (workers/media/wrangler.toml), each a separate upload with its own size limit.
 *
 * Needs `npm run build` first (the bundle imports the Remix server build). Run: `npm run deploy:check`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { searchShardsOf } from "./search-shards-config.mjs";

const MiB = 1024 * 1024;
/** Workers Paid plan: size of the Worker after compression. */
export const PAID_GZIP_LIMIT = 10 * MiB;
/** Workers Free plan, reported only (the product needs Paid). */
export const FREE_GZIP_LIMIT = 3 * MiB;
/** Size of the Worker before compression. */
export const RAW_LIMIT = 64 * MiB;

const root = new URL("..", import.meta.url).pathname;

/** Binding names from wrangler's dry-run listing (`env.NAME (resource)   Type`). */
export function bindingsOf(output) {
  const names = [];
  for (const line of output.split("\n")) {
    const m = /^env\.([A-Za-z_][A-Za-z0-9_]*)\b/.exec(line.trim());
    if (m) names.push(m[1]);
  }
  return [...new Set(names)];
}

/** The first shard bound past a gap (SEARCH_3 without SEARCH_2), which workers/db/search-shards.ts never reaches; null when none. */
export function shardGap(shards) {
  const numbers = new Set(shards.map((n) => (n === "SEARCH" ? 0 : Number(n.slice("SEARCH_".length)))));
  const beyond = [...numbers].filter((n) => n >= numbers.size || !numbers.has(0)).sort((a, b) => a - b)[0];
  return beyond === undefined ? null : beyond === 0 ? "SEARCH" : `SEARCH_${beyond}`;
}

/** Bindings the README never names in backticks. */
export function undocumented(names, readme) {
  return names.filter((name) => !readme.includes(`\`${name}\``));
}

/** Raw and gzip size of the uploaded modules in wrangler's output directory (source maps and its README left out). */
export function bundleSize(dir) {
  let raw = 0;
  let gzip = 0;
  const modules = [];
  for (const file of readdirSync(dir)) {
    if (file.endsWith(".map") || file === "README.md") continue;
    const path = join(dir, file);
    if (!statSync(path).isFile()) continue;
    const bytes = readFileSync(path);
    const zipped = gzipSync(bytes).length;
    raw += bytes.length;
    gzip += zipped;
    modules.push({ file, raw: bytes.length, gzip: zipped });
  }
  return { raw, gzip, modules };
}

const mib = (n) => `${(n / MiB).toFixed(2)} MiB`;

/** The Workers `wrangler deploy` uploads: the API Worker first (it defines the Durable Objects the media Worker binds). */
export const WORKER_CONFIGS = [
  { name: "edge-mam", config: "wrangler.toml" },
  { name: "edge-mam-media", config: "workers/media/wrangler.toml" },
];

/** Runs `wrangler deploy --dry-run` for one config; its exit status and everything it printed. */
function dryRun(config, outdir) {
  return new Promise((resolve) => {
    const child = spawn("npx", ["wrangler", "deploy", "--dry-run", "--config", config, "--outdir", outdir], {
      cwd: root,
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (status) => resolve({ status, output }));
  });
}

/** Dry-runs one Worker's deploy; answers its problems (empty when it passes) and its bindings. */
async function checkWorker({ name, config }, readme) {
  const outdir = mkdtempSync(join(tmpdir(), "edge-mam-deploy-"));
  try {
    const run = await dryRun(config, outdir);
    const output = run.output;
    if (run.status !== 0) {
      console.error(output);
      return {
        problems: [`${name}: wrangler deploy --dry-run failed (exit ${run.status}); run \`npm run build\` first if the server build is missing`],
        names: [],
      };
    }
    const problems = [];

    const size = bundleSize(outdir);
    if (size.modules.length === 0) problems.push(`${name}: wrangler wrote no modules`);
    for (const m of size.modules) console.log(`  ${m.file}: ${mib(m.raw)} raw, ${mib(m.gzip)} gzip`);
    console.log(
      `Worker ${name} (${config}): ${mib(size.raw)} raw, ${mib(size.gzip)} gzip (Paid plan limit ${mib(PAID_GZIP_LIMIT)} gzip, ${mib(RAW_LIMIT)} raw)`,
    );
    if (size.gzip > PAID_GZIP_LIMIT)
      problems.push(`${name}: the bundle is ${mib(size.gzip)} gzip, above the Workers Paid limit of ${mib(PAID_GZIP_LIMIT)}`);
    if (size.raw > RAW_LIMIT) problems.push(`${name}: the bundle is ${mib(size.raw)} uncompressed, above the limit of ${mib(RAW_LIMIT)}`);
    if (size.gzip > FREE_GZIP_LIMIT) console.log(`  (above the Free plan's ${mib(FREE_GZIP_LIMIT)}: deploy on Workers Paid)`);

    const names = bindingsOf(output);
    if (names.length === 0) problems.push(`${name}: could not read the binding list from wrangler's output`);
    const missing = undocumented(names, readme);
    console.log(`Bindings in ${config}: ${names.length}, documented in README.md: ${names.length - missing.length}`);
    for (const binding of missing) problems.push(`binding ${binding} (${config}) has no README.md entry`);
    return { problems, names };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

async function main() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  // The two bundles are built at the same time: each wrangler run is mostly one core of esbuild.
  const checked = await Promise.all(WORKER_CONFIGS.map((worker) => checkWorker(worker, readme)));
  const problems = checked.flatMap((c) => c.problems);
  // Both Workers feed the index: one binding fewer shards would put documents where searches never look.
  const [api, media] = checked.map((c) => searchShardsOf(c.names).join(", "));
  if (api !== media) problems.push(`the Workers bind different search index shards (API: ${api}; media: ${media}): bind the same in both`);
  const gap = shardGap(searchShardsOf(checked[0]?.names ?? []));
  if (gap) problems.push(`${gap} is bound but not every shard before it: the Workers would not use it (number shards SEARCH_1, SEARCH_2, … without a gap)`);
  if (problems.length > 0) {
    for (const p of problems) console.error(`deploy check: ${p}`);
    process.exitCode = 1;
  } else {
    console.log("deploy check: ok");
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
