// The library benchmark (issues 3, 17 and 42; `npm run bench -- library`): seeds 100,000 assets in one group and a
// tree of 11,111 groups into a fresh local D1, writes a 1 GiB object into local R2, starts the product under
// `wrangler dev` on a free loopback port and measures member pages (first, deep by cursor, deep by skip from the seek
// checkpoints), subtree (the tree form with files, as the UI asks for it), group-size from the folder rollups,
// entity-by-path, Range requests, 1 GiB downloads (throughput against a plain R2 read, and workerd's memory) and the
// write cost of the rollups: 1,000 × 10 KB uploads into the big group on a second server whose database had the
// rollup triggers (migrations 0014, 0042, 0043) dropped before the same seed ("before", dropped by the benchmark
// through the seed on its own throwaway state: the product has no switch for it) and as many on the main server
// with them ("after"), in interleaved rounds so the machine's other work weighs on both alike.
// Prints a table with PASS/MISS per target beside the floors (ping, whoami) of the same run, then the regression
// check against the figures recorded in bench/targets/library.json (MISS with the recorded figure when more than
// 20 % worse; BENCH_RECORD=1 records this run's). Always exits 0 once it has run (a benchmark is not a test), 1 only
// when it could not run. Only loopback traffic; every loop is bounded; the servers are always stopped.
//
//   node bench/library.mjs                 (builds first; SKIP_BUILD=1 to reuse build/)
//   BENCH_SCALE=0.01 node bench/library.mjs   (a quick check that it works: 1,200 assets, 111 groups, 10 MiB, 20 uploads)
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import {
  assetId,
  assetName,
  BIG_GROUP_ID,
  GIB_BYTES,
  GIB_KEY,
  GIB_VARIANT_ID,
  librarySeedSql,
  ROOT_GROUP_ID,
  TREE_TOP_ID,
  treeGroupCount,
  treeGroupId,
  treePath,
} from "./lib/library-seed.mjs";
import { buildUnlessSkipped, load, login, ms, printTable, ROOT, unexpected, verdict, warmUp } from "./lib/measure.mjs";
import { recordFigures, regressionRows } from "./lib/recorded-figures.mjs";
import { reloadsIn, retried, rssByRole, waitForHealth, withRssSamples, workerdProcesses } from "./lib/workerd.mjs";

/** Targets of the issues. */
const TARGETS = {
  membersP95Ms: 25,
  subtreeP95Ms: 150,
  downloadRatio: 0.8,
  /** "memory stays flat": workerd's RSS may not grow by more than this while 1 GiB streams through it */
  rssGrowthBytes: 64 * 1024 ** 2,
  /** issue 17: a skip page costs at most this multiple of the cursor page at the same position (p50 and p95) */
  skipOverCursor: 1.5,
  /** issue 17: group-size of the big group p95 below this multiple of whoami's p95 (same connections) */
  groupSizeOverWhoami: 2,
  /** issue 17: uploads/s with the rollups kept at least this share of uploads/s without them */
  uploadsAfterOverBefore: 0.9,
};

/** BENCH_SCALE < 1 shrinks every count and duration for a quick check that the benchmark runs (not for figures). */
const SCALE = Math.min(1, Math.max(0.001, Number(process.env.BENCH_SCALE ?? 1) || 1));
const FULL = SCALE === 1;
// Enough assets at any scale that the deep page sits past several seek checkpoints (500 apart).
const ASSETS = Math.max(1_200, Math.round(100_000 * SCALE));
const DEEP_POSITION = Math.round(ASSETS * 0.9);
const TAKE = 50;
const TREE_LEVELS = FULL ? 4 : SCALE >= 0.1 ? 3 : 2;
const DEEP_DIGITS = [3, 7, 2, 9].slice(0, TREE_LEVELS);
const TREE_GROUPS = treeGroupCount({ levels: TREE_LEVELS }) + 1;
const BIG_BYTES = FULL ? GIB_BYTES : Math.max(1024 ** 2, Math.round(GIB_BYTES * SCALE));
const RANGE_START = Math.floor(BIG_BYTES / 2);
const RANGE = `bytes=${RANGE_START}-${RANGE_START + 999_999}`;
const UPLOADS = Math.max(20, Math.round(1_000 * SCALE));
const UPLOAD_BYTES = 10 * 1000;
const UPLOAD_CONCURRENCY = 16;
const UPLOAD_WARMUP = 5;
/** The uploads with and without rollups run in this many interleaved rounds each. */
const UPLOAD_ROUNDS = FULL ? 4 : 2;
/** Loaded runs: moderate concurrency for a few seconds; single-connection runs: the service time without queueing. */
const LOADED = { connections: 10, durationSeconds: FULL ? 6 : 1 };
const SINGLE = { connections: 1, durationSeconds: FULL ? 3 : 1 };
const WARMUP_REQUESTS = 5;
const WARMUP_MS = FULL ? 5_000 : 1_000;
const DOWNLOAD_ROUNDS = 3;
const TREE_SIZE_TIMEOUT_MS = 15_000;

