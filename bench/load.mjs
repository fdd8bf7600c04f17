// Load and soak benchmark (issue 16): starts the built product under `wrangler dev` on a fresh state directory, seeds
// a library (folders of text files and JPEGs, searchable names and text), creates LOAD_USERS users (administrator
// API) who may read and upload there through an access rule, signs them in, then drives 50 concurrent connections
// with autocannon for LOAD_SECONDS (default 600), each cycling through a mix of
//   browse  (a folder's members page),
//   viewer  (a file's info, its preview, its bytes),
//   search  (a query for a seeded word),
//   upload  (a small file through the single-PUT flow: create file, create-version, PUT),
//   ping    (/api/ping: the floor every route is read against, measured in the same run).
// Afterwards every upload that answered 201 is checked to be committed with the SHA-256 of the bytes sent. Prints
// totals, 5xx, lost uploads, p50/p95 per route beside the floor, workerd's RSS at start / peak / end and its mean over
// each fifth of the run, and the Worker isolate's JS heap (through the inspector `wrangler dev` exposes: sampled
// during the run, and after a full collection before the seed and after the load). Unlike the other benchmarks it fails its own
// targets (issue 25): a 5xx, a lost upload, or a last fifth's RSS more than 10 % above the second fifth's prints MISS
// and exits 1. Decision record 028 says what the RSS is made of.
//
//   node bench/load.mjs                      (builds first; SKIP_BUILD=1 to reuse build/)
//   LOAD_SECONDS=120 SKIP_BUILD=1 node bench/load.mjs     (a shorter run: the same figures, less load)
//   LOAD_MIX=ping LOAD_SECONDS=120 SKIP_BUILD=1 node bench/load.mjs   (only /api/ping: the simulator's own share)
//   LOAD_SNAPSHOTS=/tmp/snaps …              (keeps the before/after .heapsnapshot files for Chrome DevTools)
//   npm run bench -- load
import autocannon from "autocannon";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { ROOT, buildUnlessSkipped, percentile, printTable } from "./lib/measure.mjs";
import { connectInspector } from "./lib/inspector.mjs";
import { fifthMeans, reloadsIn, withRssSamples, workerdProcesses } from "./lib/workerd.mjs";

const ROOT_GROUP = "f".repeat(32);
const SECONDS = Math.max(5, Number(process.env.LOAD_SECONDS ?? 600));
const CONNECTIONS = Math.max(1, Number(process.env.LOAD_CONNECTIONS ?? 50));
const USERS = Math.max(1, Number(process.env.LOAD_USERS ?? 50));
const FOLDERS = 20;
const TEXTS_PER_FOLDER = 10;
const IMAGES = 20;
const UPLOAD_BYTES = 4096;
const RSS_SAMPLE_MS = 1000;
/** Flat memory: the runtime's mean RSS over the last fifth of the run at most this much above the second fifth's. */
const RSS_FLAT_MARGIN = 0.1;
/**
 * The routes driven: all of the mix below, or those whose names start with one of LOAD_MIX's comma-separated words
 * (`LOAD_MIX=ping`: the runtime's and the simulators' own memory under the same load; `LOAD_MIX=ping,search`: …).
 */
const MIX = (process.env.LOAD_MIX ?? "").split(",").map((word) => word.trim()).filter(Boolean);
/** A directory: heap snapshots of the Worker's isolate before and after the load (after a forced collection). */
const SNAPSHOTS = process.env.LOAD_SNAPSHOTS ?? "";
const SEED_CONCURRENCY = 8;
/** Words the seeded names and texts are made of; searches ask for them. */
const WORDS = ["отчёт", "пляж", "горы", "интервью", "репортаж", "съёмка", "договор", "афиша", "концерт", "выставка", "report", "beach"];

