// npm run test:e2e: builds the product (unless SKIP_BUILD=1), then runs the Chromium tests in tests/e2e against
// `wrangler dev` (started by tests/e2e/global-setup.ts). Exits with vitest's code.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// Node 24 from node_modules first, also when this script is started with the system Node.
const env = {
  ...process.env,
  PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};

function run(command, args, timeoutMs) {
  console.log(`> ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env, timeout: timeoutMs, killSignal: "SIGTERM" });
  if (result.error) console.error(`${command} failed: ${result.error.message}`);
  return result.status ?? 1;
}

if (process.env.SKIP_BUILD !== "1") {
  const status = run("npm", ["run", "build"], 10 * 60_000);
  if (status !== 0) process.exit(status);
}
process.exit(run("npx", ["vitest", "run", "--config", "vitest.e2e.config.ts", ...process.argv.slice(2)], 30 * 60_000));
