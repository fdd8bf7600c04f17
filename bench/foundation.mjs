// The foundation benchmark (issue 2; `npm run bench -- foundation`): builds (unless
// SKIP_BUILD=1), starts the product under `wrangler dev` on a free loopback port with a fresh state directory,
// measures, prints a table against the targets and stops the server. Misses are reported,
// not failed: a benchmark is not a test, so the exit code is 0 unless the benchmark itself could not run.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { buildUnlessSkipped, load, login, ms, printTable, verdict, warmUp } from "./lib/measure.mjs";

/** Targets (milliseconds and bytes). */
const TARGETS = {
  whoamiP95Ms: 10,
  loginP95Ms: 150,
  loginJsGzipBytes: 150 * 1024,
};

/** Login: a few connections and a bounded number of sign-ins (PBKDF2 at 100,000 iterations each). */
const LOGIN = { connections: 4, amount: 200, warmup: 10 };
/** whoami: 50 concurrent connections for about 10 seconds. */
const WHOAMI = { connections: 50, durationSeconds: 10, warmup: 200 };
/** whoami on one connection for a few seconds: the service time without queueing, for reading the loaded figure. */
const WHOAMI_SINGLE = { connections: 1, durationSeconds: 3 };

/** Gzip size of every script the /login page loads from /assets (script src and modulepreload href). */
async function loginPageJs(url) {
  const response = await fetch(`${url}/login`, { signal: AbortSignal.timeout(10_000) });
  const html = await response.text();
  const paths = new Set();
  for (const tag of html.match(/<(script|link)\b[^>]*>/gi) ?? []) {
    const isScript = /^<script/i.test(tag);
    const isModulePreload = /\brel=["']?modulepreload/i.test(tag);
    if (!isScript && !isModulePreload) continue;
    const ref = /\b(?:src|href)=["']([^"']+)["']/i.exec(tag)?.[1];
    if (!ref) continue;
    const { pathname, origin } = new URL(ref, url);
    if (origin === new URL(url).origin && pathname.startsWith("/assets/")) paths.add(pathname);
  }
  // Remix also imports its entry from an inline module script: count those paths too.
  for (const match of html.matchAll(/import\s*(?:\(\s*)?["'](\/assets\/[^"']+\.js)["']/g)) paths.add(match[1]);

  let raw = 0;
  let gzip = 0;
  for (const path of paths) {
    const asset = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
    if (asset.status !== 200) throw new Error(`${path} answered ${asset.status}`);
    const bytes = Buffer.from(await asset.arrayBuffer());
    raw += bytes.length;
    gzip += gzipSync(bytes).length;
  }
  return { pageStatus: response.status, files: paths.size, raw, gzip };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

async function main() {
  buildUnlessSkipped();

  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-"));
  console.log(`> wrangler dev on 127.0.0.1:${port} (state in ${persistDir})`);
  const server = await startDevServer({ port, persistDir });
  const stopOnSignal = () => server.stop().finally(() => process.exit(130));
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    const { url, adminLogin, adminPassword } = server;
    console.log(`  cold start to first 200 on /api/health: ${ms(server.coldStartMs)} (migrations took ${ms(server.migrateMs)})`);

    // Every sign-in is correct: failures are what the throttle counts, and a success resets the account's counter.
    const loginBody = JSON.stringify({ user: adminLogin, passwd: adminPassword });
    await warmUp(LOGIN.warmup, () => login(url, adminLogin, adminPassword));
    console.log(`> POST /api/auth/login: ${LOGIN.amount} correct sign-ins over ${LOGIN.connections} connections`);
    const loginRun = await load({
      url: `${url}/api/auth/login`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: loginBody,
      connections: LOGIN.connections,
      amount: LOGIN.amount,
    });

    const bearer = await login(url, adminLogin, adminPassword);
    const auth = { authorization: `Bearer ${bearer}`, "x-api-version": "1.0" };
    await warmUp(WHOAMI.warmup, async () => {
      const response = await fetch(`${url}/api/auth/whoami`, { headers: auth, signal: AbortSignal.timeout(10_000) });
      if (response.status !== 200) throw new Error(`whoami answered ${response.status}`);
      await response.arrayBuffer();
    });
    console.log(`> GET /api/auth/whoami: ${WHOAMI_SINGLE.connections} connection for ${WHOAMI_SINGLE.durationSeconds} s`);
    const whoamiSingle = await load({
      url: `${url}/api/auth/whoami`,
      headers: auth,
      connections: WHOAMI_SINGLE.connections,
      duration: WHOAMI_SINGLE.durationSeconds,
    });
    console.log(`> GET /api/auth/whoami: ${WHOAMI.connections} connections for ${WHOAMI.durationSeconds} s`);
    const whoamiRun = await load({
      url: `${url}/api/auth/whoami`,
      headers: auth,
      connections: WHOAMI.connections,
      duration: WHOAMI.durationSeconds,
    });

    // The floor of the local stack (wrangler's proxy + workerd on this machine): the same load on /api/ping, which
    // does no auth and no I/O. whoami's figures read against this row.
    console.log(`> GET /api/ping (baseline): ${WHOAMI.connections} connections for ${WHOAMI.durationSeconds} s`);
    const pingRun = await load({ url: `${url}/api/ping`, connections: WHOAMI.connections, duration: WHOAMI.durationSeconds });

    console.log("> JavaScript loaded by /login");
    const js = await loginPageJs(url);

    printTable([
      ["cold start (spawn → first 200 /api/health)", ms(server.coldStartMs), "-", "-"],
      ["login p50", ms(loginRun.p50), "-", "-"],
      ["login p95", ms(loginRun.p95), `< ${TARGETS.loginP95Ms} ms`, verdict(loginRun.p95, TARGETS.loginP95Ms)],
      ["whoami p50 / p95 (1 conn., unloaded)", `${ms(whoamiSingle.p50)} / ${ms(whoamiSingle.p95)}`, "-", "-"],
      ["whoami p50 (50 conn.)", ms(whoamiRun.p50), "-", "-"],
      ["whoami p95 (50 conn.)", ms(whoamiRun.p95), `< ${TARGETS.whoamiP95Ms} ms`, verdict(whoamiRun.p95, TARGETS.whoamiP95Ms)],
      ["whoami requests/s", whoamiRun.requestsPerSecond.toFixed(0), "-", "-"],
      ["baseline /api/ping p50 / p95 (50 conn.)", `${ms(pingRun.p50)} / ${ms(pingRun.p95)}`, "-", "-"],
      ["baseline /api/ping requests/s", pingRun.requestsPerSecond.toFixed(0), "-", "-"],
      [
        `/login JS, gzip (${js.files} files, ${kb(js.raw)} raw)`,
        kb(js.gzip),
        `< ${kb(TARGETS.loginJsGzipBytes)}`,
        verdict(js.gzip, TARGETS.loginJsGzipBytes),
      ],
    ]);
    console.log(`login answers by status: ${JSON.stringify(loginRun.statuses)}; errors ${loginRun.errors}, timeouts ${loginRun.timeouts}`);
    console.log(
      `whoami answers by status: ${JSON.stringify(whoamiRun.statuses)}; errors ${whoamiRun.errors}, timeouts ${whoamiRun.timeouts}`,
    );
    if (js.pageStatus !== 200) console.log(`note: /login answered ${js.pageStatus}; the JS figure is for that page`);
    const non200 = (run) => run.count - (run.statuses[200] ?? 0);
    if (non200(loginRun) > 0 || non200(whoamiRun) > 0) console.log("note: some answers were not 200; the latencies include them");
  } finally {
    process.removeListener("SIGINT", stopOnSignal);
    process.removeListener("SIGTERM", stopOnSignal);
    await server.stop();
    await rm(persistDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`bench could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
