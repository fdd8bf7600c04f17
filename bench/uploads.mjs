// Upload benchmark (issue 4): starts the built product under `wrangler dev` on a free loopback port with a fresh state
// directory, signs in as the administrator, creates a group, then
//   1. uploads a generated 1 GiB file through the real multipart flow (create asset → create-version → sign + PUT parts,
//      4 in parallel → complete → wait until the version is committed) and checks the committed SHA-256;
//   2. sends the same parts the same way to a bench route that hands each body straight to R2 (no signing, no records,
//      no hashing: /internal/bench/r2-multipart, active only with BENCH_TOKEN) as the baseline, and for reference
//      writes the same amount generated inside the Worker (/internal/bench/object);
//   3. uploads 1,000 files of 10 KB into the group one request each, in batches of 16 (as the web app sends them)
//      and through the three-call flow, with bounded concurrency;
// sampling workerd's RSS throughout. Prints a table with PASS/MISS against the targets and always exits 0.
//
//   node bench/uploads.mjs            (builds first; SKIP_BUILD=1 to reuse build/)
//   UPLOAD_BENCH_MIB=256 UPLOAD_BENCH_FILES=200 node bench/uploads.mjs   (a quicker run)
//   UPLOAD_BENCH_SMALL_ONLY=1 node bench/uploads.mjs                     (small files and their floors only)
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { buildUnlessSkipped, printTable } from "./lib/measure.mjs";
import { rssByRole, withRssSamples, workerdProcesses } from "./lib/workerd.mjs";

const MiB = 1024 * 1024;
const ROOT_GROUP = "f".repeat(32);

const LARGE_BYTES = Math.max(16, Number(process.env.UPLOAD_BENCH_MIB ?? 1024)) * MiB;
const PARALLEL_PARTS = 4;
/** UPLOAD_BENCH_SMALL_ONLY=1: only the small-file figures (and their floors), without the 1 GiB upload. */
const SMALL_ONLY = process.env.UPLOAD_BENCH_SMALL_ONLY === "1";
const SMALL_FILES = Math.max(1, Math.min(10_000, Number(process.env.UPLOAD_BENCH_FILES ?? 1000)));
const SMALL_BYTES = 10 * 1000;
const SMALL_CONCURRENCY = 16;
const RSS_SAMPLE_MS = 200;
/** Bounds: every request, and the wait for the committed version. */
const REQUEST_TIMEOUT_MS = 120_000;
const READY_TIMEOUT_MS = 10 * 60_000;

const TARGETS = {
  /** the product's upload reaches at least this share of the in-Worker R2 write */
  shareOfBaseline: 0.7,
  smallFilesPerSecond: 50,
  /** "memory stays flat": workerd's RSS may not grow by more than this during the 1 GiB upload */
  rssGrowthBytes: 128 * MiB,
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / MiB).toFixed(0)} MiB` : "n/a");
const mbps = (bytes, ms) => bytes / MiB / (ms / 1000);
const fixed = (value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

// ---------------------------------------------------------------------------------------------------------------
// HTTP

async function request(url, { method = "GET", bearer, json, body, headers = {} } = {}) {
  const h = { ...headers };
  if (bearer) h.authorization = `Bearer ${bearer}`;
  if (json !== undefined) h["content-type"] = "application/json";
  const response = await fetch(url, {
    method,
    headers: h,
    body: json !== undefined ? JSON.stringify(json) : body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

async function api(base, path, options, expected = 200) {
  const answer = await request(`${base}${path}`, options);
  if (answer.status !== expected)
    throw new Error(`${options?.method ?? "GET"} ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return answer.text ? JSON.parse(answer.text) : null;
}

const xmlTag = (xml, tag) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];

/** The runtime's RSS while `task` runs: its first sample, maximum and the figure at each fifth of the run. */
async function withRss(processes, task) {
  const sampled = await withRssSamples(processes, task, RSS_SAMPLE_MS);
  return { result: sampled.result, rssStart: sampled.fifths[0] ?? NaN, rssMax: sampled.runtime.max, fifths: sampled.fifths };
}