/** The other listings checked (and measured, the last one) by skip: [sort, order, MIME prefix]. */
const SKIP_SORTS = [
  ["name", "desc"],
  ["mtime", "asc"],
  ["mtime", "desc"],
  ["size", "asc"],
  ["size", "desc"],
  ["name", "asc", "video/"],
];

const MiB = 1024 ** 2;
const mbps = (bytes, millis) => bytes / MiB / (millis / 1000);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / MiB).toFixed(0)} MiB` : "n/a");

// ---------------------------------------------------------------------------------------------------------------
// The member page cursor, encoded as workers/services/library/group-tree.ts encodes it (base64url of a JSON array); checked
// below against the X-Next-Cursor the API answers, so a change of format shows up as an error, not a wrong figure.

function encodeCursor({ s, o, t, k, i }) {
  return Buffer.from(JSON.stringify([s, o, t, k, i]), "utf8").toString("base64url");
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP on the loopback with node:http: full reads whose bytes are counted and dropped, with a bound on idle time.

/**
 * One request; the body is read to the end and discarded. `idleTimeoutMs` bounds silence on the socket (a 1 GiB
 * write answers only once it is done).
 */
function timedRequest(url, { method = "GET", headers = {}, body, idleTimeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      let bytes = 0;
      const chunks = [];
      res.on("data", (chunk) => {
        bytes += chunk.length;
        if (chunks.length < 64 && bytes <= 64 * 1024) chunks.push(chunk); // keep small bodies for error messages
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode,
          headers: res.headers,
          bytes,
          ms: performance.now() - started,
          text: Buffer.concat(chunks).toString(),
        }),
      );
      res.on("error", reject);
    });
    req.setTimeout(idleTimeoutMs, () => req.destroy(new Error(`${method} ${url}: no data for ${idleTimeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

async function getJson(url, headers, init = {}) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(60_000), ...init });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`${init.method ?? "GET"} ${url} answered ${response.status}: ${JSON.stringify(body)}`);
  return { body, headers: response.headers };
}

// ---------------------------------------------------------------------------------------------------------------

/** Checks the seeded data through the API; throws when it is not what the figures claim to measure. */
async function verifySeed(url, auth) {
  const sizes = await getJson(
    `${url}/api/group/group-size`,
    { ...auth, "content-type": "application/json" },
    {
      method: "POST",
      body: JSON.stringify({ ids: [BIG_GROUP_ID] }),
    },
  );
  const big = sizes.body[0];
  if (big?.assets !== ASSETS) throw new Error(`seed check: group-size answered ${JSON.stringify(sizes.body)}`);
  console.log(`  group-size: ${BIG_GROUP_ID} holds ${big.assets} assets (${mib(big.bytes)})`);

  // The cursor made here must be the one the API makes (first page → X-Next-Cursor).
  const first = await getJson(`${url}/api/group/members/${BIG_GROUP_ID}?type=asset&take=${TAKE}`, auth);
  const last = first.body.at(-1);
  const expected = encodeCursor({ s: "name", o: "asc", t: "asset", k: assetName(TAKE), i: assetId(TAKE) });
  if (first.body.length !== TAKE || last.el_id !== assetId(TAKE) || first.headers.get("x-next-cursor") !== expected) {
    throw new Error(`seed check: first page ends with ${last?.el_id}, cursor ${first.headers.get("x-next-cursor")} (expected ${expected})`);
  }

  // The deep page by cursor and by OFFSET are the same 50 assets.
  const cursor = encodeCursor({ s: "name", o: "asc", t: "asset", k: assetName(DEEP_POSITION), i: assetId(DEEP_POSITION) });
  const byCursor = await getJson(`${url}/api/group/members/${BIG_GROUP_ID}?type=asset&take=${TAKE}&after=${cursor}`, auth);
  const bySkip = await getJson(`${url}/api/group/members/${BIG_GROUP_ID}?type=asset&take=${TAKE}&skip=${DEEP_POSITION}`, auth);
  const ids = (page) => page.body.map((m) => m.el_id).join(",");
  if (byCursor.body.length !== TAKE || ids(byCursor) !== ids(bySkip) || byCursor.body[0].el_id !== assetId(DEEP_POSITION + 1)) {
    throw new Error(`seed check: the page after position ${DEEP_POSITION} differs between cursor and skip`);
  }
  console.log(`  members: page 1 and the page at ${DEEP_POSITION} (cursor = skip) have ${TAKE} assets each`);

  // Every other sort and a MIME filter at the same depth answer a full page by skip (the property tests prove them
  // equal to OFFSET); these requests also build those listings' seek lists, so the "after" uploads pay for keeping
  // seven lists of the big group exact, as a library browsed every way would.
  for (const [sort, order, mime] of SKIP_SORTS) {
    const page = await getJson(
      `${url}/api/group/members/${BIG_GROUP_ID}?type=asset&take=${TAKE}&skip=${
        mime ? Math.round(DEEP_POSITION / 3) - TAKE : DEEP_POSITION
      }&sort=${sort}&order=${order}${mime ? `&mime=${mime}` : ""}`,
      auth,
    );
    if (page.body.length !== TAKE)
      throw new Error(`seed check: skip page by ${sort} ${order}${mime ? ` ${mime}` : ""} has ${page.body.length} members`);
  }
  console.log(`  members by skip: full pages for ${SKIP_SORTS.length} more sorts and filters`);

  const subtree = await getJson(`${url}/api/group/subtree/${TREE_TOP_ID}`, auth);
  let nodes = 0;
  for (let stack = [subtree.body], guard = 0; stack.length > 0 && guard < 1_000_000; guard++) {
    const node = stack.pop();
    nodes++;
    stack.push(...node.subGroups);
  }
  if (nodes !== TREE_GROUPS) throw new Error(`seed check: subtree has ${nodes} nodes`);

  const path = treePath(DEEP_DIGITS);
  const found = await getJson(
    `${url}/api/group/entity-by-path/${ROOT_GROUP_ID}`,
    { ...auth, "content-type": "application/json" },
    {
      method: "POST",
      body: JSON.stringify({ path }),
    },
  );
  if (found.body.el_id !== treeGroupId(DEEP_DIGITS)) throw new Error(`seed check: ${path} resolved to ${JSON.stringify(found.body)}`);
  console.log(`  subtree: ${nodes} groups; entity-by-path '${path}' → ${found.body.el_id}`);
  return { cursor, path };
}

