// The local product under measurement: which workerd processes serve a benchmark's `wrangler dev`, their memory,
// and riding out reloads. Shared by every benchmark under bench/.
import { readdirSync, readFileSync } from "node:fs";
import { basename } from "node:path";

const sleep = (millis) => new Promise((resolve) => setTimeout(resolve, millis));

function processTable() {
  const table = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
      table.set(Number(entry), { ppid, args });
    } catch {
      // the process ended meanwhile
    }
  }
  return table;
}

/**
 * The workerd processes serving this run (descendants of the wrangler that has our --persist-to): `proxy` is the dev
 * proxy listening on the port, `runtime` runs the Worker together with the local D1/R2/Durable Object simulators.
 */
export function workerdProcesses(persistDir, port) {
  const table = processTable();
  const ours = new Set(
    [...table]
      .filter(
        ([, p]) =>
          p.args.some((a) => a.includes("wrangler")) && p.args.includes("dev") && p.args[p.args.indexOf("--persist-to") + 1] === persistDir,
      )
      .map(([pid]) => pid),
  );
  const found = [];
  for (const [pid, p] of table) {
    if (!p.args[0] || !basename(p.args[0]).startsWith("workerd")) continue;
    for (let parent = p.ppid, hops = 0; parent > 1 && hops < 16; parent = table.get(parent)?.ppid ?? 0, hops++) {
      if (ours.has(parent)) {
        found.push({ pid, role: p.args.some((a) => a.endsWith(`=127.0.0.1:${port}`)) ? "proxy" : "runtime" });
        break;
      }
    }
  }
  return found;
}

/** VmRSS summed per role ({ proxy, runtime }) in bytes; NaN for a role none of whose processes could be read. */
export function rssByRole(processes) {
  const out = { proxy: NaN, runtime: NaN };
  for (const { pid, role } of processes) {
    try {
      const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      if (kb) out[role] = (Number.isFinite(out[role]) ? out[role] : 0) + Number(kb) * 1024;
    } catch {
      // gone (a reload replaces the runtime process)
    }
  }
  return out;
}

/**
 * Runs `task` while sampling the RSS per role every `sampleMs`; answers its result with each role's min and max (NaN
 * where nothing could be read) and the runtime's RSS at each fifth of the run (flat memory shows as flat figures, a
 * leak as a climb).
 */
export async function withRssSamples(processes, task, sampleMs = 200) {
  const samples = [rssByRole(processes)];
  const timer = setInterval(() => samples.push(rssByRole(processes)), sampleMs);
  try {
    const result = await task();
    samples.push(rssByRole(processes));
    const values = (role) => samples.map((sample) => sample[role]).filter(Number.isFinite);
    const range = (role) => {
      const v = values(role);
      return { min: v.length ? Math.min(...v) : NaN, max: v.length ? Math.max(...v) : NaN };
    };
    const runtime = values("runtime");
    const fifths = runtime.length
      ? [0, 1, 2, 3, 4, 5].map((k) => runtime[Math.min(runtime.length - 1, Math.round((k * (runtime.length - 1)) / 5))])
      : [];
    return { result, runtime: range("runtime"), proxy: range("proxy"), samples: samples.length, fifths, fifthMeans: fifthMeans(runtime) };
  } finally {
    clearInterval(timer);
  }
}

/**
 * The mean of evenly spaced samples over each fifth of a run (five figures): a sample taken at a bad moment (a burst
 * of uploads, a collection about to run) weighs less than in the single figure at each fifth's boundary.
 */
export function fifthMeans(values) {
  if (values.length < 5) return [];
  return [0, 1, 2, 3, 4].map((k) => {
    const part = values.slice(Math.floor((k * values.length) / 5), Math.floor(((k + 1) * values.length) / 5));
    return part.reduce((sum, v) => sum + v, 0) / part.length;
  });
}

// wrangler dev reloads the Worker whenever a watched source file changes (another editor in the same checkout), which
// drops requests in flight. Steps are retried after the server answers again; tables say how many reloads a run saw,
// because figures from such a run straddle two builds of the code.

export async function waitForHealth(url, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // reloading
    }
    await sleep(500);
  }
  throw new Error(`/api/health did not answer 200 within ${timeoutMs} ms`);
}

/** Runs `step`; when it fails (a reload drops the connection), waits for the server and tries again, at most twice. */
export async function retried(url, what, step) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (attempt >= 3) throw error;
      console.log(`  ${what} failed (${error instanceof Error ? error.message : String(error)}); retrying once the server answers`);
      await waitForHealth(url);
    }
  }
}

/** How often the log says the Worker was reloaded. */
export function reloadsIn(logFile) {
  try {
    return (readFileSync(logFile, "utf8").match(/Reloading local server/g) ?? []).length;
  } catch {
    return 0;
  }
}