const runtimeRss = (processes) => rssByRole(processes).runtime;

// ---------------------------------------------------------------------------------------------------------------
// The generated large file: part n is a shared random block with the part number stamped into it, so any part can
// be produced on demand (bounded memory) and the whole file hashed once up front.

function makeParts(size, partSize) {
  const block = randomBytes(partSize);
  const count = Math.ceil(size / partSize);
  const part = (n) => {
    const length = n < count ? partSize : size - partSize * (count - 1);
    const bytes = Buffer.from(block.subarray(0, length));
    bytes.writeUInt32BE(n, 0);
    return bytes;
  };
  const hash = createHash("sha256");
  for (let n = 1; n <= count; n++) hash.update(part(n));
  return { count, part, sha256: hash.digest("hex") };
}

async function sign(base, bearer, body) {
  return api(base, "/api/upload/sign", { method: "POST", bearer, json: body });
}

/** Sends every part, `PARALLEL_PARTS` at a time; answers the etags in part order. */
async function sendParts(file, putPart) {
  const etags = new Array(file.count);
  let next = 1;
  const worker = async () => {
    for (let n = next++; n <= file.count; n = next++) etags[n - 1] = await putPart(n, file.part(n));
  };
  await Promise.all(Array.from({ length: PARALLEL_PARTS }, worker));
  return etags;
}

/** The baseline: the same parts, 4 at a time, through a bench route that hands each body straight to R2. */
async function baselineUpload(base, token, file, pids) {
  const key = `bench/uploads-baseline-${Date.now()}`;
  const started = performance.now();
  const created = await request(`${base}/internal/bench/r2-multipart?key=${key}`, { method: "POST", bearer: token });
  if (created.status !== 200) return { ms: NaN, note: `baseline route answered ${created.status}` };
  const { uploadId } = JSON.parse(created.text);
  const q = `key=${key}&uploadId=${encodeURIComponent(uploadId)}`;
  const sampled = await withRss(pids, () =>
    sendParts(file, async (n, bytes) => {
      const answer = await request(`${base}/internal/bench/r2-multipart?${q}&part=${n}`, { method: "PUT", bearer: token, body: bytes });
      if (answer.status !== 200) throw new Error(`baseline part ${n} answered ${answer.status}: ${answer.text}`);
      return JSON.parse(answer.text).etag;
    }),
  );
  const parts = sampled.result.map((etag, i) => ({ partNumber: i + 1, etag }));
  const done = await request(`${base}/internal/bench/r2-multipart/complete?${q}`, { method: "POST", bearer: token, json: parts });
  if (done.status !== 200) throw new Error(`baseline complete answered ${done.status}: ${done.text}`);
  return { ms: performance.now() - started, rssStart: sampled.rssStart, rssMax: sampled.rssMax, fifths: sampled.fifths };
}

