// `npm run bench [-- name …]`: builds once, then runs each benchmark under bench/ in turn (all of them, or the named
// ones), each starting its own local product. Benchmarks print their figures against the targets and exit 0 even
// when a target is missed: a benchmark is not a test. The exception is the load benchmark, which fails its own
// targets (5xx, lost uploads, memory that stays flat: issue 25); this runner then ends non-zero after the rest ran.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { buildUnlessSkipped, ROOT } from "./lib/measure.mjs";

/** In the order of the issues that set their targets. */
const BENCHMARKS = ["foundation", "library", "uploads", "ui-uploads", "access", "roots", "tasks", "metadata", "wopi", "search", "sharing", "load", "helper", "edge", "media", "db-size", "csv", "zip", "review", "search-acl", "search-shards", "library-shard", "library-move", "new-library", "crossing", "routed-reads", "scale"];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !BENCHMARKS.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; known: ${BENCHMARKS.join(", ")}`);
  process.exit(2);
}

buildUnlessSkipped();
for (const name of wanted.length > 0 ? wanted : BENCHMARKS) {
  const script = `bench/${name}.mjs`;
  if (!existsSync(`${ROOT}/${script}`)) continue;
  console.log(`\n=== ${name} (${script}) ===`);
  const run = spawnSync(process.execPath, [script], { cwd: ROOT, stdio: "inherit", env: { ...process.env, SKIP_BUILD: "1" } });
  if (run.status !== 0) {
    console.log(`${script} exited with ${run.status ?? run.signal}`);
    process.exitCode = 1;
  }
}
