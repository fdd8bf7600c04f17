// The background-work benchmark (issue 6; `npm run bench -- tasks`): starts the product under `wrangler dev` on a
// free loopback port with fresh local state, then measures on this machine:
//   - upload completion → preview visible: JPEGs (1600×1200, ~2 MP) uploaded one at a time through the API; the time
//     from the PUT's 201 until GET /api/asset/content/preview/{id}/1/thumb answers 200 (p50, p95);
//   - throughput: 1,000 preview tasks (BENCH_TASKS) enqueued through POST /api/tasklist/enqueue-task/preview, one
//     asset each, timed until all are done: previews per second, with workerd's peak RSS (runtime process) meanwhile;
//   - pause: a long preview task is paused while it runs; the time from the command until the run has stopped
//     (worker_info cleared by the runner at its next check-in).
// Prints a table; exits 0 once it has run (a benchmark is not a test), 1 only when it could not run. Loopback only;
// every wait is bounded; the server is always stopped.
import { readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { buildUnlessSkipped, login, ms, percentile, printTable, ROOT } from "./lib/measure.mjs";
import { rssByRole, withRssSamples, workerdProcesses } from "./lib/workerd.mjs";

const TASKS = Number(process.env.BENCH_TASKS ?? 1000);
const LATENCY_UPLOADS = Number(process.env.BENCH_LATENCY_UPLOADS ?? 20);
/** distinct source assets the throughput tasks cycle over */
const SOURCES = 50;
const ENQUEUE_CONCURRENCY = 8;
const PAUSE_TASK_ASSETS = 200;
const PHOTO = readFileSync(join(ROOT, "tests/fixtures/photo-1600x1200.jpg"));
const MiB = 1024 ** 2;
const mib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / MiB).toFixed(0)} MiB` : "n/a");
const sleep = (millis) => new Promise((resolve) => setTimeout(resolve, millis));

async function api(url, auth, path, { method = "GET", json, body, headers = {} } = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...auth, ...(json !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: json !== undefined ? JSON.stringify(json) : body,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed };
}

async function expectOk(promise, what, status = 200) {
  const res = await promise;
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`);
  return res.body;
}

/** create + create-version + PUT of the JPEG; answers the asset id and when the PUT answered. */
async function uploadPhoto(url, auth, group, n) {
  const name = `bench-${n}.jpg`;
  const { asset_id } = await expectOk(
    api(url, auth, "/api/asset/create", { method: "POST", json: { asset_name: name, asset_mime: "image/jpeg", in_group: group } }),
    "create",
  );
  const info = await expectOk(
    api(url, auth, `/api/asset/create-version/${asset_id}`, {
      method: "POST",
      json: { file_name: name, mime_type: "image/jpeg", size: PHOTO.length },
    }),
    "create-version",
  );
  const put = new URL(info.upload_url);
  await expectOk(
    api(url, {}, `${put.pathname}${put.search}`, { method: "PUT", body: PHOTO, headers: { "content-type": "image/jpeg" } }),
    "upload",
    201,
  );
  return { assetId: asset_id, committedAt: performance.now() };
}

/** Waits until `check` answers true; bounded. */
async function until(check, timeoutMs, everyMs = 25) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await sleep(everyMs);
  }
  return false;
}

