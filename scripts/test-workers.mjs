// `npm run test:workers`: the integration and contract suites inside workerd, in shards of a fresh test runner each,
// then the error-tracking file on its own and the Cloudflare Images previews. One runner for all ~125 files grew the
// message that starts each test worker past workerd's WebSocket limit («Message is too large»), and every later file's
// worker exited; a fresh runner per shard keeps it small. Shards run one after the other; the first failure stops.
import { spawnSync } from "node:child_process";

const SHARDS = Number(process.env.TEST_WORKERS_SHARDS) || 6;
const runs = [
  ...Array.from({ length: SHARDS }, (_, i) => ["--config", "vitest.config.ts", "--exclude", "tests/integration/error-tracking.test.ts", `--shard=${i + 1}/${SHARDS}`]),
  ["--config", "vitest.config.ts", "tests/integration/error-tracking.test.ts"],
  ["--config", "vitest.images.config.ts"],
];
for (const args of runs) {
  const run = spawnSync("npx", ["vitest", "run", ...args], { stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
