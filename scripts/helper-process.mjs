// Starts the local disk helper (helper/main.ts) as its own process on the project's pinned Node: what the helper's
// integration tests, the e2e test and the helper benchmark run. stop() ends it gently, kill() as a crash would.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const NODE = join(ROOT, "node_modules", ".bin", "node");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @param {object} options
 * @param {string} options.root the helper's root folder
 * @param {number} options.port loopback port
 * @param {string} options.origin the app's origin (also the API's)
 * @param {number} [options.interval] seconds between sync passes (default 1)
 * @returns {Promise<{ url: string, output: () => string, stop: () => Promise<void>, kill: () => Promise<void> }>}
 */
export async function startHelper({ root, port, origin, interval = 1 }) {
  const args = [join(ROOT, "helper", "main.ts"), "--root", root, "--port", String(port), "--origin", origin, "--interval", String(interval)];
  const child = spawn(NODE, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let tail = "";
  const record = (chunk) => {
    tail = (tail + chunk.toString()).slice(-20_000);
  };
  child.stdout.on("data", record);
  child.stderr.on("data", record);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const end = async (signal) => {
    process.removeListener("exit", killOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await Promise.race([exited, sleep(5_000)]);
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the helper exited with ${child.exitCode}:\n${tail}`);
    if (Date.now() > deadline) {
      await end("SIGKILL");
      throw new Error(`the helper did not answer on ${url} within 30 s:\n${tail}`);
    }
    try {
      const res = await fetch(`${url}/status`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  return { url, output: () => tail, stop: () => end("SIGTERM"), kill: () => end("SIGKILL") };
}