// ---------------------------------------------------------------------------------------------------------------
// Write cost of the rollups: small uploads into the big group with and without the triggers that keep the rollups,
// the seek checkpoints and the subtree cache's versions (migrations 0014, 0042 and 0043).

/** The migrations whose triggers keep the rollups, seek checkpoints and tree versions. */
const ROLLUP_MIGRATIONS = ["0014_", "0042_", "0043_"];

/** The names of the triggers those migrations create, read from the migrations themselves (so the list cannot go stale). */
function rollupTriggers() {
  const files = readdirSync(join(ROOT, "migrations")).filter((name) => ROLLUP_MIGRATIONS.some((p) => name.startsWith(p)));
  if (files.length !== ROLLUP_MIGRATIONS.length) throw new Error(`migrations ${ROLLUP_MIGRATIONS.join(", ")} not all found`);
  const names = files.flatMap((file) =>
    [...readFileSync(join(ROOT, "migrations", file), "utf8").matchAll(/CREATE TRIGGER `(\w+)`/g)].map((m) => m[1]),
  );
  if (names.length === 0) throw new Error(`${files.join(", ")} create no triggers`);
  return [...new Set(names)];
}

/**
 * `UPLOADS` files of 10 KB through the single-PUT flow (create asset in the group → create-version → PUT),
 * `UPLOAD_CONCURRENCY` at a time; answers files per second and failures.
 */