async function main() {
  buildUnlessSkipped();
  const loadAtStart = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-tasks-"));
  console.log(`> wrangler dev on 127.0.0.1:${port} (state in ${persistDir})`);
  const server = await startDevServer({ port, persistDir });
  const stopOnSignal = () => server.stop().finally(() => process.exit(130));
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    const { url } = server;
    const auth = { authorization: `Bearer ${await login(url, server.adminLogin, server.adminPassword)}`, "x-api-version": "1.0" };
    const { group_id: group } = await expectOk(
      api(url, auth, "/api/group/create", { method: "POST", json: { parent: "f".repeat(32), group_name: "Bench tasks" } }),
      "group",
    );
    const processes = workerdProcesses(persistDir, port);
    const idle = rssByRole(processes);

    // 1. Upload → preview visible, one upload at a time on an idle queue.
    const latencies = [];
    const sources = [];
    for (let n = 0; n < Math.max(LATENCY_UPLOADS, 1); n++) {
      const { assetId, committedAt } = await uploadPhoto(url, auth, group, n);
      sources.push(assetId);
      const visible = await until(
        async () => (await api(url, auth, `/api/asset/content/preview/${assetId}/1/thumb`)).status === 200,
        120_000,
        20,
      );
      if (!visible) throw new Error(`the preview of upload ${n} did not appear within 120 s`);
      latencies.push(performance.now() - committedAt);
    }
    latencies.sort((a, b) => a - b);
    // More sources for the throughput run (their own upload tasks finish before the run starts).
    while (sources.length < SOURCES) sources.push((await uploadPhoto(url, auth, group, sources.length)).assetId);
    await until(async () => (await api(url, auth, "/api/tasklist/current/count?status=inqueue,running")).body?.count === 0, 600_000, 250);

    // 2. Throughput: TASKS preview tasks, one asset each.
    const run = await withRssSamples(
      processes,
      async () => {
        const started = performance.now();
        const ids = [];
        let next = 0;
        await Promise.all(
          Array.from({ length: ENQUEUE_CONCURRENCY }, async () => {
            while (next < TASKS) {
              const i = next++;
              const body = await expectOk(
                api(url, auth, "/api/tasklist/enqueue-task/preview", {
                  method: "POST",
                  json: { entities: [{ id: sources[i % sources.length], type: "asset" }] },
                }),
                "enqueue",
              );
              ids.push(body.job_id);
            }
          }),
        );
        const enqueuedMs = performance.now() - started;
        const finished = await until(
          async () => (await api(url, auth, "/api/tasklist/current/count?status=inqueue,running&op=preview")).body?.count === 0,
          60 * 60_000,
          500,
        );
        const elapsedMs = performance.now() - started;
        const done = (await api(url, auth, "/api/tasklist/current/count?status=done&op=preview")).body.count;
        const failed = (await api(url, auth, "/api/tasklist/current/count?status=error&op=preview")).body.count;
        return { enqueuedMs, elapsedMs, finished, done, failed };
      },
      500,
    );
    const perSecond = TASKS / (run.result.elapsedMs / 1000);

    // 3. Pause: a long task over many assets, paused while it runs.
    const many = Array.from({ length: PAUSE_TASK_ASSETS }, (_, i) => ({ id: sources[i % sources.length], type: "asset" }));
    const { job_id: pauseId } = await expectOk(
      api(url, auth, "/api/tasklist/enqueue-task/preview", { method: "POST", json: { entities: many } }),
      "enqueue long",
    );
    await until(async () => (await api(url, auth, `/api/tasklist/task/${pauseId}`)).body?.progress > 2, 120_000, 50);
    const pausedAt = performance.now();
    await expectOk(api(url, auth, `/api/tasklist/command/${pauseId}`, { method: "POST", json: { command: "pause" } }), "pause");
    const stopped = await until(
      async () => {
        const task = (await api(url, auth, `/api/tasklist/task/${pauseId}`)).body;
        return task.status === "paused" && task.worker_info === null;
      },
      60_000,
      10,
    );
    const pauseMs = stopped ? performance.now() - pausedAt : NaN;
    await api(url, auth, `/api/tasklist/command/${pauseId}`, { method: "POST", json: { command: "cancel" } });

    printTable([
      ["machine load at start (1/5/15 min)", loadAtStart, "-", "-"],
      [`upload → preview visible, p50 (${latencies.length} uploads)`, ms(percentile(latencies, 50)), "-", "-"],
      [`upload → preview visible, p95`, ms(percentile(latencies, 95)), "-", "-"],
      [`${TASKS} preview tasks: enqueue time`, ms(run.result.enqueuedMs), "-", "-"],
      [
        `${TASKS} preview tasks: until all finished`,
        `${(run.result.elapsedMs / 1000).toFixed(1)} s${run.result.finished ? "" : " (timed out)"}`,
        "-",
        "-",
      ],
      ["previews per second (2 MP JPEG → 320 px + 1280 px)", perSecond.toFixed(2), "-", "-"],
      ["tasks done / error (the run's)", `${run.result.done - SOURCES} / ${run.result.failed}`, "-", "-"],
      ["workerd runtime RSS idle → peak", `${mib(idle.runtime)} → ${mib(run.runtime.max)}`, "-", "-"],
      ["pause command → run stopped", ms(pauseMs), "-", "-"],
    ]);
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