const MiB = 1024 * 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / MiB).toFixed(0)} MiB` : "n/a");
const msText = (value) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : "n/a");
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");
const pick = (list) => list[Math.floor(Math.random() * list.length)];

// ---------------------------------------------------------------------------------------------------------------
// HTTP for seeding and checking

let base = "";

async function api(path, { method = "GET", bearer, json, body, headers = {} } = {}, expected = 200) {
  const h = { ...headers };
  if (bearer) h.authorization = `Bearer ${bearer}`;
  if (json !== undefined) h["content-type"] = "application/json";
  const response = await fetch(`${base}${path}`, {
    method,
    headers: h,
    body: json !== undefined ? JSON.stringify(json) : body,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

const pathOf = (url) => {
  const u = new URL(url, base);
  return `${u.pathname}${u.search}`;
};

/** Runs `task(i)` for i in 0…count-1, `concurrency` at a time. */
async function pool(count, concurrency, task) {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await task(i);
  };
  await Promise.all(Array.from({ length: Math.min(count, concurrency) }, worker));
}

/** A file through the single-PUT flow: create, create-version, PUT; answers ids. */
async function uploadFile(bearer, group, name, mime, bytes) {
  const asset = await api("/api/asset/create", { method: "POST", bearer, json: { asset_name: name, asset_mime: mime, in_group: group } });
  const info = await api(`/api/asset/create-version/${asset.asset_id}`, {
    method: "POST",
    bearer,
    json: { file_name: name, mime_type: mime, size: bytes.byteLength, to_group: group },
  });
  await api(pathOf(info.upload_url), { method: "PUT", body: bytes, headers: { "content-type": mime } }, 201);
  return { assetId: asset.asset_id, variantId: info.variant_id };
}

// ---------------------------------------------------------------------------------------------------------------
// Seed: folders of text files, JPEGs with previews, users with a rule on the top folder.

async function seed(adminBearer) {
  const top = await api("/api/group/create", {
    method: "POST",
    bearer: adminBearer,
    json: { parent: ROOT_GROUP, group_name: `Нагрузка ${Date.now()}` },
  });
  const folders = [];
  for (let f = 0; f < FOLDERS; f++) {
    const folder = await api("/api/group/create", {
      method: "POST",
      bearer: adminBearer,
      json: { parent: top.group_id, group_name: `Папка ${f + 1} ${WORDS[f % WORDS.length]}` },
    });
    folders.push(folder.group_id);
  }
  const uploads = await api("/api/group/create", { method: "POST", bearer: adminBearer, json: { parent: top.group_id, group_name: "Загрузки" } });

  const texts = [];
  await pool(FOLDERS * TEXTS_PER_FOLDER, SEED_CONCURRENCY, async (i) => {
    const word = WORDS[i % WORDS.length];
    const body = Buffer.from(`${word} ${WORDS[(i * 7) % WORDS.length]} — документ ${i}. ${"Текст для поиска. ".repeat(40)}`);
    texts.push(await uploadFile(adminBearer, folders[i % FOLDERS], `${word} ${i}.txt`, "text/plain", body));
  });
  const jpeg = readFileSync(join(ROOT, "tests/fixtures/tiny-200x100.jpg"));
  const images = [];
  await pool(IMAGES, SEED_CONCURRENCY, async (i) => {
    images.push(await uploadFile(adminBearer, folders[i % FOLDERS], `${WORDS[i % WORDS.length]} кадр ${i}.jpg`, "image/jpeg", jpeg));
  });

  // Previews are made by background tasks: wait until they are served (bounded), and view only those that are.
  const withPreview = [];
  const deadline = Date.now() + 120_000;
  for (const image of images) {
    for (;;) {
      const response = await fetch(`${base}/api/asset/content/preview/${image.assetId}/1/thumb`, {
        headers: { authorization: `Bearer ${adminBearer}` },
      });
      await response.arrayBuffer();
      if (response.status === 200) {
        withPreview.push(image);
        break;
      }
      if (Date.now() > deadline) break;
      await sleep(500);
    }
  }

  const password = randomBytes(12).toString("base64url");
  const users = [];
  await pool(USERS, SEED_CONCURRENCY, async (i) => {
    const login = `load-user-${i + 1}-${randomBytes(3).toString("hex")}`;
    const user = await api("/api/user", {
      method: "POST",
      bearer: adminBearer,
      json: { user_name: `Нагрузка ${i + 1}`, user_login: login, user_passwd: password, enabled: true },
    });
    await api("/api/user/acl", {
      method: "POST",
      bearer: adminBearer,
      json: { subj: user.user_id, obj: top.group_id, acl: ["read", "create", "download"] },
    }, 201);
    users.push(login);
  });
  const bearers = [];
  for (const login of users) bearers.push((await api("/api/auth/login", { method: "POST", json: { user: login, passwd: password } })).bearer);
  return { folders, uploadsFolder: uploads.group_id, texts, images: withPreview, bearers };
}

// ---------------------------------------------------------------------------------------------------------------
// The load: one autocannon run; each connection cycles through the mix below. autocannon calls a request's
// onResponse right before it emits the response with its time, so the route of each timed response is known.

function mix(s, uploads) {
  let nextUser = 0;
  let lastRoute = "";
  // Each connection signs in as the next user on its first request and stays that user.
  const auth = (context) => {
    context.bearer ??= s.bearers[nextUser++ % s.bearers.length];
    return { authorization: `Bearer ${context.bearer}` };
  };
  const get = (route, path) => ({
    route,
    method: "GET",
    setupRequest(req, context) {
      return { ...req, method: "GET", path: path(context), headers: auth(context), body: undefined };
    },
    onResponse() {
      lastRoute = route;
    },
  });
  const requests = [
    get("browse", () => `/api/group/members/${pick(s.folders)}?take=50`),
    get("viewer: file info", (c) => {
      c.file = pick(s.texts);
      return `/api/asset/${c.file.assetId}`;
    }),
    get("viewer: file bytes", (c) => `/api/asset/content/download-variant/${c.file.variantId}`),
    ...(s.images.length > 0 ? [get("viewer: preview", () => `/api/asset/content/preview/${pick(s.images).assetId}/1/thumb`)] : []),
    get("search", () => `/api/search/query/${encodeURIComponent(pick(WORDS))}?take=20`),
    get("ping (floor)", () => "/api/ping"),
    {
      route: "upload: create file",
      method: "POST",
      setupRequest(req, context) {
        context.n = uploads.started++;
        context.name = `загрузка ${context.n} ${pick(WORDS)}.txt`;
        return {
          ...req,
          method: "POST",
          path: "/api/asset/create",
          headers: { ...auth(context), "content-type": "application/json" },
          body: JSON.stringify({ asset_name: context.name, asset_mime: "text/plain", in_group: s.uploadsFolder }),
        };
      },
      onResponse(status, body, context) {
        lastRoute = "upload: create file";
        if (status === 200) context.assetId = JSON.parse(body).asset_id;
        else uploads.failed++;
      },
    },
    {
      route: "upload: create-version",
      method: "POST",
      setupRequest(req, context) {
        if (!context.assetId) return null; // the chain broke: start the next cycle
        context.bytes = Buffer.concat([Buffer.from(`${context.name}\n`), randomBytes(UPLOAD_BYTES)]).subarray(0, UPLOAD_BYTES);
        return {
          ...req,
          method: "POST",
          path: `/api/asset/create-version/${context.assetId}`,
          headers: { ...auth(context), "content-type": "application/json" },
          body: JSON.stringify({ file_name: context.name, mime_type: "text/plain", size: UPLOAD_BYTES, to_group: s.uploadsFolder }),
        };
      },
      onResponse(status, body, context) {
        lastRoute = "upload: create-version";
        if (status === 200) context.uploadUrl = JSON.parse(body).upload_url;
        else uploads.failed++;
      },
    },
    {
      route: "upload: PUT bytes",
      method: "PUT",
      setupRequest(req, context) {
        if (!context.uploadUrl) return null;
        return { ...req, method: "PUT", path: pathOf(context.uploadUrl), headers: { "content-type": "text/plain" }, body: context.bytes };
      },
      onResponse(status, body, context) {
        lastRoute = "upload: PUT bytes";
        if (status === 201) uploads.committed.push({ variantId: JSON.parse(body).asset_variant_id, sha256: sha256(context.bytes) });
        else uploads.failed++;
      },
    },
  ];
  const driven = MIX.length === 0 ? requests : requests.filter((r) => MIX.some((word) => r.route.startsWith(word)));
  if (driven.length === 0) throw new Error(`LOAD_MIX=${MIX.join(",")} names none of: ${requests.map((r) => r.route).join(", ")}`);
  return { requests: driven, route: () => lastRoute };
}

/** The isolate's JS heap (used bytes) every `everyMs` while the load runs; nothing when there is no inspector. */
function sampleHeap(isolate, everyMs) {
  const samples = [];
  let busy = false;
  const timer = setInterval(async () => {
    if (!isolate || busy) return;
    busy = true;
    try {
      samples.push((await isolate.heapUsage()).usedSize);
    } catch {
      // the inspector is busy or reconnecting: skip this sample
    } finally {
      busy = false;
    }
  }, everyMs);
  return { samples, stop: () => clearInterval(timer) };
}

/** The JS heap left after a full collection (what something still holds), kept as a snapshot file when asked. */
async function settledHeap(isolate, label) {
  if (!isolate) return NaN;
  try {
    // V8 collects fully before a snapshot; without LOAD_SNAPSHOTS the snapshot is only the way to that collection.
    const file = join(SNAPSHOTS || tmpdir(), `load-${label}-${Date.now()}.heapsnapshot`);
    await isolate.snapshot(file);
    if (SNAPSHOTS) console.log(`> heap snapshot (${label}): ${file}`);
    else await rm(file, { force: true });
    return (await isolate.heapUsage()).usedSize;
  } catch (error) {
    console.log(`> could not read the JS heap (${label}): ${error.message}`);
    return NaN;
  }
}

async function runLoad(s) {
  const uploads = { started: 0, failed: 0, committed: [] };
  const { requests, route } = mix(s, uploads);
  const perRoute = new Map();
  const instance = autocannon({ url: base, connections: CONNECTIONS, duration: SECONDS, timeout: 30, requests });
  instance.on("response", (_client, statusCode, _bytes, responseTime) => {
    const name = route();
    const entry = perRoute.get(name) ?? { times: [], statuses: new Map() };
    entry.times.push(responseTime);
    entry.statuses.set(statusCode, (entry.statuses.get(statusCode) ?? 0) + 1);
    perRoute.set(name, entry);
  });
  const result = await instance;
  for (const entry of perRoute.values()) entry.times.sort((a, b) => a - b);
  return { perRoute, uploads, errors: result.errors, timeouts: result.timeouts, duration: result.duration };
}

/** Every upload that answered 201 must be ready with the SHA-256 of the bytes sent. */
async function lostUploads(adminBearer, committed) {
  let lost = 0;
  let firstProblem = "";
  await pool(committed.length, SEED_CONCURRENCY, async (i) => {
    const { variantId, sha256: expected } = committed[i];
    try {
      const status = await api(`/api/upload/status/${variantId}`, { bearer: adminBearer });
      if (status.state !== "ready" || status.sha256 !== expected) throw new Error(`${variantId}: ${status.state}, sha256 ${status.sha256}`);
    } catch (error) {
      lost++;
      firstProblem ||= String(error);
    }
  });
  return { lost, firstProblem };
}

async function main() {
  buildUnlessSkipped();
  const port = Number(process.env.LOAD_PORT) || (await freePort());
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-load-"));
  console.log(`> wrangler dev on 127.0.0.1:${port} (state in ${persistDir})`);
  const server = await startDevServer({ port, persistDir });
  base = server.url;
  try {
    const adminBearer = (await api("/api/auth/login", { method: "POST", json: { user: server.adminLogin, passwd: server.adminPassword } })).bearer;
    // Before the seed: a heap snapshot briefly costs the runtime well over 100 MiB, which must not sit in the RSS
    // figures of the load (the "after" one is taken once they are read).
    const isolate = await connectInspector(server.inspectorPort).catch((error) => {
      console.log(`> no inspector, so no JS heap figures: ${error.message}`);
      return null;
    });
    const heapBefore = await settledHeap(isolate, "before");
    const seedStarted = performance.now();
    const s = await seed(adminBearer);
    console.log(
      `> seeded ${s.folders.length} folders, ${s.texts.length} text files, ${s.images.length} JPEGs with previews, ${s.bearers.length} users signed in (${(
        (performance.now() - seedStarted) /
        1000
      ).toFixed(0)} s)`,
    );
    const pids = workerdProcesses(persistDir, port);
    console.log(`> ${CONNECTIONS} connections for ${SECONDS} s; workerd pid(s) ${pids.map((p) => `${p.pid} (${p.role})`).join(", ") || "not found"}`);

    const heap = sampleHeap(isolate, Math.max(1000, (SECONDS * 1000) / 100));
    const sampled = await withRssSamples(pids, () => runLoad(s), RSS_SAMPLE_MS).finally(heap.stop);
    const run = sampled.result;
    const heapAfter = await settledHeap(isolate, "after");
    isolate?.close();
    const verify = await lostUploads(adminBearer, run.uploads.committed);

    const floor = run.perRoute.get("ping (floor)");
    const floorP95 = floor ? percentile(floor.times, 95) : NaN;
    let total = 0;
    let fiveXX = 0;
    let otherNon2xx = 0;
    const routeRows = [];
    for (const [name, entry] of [...run.perRoute].sort(([a], [b]) => a.localeCompare(b))) {
      const count = entry.times.length;
      total += count;
      let five = 0;
      let other = 0;
      for (const [status, n] of entry.statuses) {
        if (status >= 500) five += n;
        else if (status >= 300) other += n;
      }
      fiveXX += five;
      otherNon2xx += other;
      const p95 = percentile(entry.times, 95);
      routeRows.push([
        name,
        `${count} req, p50 ${msText(percentile(entry.times, 50))}, p95 ${msText(p95)}`,
        name.startsWith("ping") ? "floor" : `${Number.isFinite(floorP95) && floorP95 > 0 ? (p95 / floorP95).toFixed(1) : "n/a"}× floor p95`,
        five > 0 ? `${five} × 5xx` : other > 0 ? `${other} × non-2xx` : "—",
      ]);
    }
    const rss = { start: sampled.fifths[0], peak: sampled.runtime.max, end: sampled.fifths.at(-1) };
    const [, second, , , last] = sampled.fifthMeans;
    const rssFlat = sampled.fifthMeans.length === 5 ? last <= second * (1 + RSS_FLAT_MARGIN) : undefined;
    // The targets this benchmark enforces (issue 25): no 5xx, no lost upload, memory that stays flat under a steady load.
    if (rssFlat === false || fiveXX > 0 || verify.lost > 0) process.exitCode = 1;
    console.log(
      `\nLoad and soak${MIX.length > 0 ? ` (only ${MIX.join(", ")})` : ""}: ${CONNECTIONS} connections, ${s.bearers.length} users, ${run.duration} s against wrangler dev`,
    );
    printTable([
      ["requests (total)", `${total} (${(total / run.duration).toFixed(0)}/s)`, "reported", "—"],
      ["5xx answers", String(fiveXX), "0", fiveXX === 0 ? "PASS" : "MISS"],
      ["other non-2xx answers", String(otherNon2xx), "reported", "—"],
      ["connection errors / timeouts", `${run.errors} / ${run.timeouts}`, "0", run.errors + run.timeouts === 0 ? "PASS" : "MISS"],
      [
        "uploads (201 / failed in the chain)",
        `${run.uploads.committed.length} / ${run.uploads.failed}`,
        "0 failed",
        run.uploads.failed === 0 ? "PASS" : "MISS",
      ],
      [
        "lost uploads (201 but not ready with the sent SHA-256)",
        `${verify.lost}${verify.firstProblem ? ` (first: ${verify.firstProblem})` : ""}`,
        "0",
        verify.lost === 0 ? "PASS" : "MISS",
      ],
      ...routeRows,
      ["workerd RSS start / peak / end", `${mib(rss.start)} / ${mib(rss.peak)} / ${mib(rss.end)}`, "reported", "—"],
      [
        "workerd RSS, mean of each fifth",
        sampled.fifthMeans.map(mib).join(", "),
        `last ≤ second + ${Math.round(RSS_FLAT_MARGIN * 100)} %`,
        rssFlat === undefined ? "n/a" : rssFlat ? "PASS" : "MISS",
      ],
      ["JS heap of the Worker's isolate, mean of each fifth", fifthMeans(heap.samples).map(mib).join(", ") || "n/a", "reported", "—"],
      ["JS heap after a full collection, before the seed / after the load", `${mib(heapBefore)} / ${mib(heapAfter)}`, "reported", "—"],
      ["Worker reloads during the run", String(reloadsIn(server.logFile)), "0", "—"],
    ]);
  } catch (error) {
    console.error(`benchmark failed: ${error.stack ?? error}`);
    process.exitCode = 1;
    console.error(`--- wrangler dev output (tail) ---\n${server.output()}`);
  } finally {
    await server.stop();
    await rm(persistDir, { recursive: true, force: true });
  }
}

main()
  .catch((error) => {
    console.error(`benchmark could not run: ${error.stack ?? error}`);
    process.exitCode = 1;
  })
  .finally(() => process.exit(process.exitCode ?? 0));