async function smallUploads(url, auth, groupId, label, count = UPLOADS, { warmUp = true, from = 0 } = {}) {
  const body = randomBytes(UPLOAD_BYTES);
  const json = { ...auth, "content-type": "application/json" };
  let next = 0;
  let failed = 0;
  let firstError = "";
  const call = async (path, payload) => {
    const response = await fetch(`${url}${path}`, {
      method: "POST",
      headers: json,
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  const upload = async (name) => {
    const asset = await call("/api/asset/create", { asset_name: name, asset_mime: "application/octet-stream", in_group: groupId });
    const info = await call(`/api/asset/create-version/${asset.asset_id}`, {
      file_name: name,
      mime_type: "application/octet-stream",
      size: UPLOAD_BYTES,
    });
    const put = await fetch(info.upload_url, {
      method: "PUT",
      body,
      headers: { "content-type": "application/octet-stream" },
      signal: AbortSignal.timeout(60_000),
    });
    const answer = await put.text();
    if (put.status !== 201) throw new Error(`PUT answered ${put.status}: ${answer.slice(0, 200)}`);
  };
  // Uncounted warm-up, one at a time: the first uploads of a fresh server pay for loading modules and objects.
  if (warmUp) for (let i = 0; i < UPLOAD_WARMUP; i++) await upload(`${label}-warm-${i}.bin`);
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      try {
        await upload(`${label}-${String(from + i).padStart(5, "0")}.bin`);
      } catch (error) {
        failed++;
        firstError ||= String(error);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: UPLOAD_CONCURRENCY }, worker));
  const took = performance.now() - started;
  const perSecond = (count - failed) / (took / 1000);
  console.log(
    `  ${label}: ${count} uploads in ${(took / 1000).toFixed(1)} s, ${perSecond.toFixed(1)}/s, ${failed} failed${
      firstError ? ` (first: ${firstError})` : ""
    }`,
  );
  return { perSecond, failed, took, done: count - failed };
}

/** group-size of the big group as the administrator sees it (from the rollups). */
async function bigGroupSize(url, auth) {
  const sizes = await getJson(
    `${url}/api/group/group-size`,
    { ...auth, "content-type": "application/json" },
    { method: "POST", body: JSON.stringify({ ids: [BIG_GROUP_ID] }) },
  );
  return sizes.body[0];
}

/**
 * The "before" server: a second server on its own throwaway state, the same seed but with every rollup trigger
 * dropped first. Its group-size answering no assets shows the triggers were off (nothing maintains the rollups
 * there). It stays up, idle, until the uploads run interleaved with the main server's (`interleavedUploads`).
 */
async function startWithoutRollups(seedSql) {
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-library-before-"));
  const drop = rollupTriggers()
    .map((name) => `DROP TRIGGER IF EXISTS ${name};`)
    .join("\n");
  console.log(
    `> "before": a second wrangler dev on 127.0.0.1:${port}, the same seed with the ${rollupTriggers().length} rollup triggers dropped`,
  );
  const server = await startDevServer({ port, persistDir, seedSql: `${drop}\n${seedSql}`, migrateTimeoutMs: 600_000 });
  const stop = async () => {
    await server.stop();
    await rm(persistDir, { recursive: true, force: true, maxRetries: 3 });
  };
  try {
    const auth = { authorization: `Bearer ${await login(server.url, server.adminLogin, server.adminPassword)}`, "x-api-version": "1.0" };
    const size = await retried(server.url, "group-size without rollups", () => bigGroupSize(server.url, auth));
    if (size.assets !== 0)
      throw new Error(`"before" server: group-size answered ${JSON.stringify(size)}; the rollup triggers were not dropped`);
    return { server, stop };
  } catch (error) {
    console.error(`--- wrangler dev output ("before", tail) ---\n${server.output().slice(-4000)}`);
    await stop();
    throw error;
  }
}

/**
 * The uploads with and without the rollups, interleaved so the machine's other work weighs on both alike: rounds of
 * UPLOADS / UPLOAD_ROUNDS files into each server in turn (which goes first alternates). Answers files per second
 * over all rounds for each.
 */
async function interleavedUploads(before, after) {
  const perRound = Math.ceil(UPLOADS / UPLOAD_ROUNDS);
  const totals = { before: { took: 0, done: 0, failed: 0 }, after: { took: 0, done: 0, failed: 0 } };
  const sides = { before, after };
  for (let round = 0; round < UPLOAD_ROUNDS; round++) {
    const order = round % 2 === 0 ? ["before", "after"] : ["after", "before"];
    for (const label of order) {
      const side = sides[label];
      // A fresh token per round: the access token lives 15 minutes.
      const auth = { authorization: `Bearer ${await login(side.url, side.adminLogin, side.adminPassword)}`, "x-api-version": "1.0" };
      const run = await smallUploads(side.url, auth, BIG_GROUP_ID, `${label} round ${round + 1}`, perRound, {
        warmUp: round === 0,
        from: round * perRound,
      });
      totals[label].took += run.took;
      totals[label].done += run.done;
      totals[label].failed += run.failed;
    }
  }
  const rate = (t) => ({ perSecond: t.done / (t.took / 1000), failed: t.failed, done: t.done });
  return { before: rate(totals.before), after: rate(totals.after), perRound };
}

/** Single-connection then loaded run of one request; warm-up first. */
async function measure(name, options, expectedStatus = 200) {
  const { url, method = "GET", headers = {}, body } = options;
  const warmUpUntil = Date.now() + WARMUP_MS;
  await retried(new URL(url).origin, `${name} warm-up`, () =>
    warmUp(WARMUP_REQUESTS, async () => {
      if (Date.now() > warmUpUntil) return; // a slow endpoint is warm after its first answers
      const response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(30_000) });
      await response.arrayBuffer();
      if (response.status !== expectedStatus) throw new Error(`${name}: warm-up answered ${response.status}`);
    }),
  );
  console.log(
    `> ${name}: ${SINGLE.connections} connection for ${SINGLE.durationSeconds} s, then ${LOADED.connections} for ${LOADED.durationSeconds} s`,
  );
  const single = await load({ url, method, headers, body, connections: SINGLE.connections, duration: SINGLE.durationSeconds });
  const loaded = await load({ url, method, headers, body, connections: LOADED.connections, duration: LOADED.durationSeconds });
  for (const run of [single, loaded]) {
    if (unexpected(run, expectedStatus) > 0 || run.errors > 0 || run.timeouts > 0) {
      console.log(`  note: ${name}: answers ${JSON.stringify(run.statuses)}, errors ${run.errors}, timeouts ${run.timeouts}`);
    }
  }
  return { name, single, loaded, expectedStatus };
}

/**
 * Three interleaved rounds of full 1 GiB reads: straight from the binding and through the product's download. The
 * workerd processes are looked up before every read (a reload replaces the runtime process).
 */