/** The real multipart flow for one file; answers timings, RSS per phase and the committed state. */
async function multipartUpload(base, bearer, groupId, pids, size = LARGE_BYTES) {
  const asset = await api(base, "/api/asset/create", {
    method: "POST",
    bearer,
    json: { asset_name: "bench-1g.bin", asset_mime: "application/octet-stream", in_group: groupId },
  });
  const info = await api(base, `/api/asset/create-version/${asset.asset_id}`, {
    method: "POST",
    bearer,
    json: { file_name: "bench-1g.bin", mime_type: "application/octet-stream", size, multipart: true, to_group: groupId },
  });
  if (info.mode !== "multipart") throw new Error(`create-version answered the ${info.mode} form`);
  const file = makeParts(size, info.part_size);

  const started = performance.now();
  const create = await sign(base, bearer, { variant_id: info.variant_id, op: "create", method: "POST" });
  const created = await request(create.url, { method: "POST" });
  const uploadId = xmlTag(created.text, "UploadId");
  if (created.status !== 200 || !uploadId) throw new Error(`CreateMultipartUpload answered ${created.status}: ${created.text}`);

  const transfer = await withRss(pids, () =>
    sendParts(file, async (n, bytes) => {
      const signed = await sign(base, bearer, {
        variant_id: info.variant_id,
        op: "part",
        method: "PUT",
        upload_id: uploadId,
        part_number: n,
      });
      const answer = await request(signed.url, { method: "PUT", body: bytes });
      if (answer.status !== 200) throw new Error(`UploadPart ${n} answered ${answer.status}: ${answer.text}`);
      return answer.headers.get("etag");
    }),
  );
  const partsDone = performance.now();

  const finish = await withRss(pids, async () => {
    const completeSigned = await sign(base, bearer, { variant_id: info.variant_id, op: "complete", method: "POST", upload_id: uploadId });
    const xml = `<CompleteMultipartUpload>${transfer.result
      .map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${etag}</ETag></Part>`)
      .join("")}</CompleteMultipartUpload>`;
    const completed = await request(completeSigned.url, { method: "POST", body: xml, headers: { "content-type": "application/xml" } });
    if (completed.status !== 200) throw new Error(`CompleteMultipartUpload answered ${completed.status}: ${completed.text}`);
    const completeDone = performance.now();
    let status;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      status = await api(base, `/api/upload/status/${info.variant_id}`, { bearer });
      if (status.state === "ready" || status.state === "aborted" || Date.now() > deadline) break;
      await sleep(250);
    }
    return { status, completeDone, completeState: completed.headers.get("x-mam-upload-state") };
  });
  const ready = performance.now();
  const { status, completeDone, completeState } = finish.result;
  return {
    file,
    state: status.state,
    sha256Ok: status.sha256 === file.sha256,
    parts: file.count,
    partSize: info.part_size,
    totalMs: ready - started,
    transferMs: partsDone - started,
    completeMs: completeDone - partsDone,
    savingMs: ready - completeDone,
    completeState,
    rss: { start: transfer.rssStart, transferMax: transfer.rssMax, finishMax: finish.rssMax, fifths: transfer.fifths },
  };
}

/** The same number of bytes generated inside the Worker and written into R2 (no HTTP body at all). */
async function inWorkerWrite(base, token) {
  const started = performance.now();
  const answer = await request(`${base}/internal/bench/object?key=bench/uploads-generated&size=${LARGE_BYTES}`, {
    method: "POST",
    bearer: token,
  });
  if (answer.status !== 200) return { ms: NaN, note: `route answered ${answer.status}` };
  return { ms: performance.now() - started };
}

/** Runs `one(i)` for i < SMALL_FILES, `SMALL_CONCURRENCY` at a time; answers the rate of those that succeeded. */
async function concurrently(one) {
  let next = 0;
  let failed = 0;
  let firstError = "";
  const worker = async () => {
    for (let i = next++; i < SMALL_FILES; i = next++) {
      try {
        await one(i);
      } catch (error) {
        failed++;
        firstError ||= String(error);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: SMALL_CONCURRENCY }, worker));
  const ms = performance.now() - started;
  return { ms, failed, firstError, perSecond: (SMALL_FILES - failed) / (ms / 1000) };
}

const smallName = (i) => `small-${String(i).padStart(5, "0")}.bin`;

/** The three-call flow a client without the one-request call uses: create asset, create-version, PUT. */
function smallFilesThreeCalls(base, bearer, groupId, body) {
  return concurrently(async (i) => {
    const name = `three-${smallName(i)}`;
    const asset = await api(base, "/api/asset/create", {
      method: "POST",
      bearer,
      json: { asset_name: name, asset_mime: "application/octet-stream", in_group: groupId },
    });
    const info = await api(base, `/api/asset/create-version/${asset.asset_id}`, {
      method: "POST",
      bearer,
      json: { file_name: name, mime_type: "application/octet-stream", size: SMALL_BYTES },
    });
    const put = await request(info.upload_url, { method: "PUT", body, headers: { "content-type": "application/octet-stream" } });
    if (put.status !== 201) throw new Error(`PUT answered ${put.status}: ${put.text.slice(0, 200)}`);
  });
}

/** The one-request flow the app uses for small files: POST /api/asset/upload. */
function smallFilesOneRequest(base, bearer, groupId, body) {
  return concurrently((i) =>
    api(
      base,
      `/api/asset/upload?in_group=${groupId}&name=${smallName(i)}`,
      { method: "POST", bearer, body, headers: { "content-type": "application/octet-stream" } },
      201,
    ),
  );
}

/** The app's batches: 16 files per POST /api/asset/upload-batch, six requests at a time (the browser's connections). */
const BATCH_FILES = 16;
const BATCH_CONCURRENCY = 6;

async function smallFilesInBatches(base, bearer, groupId, body) {
  const batches = Math.ceil(SMALL_FILES / BATCH_FILES);
  let next = 0;
  let failed = 0;
  let firstError = "";
  const worker = async () => {
    for (let b = next++; b < batches; b = next++) {
      const names = [];
      for (let i = b * BATCH_FILES; i < Math.min(SMALL_FILES, (b + 1) * BATCH_FILES); i++) names.push(`batch-${smallName(i)}`);
      const form = new FormData();
      for (const name of names) form.append("file", new Blob([body], { type: "application/octet-stream" }), name);
      try {
        const answer = await fetch(`${base}/api/asset/upload-batch?in_group=${groupId}`, {
          method: "POST",
          headers: { authorization: `Bearer ${bearer}` },
          body: form,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const text = await answer.text();
        if (answer.status !== 201) throw new Error(`upload-batch answered ${answer.status}: ${text.slice(0, 200)}`);
      } catch (error) {
        failed += names.length;
        firstError ||= String(error);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: BATCH_CONCURRENCY }, worker));
  const ms = performance.now() - started;
  return { ms, failed, firstError, perSecond: (SMALL_FILES - failed) / (ms / 1000) };
}

/** Floors at the same concurrency: the cheapest API call, a signed-in call, and the body straight into R2. */
function floors(base, bearer, benchToken, body) {
  return {
    ping: () =>
      concurrently(async () => {
        const answer = await request(`${base}/api/ping`);
        if (answer.status !== 200) throw new Error(`ping answered ${answer.status}`);
      }),
    whoami: () => concurrently(() => api(base, "/api/auth/whoami", { bearer })),
    r2: () =>
      concurrently(async (i) => {
        const answer = await request(`${base}/internal/bench/r2-put?key=bench/${smallName(i)}`, { method: "PUT", bearer: benchToken, body });
        if (answer.status !== 200) throw new Error(`r2-put answered ${answer.status}: ${answer.text.slice(0, 200)}`);
      }),
  };
}

const passed = (ok) => (ok === undefined ? "n/a" : ok ? "PASS" : "MISS");

async function main() {
  buildUnlessSkipped();
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-uploads-"));
  const benchToken = randomBytes(24).toString("base64url");
  console.log(`> wrangler dev on 127.0.0.1:${port} (state in ${persistDir})`);
  const server = await startDevServer({ port, persistDir, vars: { BENCH_TOKEN: benchToken } });
  const rows = [];
  try {
    const base = server.url;
    const signIn = async () =>
      (await api(base, "/api/auth/login", { method: "POST", json: { user: server.adminLogin, passwd: server.adminPassword } })).bearer;
    let bearer = await signIn();
    const group = await api(base, "/api/group/create", {
      method: "POST",
      bearer,
      json: { parent: ROOT_GROUP, group_name: `Бенчмарк загрузок ${Date.now()}` },
    });
    const pids = workerdProcesses(persistDir, port);
    console.log(`> workerd pid(s) ${pids.map((p) => `${p.pid} (${p.role})`).join(", ") || "not found"}, idle RSS ${mib(runtimeRss(pids))}`);

    if (!SMALL_ONLY) {
      // Warm-up: the first requests load and compile the Worker; neither measured run should pay for it.
      const warm = await multipartUpload(base, bearer, group.group_id, pids, 40 * MiB);
      await baselineUpload(base, benchToken, warm.file, pids);
      console.log(`> warm-up done (a 40 MiB upload both ways); workerd RSS ${mib(runtimeRss(pids))}`);

      console.log(
        `> ${mib(
          LARGE_BYTES,
        )} through the multipart flow, ${PARALLEL_PARTS} parts in parallel (16 MiB parts, generated and hashed locally first)`,
      );
      const l = await multipartUpload(base, bearer, group.group_id, pids);
      const productMbps = mbps(LARGE_BYTES, l.totalMs);
      console.log(
        `  ${l.parts} parts: transfer ${(l.transferMs / 1000).toFixed(1)} s (${fixed(mbps(LARGE_BYTES, l.transferMs), 0)} MiB/s), complete ${(
          l.completeMs / 1000
        ).toFixed(1)} s (answered ${l.completeState}), hashing until ready ${(l.savingMs / 1000).toFixed(1)} s; state ${l.state}, sha256 ${
          l.sha256Ok ? "matches" : "DIFFERS"
        }`,
      );
      console.log(
        `  workerd RSS ${mib(l.rss.start)} → max ${mib(l.rss.transferMax)} while parts arrive, max ${mib(
          l.rss.finishMax,
        )} while completing and hashing`,
      );
      console.log(`  workerd RSS at each fifth of the transfer: ${l.rss.fifths.map(mib).join(", ")}`);

      console.log(`> baseline: the same ${l.parts} parts, ${PARALLEL_PARTS} at a time, handed straight to R2 by a bench route`);
      const baseline = await baselineUpload(base, benchToken, l.file, pids);
      const baselineMbps = mbps(LARGE_BYTES, baseline.ms);
      console.log(
        `  ${
          baseline.note ??
          `${(baseline.ms / 1000).toFixed(1)} s, ${fixed(baselineMbps, 0)} MiB/s; workerd RSS ${mib(baseline.rssStart)} → max ${mib(
            baseline.rssMax,
          )} (fifths: ${baseline.fifths.map(mib).join(", ")})`
        }`,
      );
      const generated = await inWorkerWrite(base, benchToken);
      console.log(
        `  for reference, ${mib(LARGE_BYTES)} generated inside the Worker and written to R2: ${
          generated.note ?? `${(generated.ms / 1000).toFixed(1)} s, ${fixed(mbps(LARGE_BYTES, generated.ms), 0)} MiB/s`
        }`,
      );

      const growth = l.rss.transferMax - l.rss.start;
      const baselineGrowth = baseline.rssMax - baseline.rssStart;
      rows.push(
        [
          `${mib(LARGE_BYTES)} multipart upload → ready`,
          `${fixed(productMbps)} MiB/s (${(l.totalMs / 1000).toFixed(1)} s)`,
          "reported",
          l.state === "ready" ? "—" : "MISS",
        ],
        ["  committed sha256 = bytes sent", l.sha256Ok ? "yes" : "no", "yes", passed(l.sha256Ok)],
        ["  parts transfer only", `${fixed(mbps(LARGE_BYTES, l.transferMs))} MiB/s`, "reported", "—"],
        ["  complete + hashing until ready", `${((l.completeMs + l.savingMs) / 1000).toFixed(1)} s`, "reported", "—"],
        [
          "parts straight into R2 (baseline)",
          Number.isFinite(baselineMbps) ? `${fixed(baselineMbps)} MiB/s` : baseline.note,
          "reported",
          "—",
        ],
        [
          "parts transfer / baseline",
          Number.isFinite(baselineMbps) ? `${fixed((mbps(LARGE_BYTES, l.transferMs) / baselineMbps) * 100, 0)} %` : "n/a",
          `≥ ${TARGETS.shareOfBaseline * 100} %`,
          Number.isFinite(baselineMbps) ? passed(mbps(LARGE_BYTES, l.transferMs) / baselineMbps >= TARGETS.shareOfBaseline) : "n/a",
        ],
        [
          "workerd RSS growth, parts (product)",
          mib(growth),
          `< ${mib(TARGETS.rssGrowthBytes)}`,
          Number.isFinite(growth) ? passed(growth < TARGETS.rssGrowthBytes) : "n/a",
        ],
        ["workerd RSS growth, parts (baseline)", mib(baselineGrowth), "reported", "—"],
      );
    }
    bearer = await signIn();
    const body = randomBytes(SMALL_BYTES);
    const floor = floors(base, bearer, benchToken, body);
    const rate = (r) => `${fixed(r.perSecond)}/s${r.failed ? ` (${r.failed} failed: ${r.firstError})` : ""}`;
    console.log(`> floors, ${SMALL_FILES} requests ${SMALL_CONCURRENCY} at a time`);
    const pingFloor = await floor.ping();
    const whoamiFloor = await floor.whoami();
    const r2Floor = await floor.r2();
    console.log(`  /api/ping ${rate(pingFloor)}, whoami ${rate(whoamiFloor)}, 10 KB straight into R2 ${rate(r2Floor)}`);
    console.log(`> ${SMALL_FILES} files of ${SMALL_BYTES / 1000} KB, ${SMALL_CONCURRENCY} at a time: one request each (POST /api/asset/upload)`);
    const small = await withRss(pids, () => smallFilesOneRequest(base, bearer, group.group_id, body));
    const s = small.result;
    console.log(`  ${(s.ms / 1000).toFixed(1)} s, ${rate(s)}; RSS ${mib(small.rssStart)} → max ${mib(small.rssMax)}`);
    console.log(`> the same in batches of ${BATCH_FILES} (POST /api/asset/upload-batch), ${BATCH_CONCURRENCY} requests at a time, as the web app sends them`);
    const batched = (await withRss(pids, () => smallFilesInBatches(base, bearer, group.group_id, body))).result;
    console.log(`  ${(batched.ms / 1000).toFixed(1)} s, ${rate(batched)}`);
    console.log(`> the same through the three-call flow (create, create-version, PUT)`);
    const three = (await withRss(pids, () => smallFilesThreeCalls(base, bearer, group.group_id, body))).result;
    console.log(`  ${(three.ms / 1000).toFixed(1)} s, ${rate(three)}`);

    rows.push(
      [`floor: /api/ping, ${SMALL_CONCURRENCY} at a time`, rate(pingFloor), "reported", "—"],
      ["floor: whoami (signed in)", rate(whoamiFloor), "reported", "—"],
      ["floor: 10 KB straight into R2", rate(r2Floor), "reported", "—"],
      [
        `${SMALL_FILES} × 10 KB, one request each`,
        `${fixed(s.perSecond)} files/s (${(s.ms / 1000).toFixed(1)} s, ${s.failed} failed)`,
        `≥ ${TARGETS.smallFilesPerSecond}/s`,
        passed(s.failed === 0 && s.perSecond >= TARGETS.smallFilesPerSecond),
      ],
      [
        `${SMALL_FILES} × 10 KB, ${BATCH_FILES} per request`,
        `${fixed(batched.perSecond)} files/s (${(batched.ms / 1000).toFixed(1)} s, ${batched.failed} failed)`,
        `≥ ${TARGETS.smallFilesPerSecond}/s`,
        passed(batched.failed === 0 && batched.perSecond >= TARGETS.smallFilesPerSecond),
      ],
      [`${SMALL_FILES} × 10 KB, three calls each`, `${rate(three)} (${(three.ms / 1000).toFixed(1)} s)`, "reported", "—"],
      ["workerd RSS during small files", `${mib(small.rssStart)} → ${mib(small.rssMax)}`, "flat", "—"],
    );
  } catch (error) {
    console.error(`benchmark failed: ${error.stack ?? error}`);
    console.error(`--- wrangler dev output (tail) ---\n${server.output()}`);
  } finally {
    await server.stop();
    await rm(persistDir, { recursive: true, force: true });
  }
  if (rows.length > 0) {
    console.log(`\nUpload benchmark (loopback, local R2/D1/Queues under wrangler dev)`);
    printTable(rows);
  }
}

main()
  .catch((error) => console.error(`benchmark could not run: ${error.stack ?? error}`))
  .finally(() => process.exit(0));
