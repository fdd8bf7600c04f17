// npm run test:e2e: builds the product (unless SKIP_BUILD=1), then runs the Chromium tests in tests/e2e against
// `wrangler dev` (started by tests/e2e/global-setup.ts). Exits with vitest's code.
//
// Without file arguments the files are split between E2E_SHARDS (default 2) vitest runs at once, each with its own
// server, state, ports and Chromium: most of an e2e test is waiting (for a queue, a task, a poll), so on the 2-core CI
// machine two servers finish the tier in little more than half the time. Each run sees the same isolation as one run
// alone (a fresh database, files one after another). With file arguments, one run as before.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { migratedTemplate } from "./dev-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
// Node 24 from node_modules first, also when this script is started with the system Node.
const env = {
  ...process.env,
  PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};
const VITEST = ["vitest", "run", "--config", "vitest.e2e.config.ts"];
const TIMEOUT_MS = 30 * 60_000;

function run(command, args, timeoutMs) {
  console.log(`> ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env, timeout: timeoutMs, killSignal: "SIGTERM" });
  if (result.error) console.error(`${command} failed: ${result.error.message}`);
  return result.status ?? 1;
}

/**
 * The e2e files in `count` groups of about equal weight (longest first into the lightest group). A file's size
 * stands for its duration: the long files are the long tests.
 */
export function splitFiles(files, count) {
  const groups = Array.from({ length: count }, () => ({ weight: 0, files: [] }));
  for (const file of [...files].sort((a, b) => b.weight - a.weight || a.path.localeCompare(b.path))) {
    const lightest = groups.reduce((min, g) => (g.weight < min.weight ? g : min));
    lightest.files.push(file.path);
    lightest.weight += file.weight;
  }
  return groups.map((g) => g.files.sort());
}

/** One vitest run of `files` on its own ports; its lines are prefixed with `[name]`. Resolves to its exit code. */
function runShard(name, files, ports) {
  const args = [...VITEST, ...files];
  console.log(`> [${name}] E2E_PORT=${ports.app} E2E_HELPER_PORT=${ports.helper} npx ${args.join(" ")}`);
  const child = spawn("npx", args, {
    cwd: root,
    env: { ...env, E2E_PORT: String(ports.app), E2E_HELPER_PORT: String(ports.helper), FORCE_COLOR: process.env.FORCE_COLOR ?? "0" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const prefix = (stream, out) => {
    let rest = "";
    stream.on("data", (chunk) => {
      const lines = (rest + chunk.toString()).split("\n");
      rest = lines.pop();
      for (const line of lines) out.write(`[${name}] ${line}\n`);
    });
    stream.on("end", () => rest && out.write(`[${name}] ${rest}\n`));
  };
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  const timer = setTimeout(() => {
    console.error(`[${name}] still running after ${TIMEOUT_MS / 60_000} min: stopped`);
    process.kill(-child.pid, "SIGTERM");
  }, TIMEOUT_MS);
  return new Promise((resolve) =>
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    }),
  );
}

async function main() {
  if (process.env.SKIP_BUILD !== "1") {
    const status = run("npm", ["run", "build"], 10 * 60_000);
    if (status !== 0) process.exit(status);
  }
  // Made once here rather than by each run's server at the same moment (scripts/dev-server.mjs).
  migratedTemplate();
  const named = process.argv.slice(2);
  const shards = Math.max(1, Number(process.env.E2E_SHARDS ?? 2) || 1);
  if (named.length > 0 || shards === 1) process.exit(run("npx", [...VITEST, ...named], TIMEOUT_MS));

  const dir = join(root, "tests", "e2e");
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".e2e.ts"))
    .map((f) => ({ path: `tests/e2e/${f}`, weight: statSync(join(dir, f)).size }));
  // Each run's server takes its port and the next two (error-tracking.e2e.ts starts a second app and a capture
  // server there); ports stay clear of `npm start`'s 8787.
  const basePort = Number(process.env.E2E_PORT ?? 8799);
  const baseHelper = Number(process.env.E2E_HELPER_PORT ?? 18995);
  const started = performance.now();
  // An empty group is not run: vitest without files would run them all.
  const groups = splitFiles(files, shards).filter((group) => group.length > 0);
  const codes = await Promise.all(
    groups.map((group, i) => runShard(`e2e ${i + 1}/${groups.length}`, group, { app: basePort + i * 10, helper: baseHelper + i })),
  );
  console.log(
    `e2e: ${groups.length} runs ended in ${Math.round((performance.now() - started) / 1000)} s with exit codes ${codes.join(", ")}`,
  );
  process.exit(codes.every((c) => c === 0) ? 0 : 1);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