async function downloads(url, auth, benchAuth, findProcesses) {
  const baselineUrl = `${url}/internal/bench/r2-read?key=${encodeURIComponent(GIB_KEY)}`;
  const productUrl = `${url}/api/asset/content/download-variant/${GIB_VARIANT_ID}`;
  const runs = { baseline: [], product: [] };
  for (let round = 1; round <= DOWNLOAD_ROUNDS; round++) {
    const order = [
      ["baseline", baselineUrl, benchAuth],
      ["product", productUrl, auth],
    ];
    // The plain read goes first in round 1 (its growth from idle is then the simulator's alone); then alternate.
    if (round % 2 === 0) order.reverse();
    for (const [kind, target, headers] of order) {
      const sampled = await retried(url, `${kind} download`, async () => {
        const run = await withRssSamples(findProcesses(), () => timedRequest(target, { headers }));
        if (run.result.status !== 200 || run.result.bytes !== BIG_BYTES) {
          throw new Error(`${kind} download answered ${run.result.status} with ${run.result.bytes} bytes`);
        }
        return run;
      });
      const { bytes, ms: took } = sampled.result;
      runs[kind].push({ mbps: mbps(bytes, took), ms: took, runtime: sampled.runtime, proxy: sampled.proxy });
      console.log(
        `  round ${round} ${kind.padEnd(8)} ${(took / 1000).toFixed(2)} s, ${mbps(bytes, took).toFixed(0)} MiB/s; ` +
          `RSS runtime ${mib(sampled.runtime.min)} … ${mib(sampled.runtime.max)}, proxy ${mib(sampled.proxy.min)} … ${mib(
            sampled.proxy.max,
          )} (${sampled.samples} samples)`,
      );
    }
  }
  return runs;
}

/** The lowest and highest RSS a role reached over download runs. */
function rssRange(runs, role) {
  const mins = runs.map((r) => r[role].min).filter(Number.isFinite);
  const maxes = runs.map((r) => r[role].max).filter(Number.isFinite);
  return { min: mins.length ? Math.min(...mins) : NaN, max: maxes.length ? Math.max(...maxes) : NaN };
}

function pair(run, expectedStatus = 200) {
  const odd = unexpected(run, expectedStatus);
  const extra = [odd > 0 ? `${odd} not ${expectedStatus}` : "", run.timeouts > 0 ? `${run.timeouts} timeouts` : ""].filter(Boolean);
  return `${ms(run.p50)} / ${ms(run.p95)}, ${run.requestsPerSecond.toFixed(0)} req/s${extra.length ? ` (${extra.join(", ")})` : ""}`;
}

async function main() {
  buildUnlessSkipped();

  const loadAtStart = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-library-"));
  const benchToken = randomBytes(24).toString("hex");
  const seedSql = librarySeedSql({ assets: ASSETS, levels: TREE_LEVELS, bigBytes: BIG_BYTES });
  if (!FULL) console.log(`> BENCH_SCALE=${SCALE}: a quick check that the benchmark runs; its figures are not the issue's`);
  // First the "before" server (its own state); it stays idle while the main one is seeded and measured, and the
  // uploads into both run last, interleaved.
  const beforeServer = await startWithoutRollups(seedSql);
  console.log(
    `> wrangler dev on 127.0.0.1:${port} (state in ${persistDir}); seeding ${ASSETS} assets and ${TREE_GROUPS} groups (${seedSql.length} bytes of SQL)`,
  );
  const startedAt = performance.now();
  const server = await startDevServer({ port, persistDir, seedSql, vars: { BENCH_TOKEN: benchToken }, migrateTimeoutMs: 600_000 }).catch(
    async (error) => {
      await beforeServer.stop();
      throw error;
    },
  );
  const seedAndStartMs = performance.now() - startedAt;
  const stopOnSignal = () => Promise.allSettled([server.stop(), beforeServer.stop()]).finally(() => process.exit(130));
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    const { url, adminLogin, adminPassword } = server;
    const signIn = async () => ({ authorization: `Bearer ${await login(url, adminLogin, adminPassword)}`, "x-api-version": "1.0" });
    const benchAuth = { authorization: `Bearer ${benchToken}` };
    console.log(`  migrations, seed and two starts: ${(seedAndStartMs / 1000).toFixed(1)} s`);

    let auth = await signIn();
    const { cursor, path } = await retried(url, "seed check", () => verifySeed(url, auth));

    console.log(`> writing ${mib(BIG_BYTES)} into R2 under ${GIB_KEY} (multipart, generated in the Worker)`);
    const written = await retried(url, "1 GiB write", async () => {
      const answer = await timedRequest(`${url}/internal/bench/object?key=${encodeURIComponent(GIB_KEY)}&size=${BIG_BYTES}`, {
        method: "POST",
        headers: benchAuth,
        idleTimeoutMs: 10 * 60_000,
      });
      if (answer.status !== 200) throw new Error(`bench object write answered ${answer.status}: ${answer.text}`);
      return answer;
    });
    console.log(`  ${written.text} in ${(written.ms / 1000).toFixed(1)} s`);

    const findProcesses = () => workerdProcesses(persistDir, port);
    const processes = findProcesses();
    const idle = rssByRole(processes);
    const described = processes.map((p) => `${p.role} pid ${p.pid}`).join(", ");
    console.log(
      `> ${mib(BIG_BYTES)} downloads, ${DOWNLOAD_ROUNDS} rounds; workerd: ${described || "not found"}; idle RSS runtime ${mib(
        idle.runtime,
      )}, proxy ${mib(idle.proxy)}`,
    );
    const dl = await downloads(url, auth, benchAuth, findProcesses);

    // A fresh token: the access token lives 15 minutes and the runs below take a few.
    auth = await signIn();
    const json = { ...auth, "content-type": "application/json" };
    const members = `${url}/api/group/members/${BIG_GROUP_ID}?type=asset&take=${TAKE}`;
    await retried(url, "Range check", async () => {
      const ranged = await timedRequest(`${url}/api/asset/content/download-variant/${GIB_VARIANT_ID}`, {
        headers: { ...auth, range: RANGE },
      });
      if (ranged.status !== 206 || ranged.bytes !== 1_000_000)
        throw new Error(`Range request answered ${ranged.status} with ${ranged.bytes} bytes`);
    });

    const runs = [];
    runs.push(await measure("GET /api/ping (floor: no auth, no I/O)", { url: `${url}/api/ping` }));
    runs.push(await measure("GET /api/auth/whoami (floor: auth + one D1 read)", { url: `${url}/api/auth/whoami`, headers: auth }));
    runs.push(await measure("members page 1", { url: members, headers: auth }));
    runs.push(await measure(`members page at ${DEEP_POSITION} by cursor`, { url: `${members}&after=${cursor}`, headers: auth }));
    runs.push(await measure(`members page at ${DEEP_POSITION} by skip`, { url: `${members}&skip=${DEEP_POSITION}`, headers: auth }));
    const [lastSort, lastOrder] = SKIP_SORTS[4];
    runs.push(
      await measure(`members page at ${DEEP_POSITION} by skip, ${lastSort} ${lastOrder}`, {
        url: `${members}&skip=${DEEP_POSITION}&sort=${lastSort}&order=${lastOrder}`,
        headers: auth,
      }),
    );
    // As the browser asks for it: every browser sends Accept-Encoding with gzip (decision 033).
    runs.push(
      await measure(`subtree of ${TREE_GROUPS} groups`, {
        url: `${url}/api/group/subtree/${TREE_TOP_ID}`,
        headers: { ...auth, "accept-encoding": "gzip, deflate, br" },
      }),
    );
    runs.push(
      await measure(`group-size of ${ASSETS} assets`, {
        url: `${url}/api/group/group-size`,
        method: "POST",
        headers: json,
        body: JSON.stringify({ ids: [BIG_GROUP_ID] }),
      }),
    );
    runs.push(
      await measure(`entity-by-path (${DEEP_DIGITS.length + 1} names)`, {
        url: `${url}/api/group/entity-by-path/${ROOT_GROUP_ID}`,
        method: "POST",
        headers: json,
        body: JSON.stringify({ path }),
      }),
    );
    runs.push(
      await measure(
        `Range 1 MB at ${mib(RANGE_START)} of the ${mib(BIG_BYTES)} variant`,
        { url: `${url}/api/asset/content/download-variant/${GIB_VARIANT_ID}`, headers: { ...auth, range: RANGE } },
        206,
      ),
    );

    // One bounded request: group-size of the tree (11,111 groups, no assets). Last, because a slow query here may
    // keep the local D1 busy after the client gives up.
    console.log(`> group-size of the tree: one request, at most ${TREE_SIZE_TIMEOUT_MS / 1000} s`);
    const treeSize = await timedRequest(`${url}/api/group/group-size`, {
      method: "POST",
      headers: json,
      idleTimeoutMs: TREE_SIZE_TIMEOUT_MS,
      body: JSON.stringify({ ids: [TREE_TOP_ID] }),
    }).then(
      (r) => (r.status === 200 ? ms(r.ms) : `${r.status} after ${ms(r.ms)}`),
      () => `no answer within ${TREE_SIZE_TIMEOUT_MS / 1000} s`,
    );

    // Last of all, the write cost of the rollups (with the seven seek lists the checks and runs above built), in
    // rounds alternating between the server without them and this one.
    console.log(
      `> uploads of ${
        UPLOAD_BYTES / 1000
      } KB into the big group: ${UPLOADS} into each server in ${UPLOAD_ROUNDS} interleaved rounds ("before": no rollup triggers, "after": this server)`,
    );
    const uploads = await interleavedUploads(beforeServer.server, server);
    const { before, after } = uploads;
    auth = await signIn();
    const sizeAfter = await bigGroupSize(url, auth);
    const expectedAssets = ASSETS + UPLOAD_WARMUP + after.done;
    if (sizeAfter.assets !== expectedAssets) {
      console.log(`note: group-size after the uploads answered ${sizeAfter.assets} assets, expected ${expectedAssets}`);
    }

    const [ping, whoami, first, deep, skip, skipOther, subtree, groupSize, byPath, range] = runs;
    const times = (value, of) => (Number.isFinite(value / of) ? `${(value / of).toFixed(2)} ×` : "n/a");
    const skipRow = (label, run, cursorRun) => [
      `${label}: p50 / p95 ÷ cursor's`,
      `${times(run.p50, cursorRun.p50)} / ${times(run.p95, cursorRun.p95)}`,
      `≤ ${TARGETS.skipOverCursor} ×`,
      verdict(Math.max(run.p50 / cursorRun.p50, run.p95 / cursorRun.p95), TARGETS.skipOverCursor + 1e-9),
    ];
    const uploadRatio = after.perSecond / before.perSecond;
    const product = median(dl.product.map((r) => r.mbps));
    const baseline = median(dl.baseline.map((r) => r.mbps));
    const ratio = product / baseline;
    const productRss = rssRange(dl.product, "runtime");
    const baselineRss = rssRange(dl.baseline, "runtime");
    const proxyRss = rssRange([...dl.baseline, ...dl.product], "proxy");
    const p95Target = `p95 < ${TARGETS.membersP95Ms} ms`;
    const c1 = `(1 conn.)`;
    const cN = `(${LOADED.connections} conn.)`;
    const row = (label, run, target = "-", limit, expectedStatus = 200) => [
      `${label} p50 / p95`,
      pair(run, expectedStatus),
      target,
      limit === undefined ? "-" : verdict(run.p95, limit),
    ];

    // The figures the regression check compares with bench/targets/library.json (BENCH_RECORD=1 records them).
    const figures = {
      subtreeP95Loaded: { label: `subtree p95 ${cN}`, value: subtree.loaded.p95, unit: "ms", better: "lower" },
      subtreeP95Single: { label: `subtree p95 ${c1}`, value: subtree.single.p95, unit: "ms", better: "lower" },
      subtreeOverWhoamiLoaded: {
        label: `subtree p95 ÷ whoami p95 ${cN}`,
        value: subtree.loaded.p95 / whoami.loaded.p95,
        unit: "×",
        better: "lower",
      },
      uploadsAfterOverBefore: { label: "uploads/s with rollups ÷ without", value: uploadRatio, unit: "%", better: "higher" },
      membersFirstP95Loaded: { label: `members page 1 p95 ${cN}`, value: first.loaded.p95, unit: "ms", better: "lower" },
      skipOverCursorLoaded: { label: `skip ÷ cursor p95 ${cN}`, value: skip.loaded.p95 / deep.loaded.p95, unit: "×", better: "lower" },
      groupSizeOverWhoamiLoaded: {
        label: `group-size p95 ÷ whoami p95 ${cN}`,
        value: groupSize.loaded.p95 / whoami.loaded.p95,
        unit: "×",
        better: "lower",
      },
      downloadOverR2: { label: "download ÷ plain R2 read", value: ratio, unit: "%", better: "higher" },
    };

    console.log(`\nLibrary benchmark: ${ASSETS} assets in one group, ${TREE_GROUPS} groups in a tree, a ${mib(BIG_BYTES)} variant`);
    console.log(
      `load average at start ${loadAtStart}, now ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")} (the machine's other work counts in every figure)`,
    );
    printTable([
      ["migrations + seed + two starts", `${(seedAndStartMs / 1000).toFixed(1)} s`, "-", "-"],
      [
        `${mib(BIG_BYTES)} write into R2 (multipart, in the Worker)`,
        `${(written.ms / 1000).toFixed(1)} s, ${mbps(BIG_BYTES, written.ms).toFixed(0)} MiB/s`,
        "-",
        "-",
      ],
      row(`floor: /api/ping ${c1}`, ping.single),
      row(`floor: /api/ping ${cN}`, ping.loaded),
      row(`floor: whoami ${c1}`, whoami.single),
      row(`floor: whoami ${cN}`, whoami.loaded),
      row(`members page 1 ${c1}`, first.single, p95Target, TARGETS.membersP95Ms),
      row(`members page 1 ${cN}`, first.loaded, p95Target, TARGETS.membersP95Ms),
      row(`members page at ${DEEP_POSITION}, cursor ${c1}`, deep.single, p95Target, TARGETS.membersP95Ms),
      row(`members page at ${DEEP_POSITION}, cursor ${cN}`, deep.loaded, p95Target, TARGETS.membersP95Ms),
      row(`members page at ${DEEP_POSITION}, skip ${c1}`, skip.single),
      row(`members page at ${DEEP_POSITION}, skip ${cN}`, skip.loaded),
      skipRow(`skip at ${DEEP_POSITION} ${c1}`, skip.single, deep.single),
      skipRow(`skip at ${DEEP_POSITION} ${cN}`, skip.loaded, deep.loaded),
      row(`members page at ${DEEP_POSITION}, skip, ${lastSort} ${lastOrder} ${c1}`, skipOther.single),
      row(`members page at ${DEEP_POSITION}, skip, ${lastSort} ${lastOrder} ${cN}`, skipOther.loaded),
      skipRow(`skip at ${DEEP_POSITION}, ${lastSort} ${lastOrder} ${cN}`, skipOther.loaded, deep.loaded),
      row(`subtree, ${TREE_GROUPS} groups ${c1}`, subtree.single, `p95 < ${TARGETS.subtreeP95Ms} ms`, TARGETS.subtreeP95Ms),
      row(`subtree, ${TREE_GROUPS} groups ${cN}`, subtree.loaded, `p95 < ${TARGETS.subtreeP95Ms} ms`, TARGETS.subtreeP95Ms),
      [`subtree p95 ÷ whoami p95 ${cN} (the machine's load divides out)`, times(subtree.loaded.p95, whoami.loaded.p95), "-", "-"],
      row(
        `group-size, ${ASSETS} assets ${c1}`,
        groupSize.single,
        `p95 < ${TARGETS.groupSizeOverWhoami} × whoami's (${ms(TARGETS.groupSizeOverWhoami * whoami.single.p95)})`,
        TARGETS.groupSizeOverWhoami * whoami.single.p95,
      ),
      row(
        `group-size, ${ASSETS} assets ${cN}`,
        groupSize.loaded,
        `p95 < ${TARGETS.groupSizeOverWhoami} × whoami's (${ms(TARGETS.groupSizeOverWhoami * whoami.loaded.p95)})`,
        TARGETS.groupSizeOverWhoami * whoami.loaded.p95,
      ),
      [`group-size, ${TREE_GROUPS} groups, no assets (1 request)`, treeSize, "-", "-"],
      [
        `${UPLOADS} × ${UPLOAD_BYTES / 1000} KB uploads, rollup triggers dropped ("before", ${UPLOAD_ROUNDS} rounds)`,
        `${before.perSecond.toFixed(1)} /s`,
        "-",
        "-",
      ],
      [`${UPLOADS} × ${UPLOAD_BYTES / 1000} KB uploads, rollups kept ("after", interleaved)`, `${after.perSecond.toFixed(1)} /s`, "-", "-"],
      [
        "uploads/s after ÷ before",
        `${(uploadRatio * 100).toFixed(0)} %`,
        `≥ ${TARGETS.uploadsAfterOverBefore * 100} %`,
        verdict(uploadRatio, TARGETS.uploadsAfterOverBefore, { atLeast: true }),
      ],
      row(`entity-by-path, depth ${DEEP_DIGITS.length + 1} ${c1}`, byPath.single),
      row(`entity-by-path, depth ${DEEP_DIGITS.length + 1} ${cN}`, byPath.loaded),
      row(`Range 1 MB at ${mib(RANGE_START)} ${c1}`, range.single, "-", undefined, 206),
      row(`Range 1 MB at ${mib(RANGE_START)} ${cN}`, range.loaded, "-", undefined, 206),
      [`${mib(BIG_BYTES)} straight from the R2 binding (median of 3)`, `${baseline.toFixed(0)} MiB/s`, "-", "-"],
      [`${mib(BIG_BYTES)} through download-variant (median of 3)`, `${product.toFixed(0)} MiB/s`, "-", "-"],
      [
        "download / R2 read",
        `${(ratio * 100).toFixed(0)} %`,
        `≥ ${TARGETS.downloadRatio * 100} %`,
        verdict(ratio, TARGETS.downloadRatio, { atLeast: true }),
      ],
      [`workerd runtime RSS, plain R2 read (min … max)`, `${mib(baselineRss.min)} … ${mib(baselineRss.max)}`, "-", "-"],
      [
        `workerd runtime RSS, product download (min … max)`,
        `${mib(productRss.min)} … ${mib(productRss.max)}`,
        `growth < ${mib(TARGETS.rssGrowthBytes)}`,
        verdict(productRss.max - productRss.min, TARGETS.rssGrowthBytes),
      ],
      [
        "product download peak − plain R2 read peak",
        mib(productRss.max - baselineRss.max),
        `< ${mib(TARGETS.rssGrowthBytes)}`,
        verdict(productRss.max - baselineRss.max, TARGETS.rssGrowthBytes),
      ],
      ["workerd dev proxy RSS during downloads (min … max)", `${mib(proxyRss.min)} … ${mib(proxyRss.max)}`, "-", "-"],
      ...regressionRows("library", SCALE, figures),
    ]);
    if (process.env.BENCH_RECORD === "1") recordFigures("library", SCALE, figures, `load average at start ${loadAtStart}`);
    const reloads = reloadsIn(server.logFile);
    if (reloads > 0)
      console.log(
        `note: wrangler dev reloaded the Worker ${reloads} time(s) during this run (sources changed); figures straddle those builds`,
      );
    const odd = runs.filter((r) => [r.single, r.loaded].some((run) => unexpected(run, r.expectedStatus) > 0 || run.errors > 0));
    for (const r of odd) console.log(`note: ${r.name} had unexpected answers or errors; its latencies include them`);
  } catch (error) {
    console.error(`--- wrangler dev output (tail) ---\n${server.output().slice(-4000)}`);
    throw error;
  } finally {
    process.removeListener("SIGINT", stopOnSignal);
    process.removeListener("SIGTERM", stopOnSignal);
    await beforeServer.stop();
    await server.stop();
    await rm(persistDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`library bench could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
