// Upload faults that need a real process and real sockets (issue 16; the in-workerd ones are in
// tests/integration/upload-faults.test.ts): the built product under `wrangler dev` on a fresh state directory, then
//   1. a multipart upload whose Worker is killed (SIGKILL) between parts and started again on the same state;
//   2. a multipart upload whose Worker is killed while a part is on its way, started again, the part re-sent;
//   3. a part whose socket is destroyed mid-body over real HTTP, then re-sent;
//   4. a single-request PUT whose socket is destroyed mid-body, then sent again on the same link.
// Each must end with the downloaded file's SHA-256 equal to the source's (or a clean refusal and a successful
// resume). Prints a table (fault / outcome / bytes lost) and exits 1 when any fault lost a byte or failed.
//
//   node tests/faults/upload-restart.mjs        (expects build/; `npm run build` first)
//   FAULTS_PORT=8851 node tests/faults/upload-restart.mjs
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";

const MiB = 1024 * 1024;
const PART = 5 * MiB; // the smallest part R2 accepts before the last one: quick to send, still real multipart
const ROOT_GROUP = "f".repeat(32);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");
const xmlTag = (xml, tag) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];

// ---------------------------------------------------------------------------------------------------------------
// The server, restartable on the same state with the same secret (sessions and signed links survive, as they do
// when a production Worker restarts).

const port = Number(process.env.FAULTS_PORT) || (await freePort());
const persistDir = await mkdtemp(join(tmpdir(), "mam-faults-"));
const adminPassword = randomBytes(12).toString("base64url");
let server;
let jwtSecret;
let restarts = 0;

async function start() {
  for (let waited = 0; (await portOpen()) && waited < 30_000; waited += 250) await sleep(250);
  server = await startDevServer({ port, persistDir, adminPassword, jwtSecret, startTimeoutMs: 180_000 });
  jwtSecret = server.jwtSecret;
}

function portOpen() {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Kills wrangler and workerd on the spot (no graceful shutdown) and starts them again on the same state. */
async function crashAndRestart() {
  await server.stop("SIGKILL");
  restarts++;
  await start();
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

async function call(path, { method = "GET", bearer, json, body, headers = {} } = {}) {
  const h = { ...headers };
  if (bearer) h.authorization = `Bearer ${bearer}`;
  if (json !== undefined) h["content-type"] = "application/json";
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: h,
    body: json !== undefined ? JSON.stringify(json) : body,
    signal: AbortSignal.timeout(60_000),
  });
  const buffer = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, buffer, text: buffer.toString("utf8") };
}

async function api(path, options, expected = 200) {
  const answer = await call(path, options);
  if (answer.status !== expected) throw new Error(`${options?.method ?? "GET"} ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return answer.text ? JSON.parse(answer.text) : null;
}

const signIn = async () => (await api("/api/auth/login", { method: "POST", json: { user: "admin", passwd: adminPassword } })).bearer;

/** Root-relative path of a URL the API answered. */
const pathOf = (url) => {
  const u = new URL(url, "http://x");
  return `${u.pathname}${u.search}`;
};

async function signed(bearer, body) {
  return pathOf((await api("/api/upload/sign", { method: "POST", bearer, json: body })).url);
}

/**
 * Sends `bytes` with their full Content-Length over a raw socket, but only `sendBytes` of them, then destroys the
 * socket (a dropped connection); `onSent` runs once those bytes are written (e.g. to kill the server meanwhile).
 */
function sendCut(path, bytes, sendBytes, onSent = async () => undefined) {
  return new Promise((resolve) => {
    const req = httpRequest(`${server.url}${path}`, {
      method: "PUT",
      headers: { "content-length": String(bytes.byteLength), "content-type": "application/octet-stream" },
    });
    req.on("error", () => resolve("dropped"));
    req.on("response", (res) => {
      res.resume();
      resolve(`answered ${res.statusCode}`);
    });
    req.write(bytes.subarray(0, sendBytes), async () => {
      await sleep(300); // let the Worker start streaming the part
      await onSent();
      req.destroy();
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Uploads

async function newAsset(bearer, group, name) {
  const asset = await api("/api/asset/create", {
    method: "POST",
    bearer,
    json: { asset_name: name, asset_mime: "application/octet-stream", in_group: group },
  });
  return asset.asset_id;
}

/** A multipart upload of `size` random bytes in 5 MiB parts: create-version, CreateMultipartUpload. */
async function openMultipart(bearer, group, name, size) {
  const assetId = await newAsset(bearer, group, name);
  const info = await api(`/api/asset/create-version/${assetId}`, {
    method: "POST",
    bearer,
    json: { file_name: name, mime_type: "application/octet-stream", size, multipart: true, to_group: group },
  });
  const created = await call(await signed(bearer, { variant_id: info.variant_id, op: "create", method: "POST" }), { method: "POST" });
  const uploadId = xmlTag(created.text, "UploadId");
  if (created.status !== 200 || !uploadId) throw new Error(`CreateMultipartUpload answered ${created.status}: ${created.text}`);
  const source = randomBytes(size);
  const parts = [];
  for (let offset = 0; offset < size; offset += PART) parts.push(source.subarray(offset, Math.min(size, offset + PART)));
  return { assetId, variantId: info.variant_id, uploadId, source, parts };
}

const partPath = (bearer, u, n) => signed(bearer, { variant_id: u.variantId, op: "part", method: "PUT", upload_id: u.uploadId, part_number: n });

async function sendPart(bearer, u, n) {
  const answer = await call(await partPath(bearer, u, n), { method: "PUT", body: u.parts[n - 1] });
  if (answer.status !== 200) throw new Error(`part ${n} answered ${answer.status}: ${answer.text}`);
}

/** ListParts: the part numbers the server has, with their etags. */
async function listParts(bearer, u) {
  const answer = await call(await signed(bearer, { variant_id: u.variantId, op: "list", method: "GET", upload_id: u.uploadId }));
  if (answer.status !== 200) throw new Error(`ListParts answered ${answer.status}: ${answer.text}`);
  return [...answer.text.matchAll(/<PartNumber>(\d+)<\/PartNumber><LastModified>[^<]*<\/LastModified><ETag>([^<]*)<\/ETag>/g)].map(
    (m) => ({ partNumber: Number(m[1]), etag: m[2].replaceAll("&quot;", '"') }),
  );
}

/** Resumes as a client does after a reload: ListParts, sends what is missing, completes, waits until ready. */
async function resumeAndComplete(bearer, u) {
  const have = new Set((await listParts(bearer, u)).map((p) => p.partNumber));
  for (let n = 1; n <= u.parts.length; n++) if (!have.has(n)) await sendPart(bearer, u, n);
  const list = await listParts(bearer, u);
  const xml = `<CompleteMultipartUpload>${list
    .map((p) => `<Part><PartNumber>${p.partNumber}</PartNumber><ETag>${p.etag}</ETag></Part>`)
    .join("")}</CompleteMultipartUpload>`;
  const path = await signed(bearer, { variant_id: u.variantId, op: "complete", method: "POST", upload_id: u.uploadId });
  const done = await call(path, { method: "POST", body: xml, headers: { "content-type": "application/xml" } });
  if (done.status !== 200) throw new Error(`CompleteMultipartUpload answered ${done.status}: ${done.text}`);
  return { resent: u.parts.length - have.size, ...(await committedBytes(bearer, u.variantId, u.source)) };
}

/** Waits until the upload is ready, downloads the committed bytes and compares them with the source. */
async function committedBytes(bearer, variantId, source) {
  let status;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
    status = await api(`/api/upload/status/${variantId}`, { bearer });
    if (status.state === "ready" || status.state === "aborted") break;
  }
  if (status?.state !== "ready") throw new Error(`upload ${variantId} is ${status?.state}, not ready`);
  const download = await call(`/api/asset/content/download-variant/${variantId}`, { bearer });
  if (download.status !== 200) throw new Error(`download answered ${download.status}`);
  const expected = sha256(source);
  const sameBytes = sha256(download.buffer) === expected && status.sha256 === expected;
  // A file that differs at all counts as lost whole: nobody can tell which of its bytes to trust.
  return { sameBytes, bytesLost: sameBytes ? 0 : source.byteLength };
}

// ---------------------------------------------------------------------------------------------------------------
// The faults

const results = [];
async function fault(name, run) {
  const started = performance.now();
  try {
    const outcome = await run();
    results.push({ name, ok: outcome.sameBytes, outcome: outcome.note, bytesLost: outcome.bytesLost, seconds: (performance.now() - started) / 1000 });
  } catch (error) {
    results.push({ name, ok: false, outcome: `FAILED: ${error instanceof Error ? error.message : String(error)}`, bytesLost: "?", seconds: (performance.now() - started) / 1000 });
  }
}

async function main() {
  await start();
  let bearer = await signIn();
  const group = (await api("/api/group/create", { method: "POST", bearer, json: { parent: ROOT_GROUP, group_name: `Сбои ${Date.now()}` } })).group_id;

  await fault("Worker killed between parts, restarted on the same state", async () => {
    const u = await openMultipart(bearer, group, "restart-between.bin", 2 * PART + 1234);
    await sendPart(bearer, u, 1);
    await crashAndRestart();
    bearer = await signIn();
    const kept = (await listParts(bearer, u)).map((p) => p.partNumber);
    if (kept.join() !== "1") throw new Error(`after the restart ListParts answered parts [${kept}], expected [1]`);
    const done = await resumeAndComplete(bearer, u);
    return { ...done, note: `part 1 kept across the restart, ${done.resent} sent after it; SHA-256 ${done.sameBytes ? "equal" : "DIFFERS"}` };
  });

  await fault("Worker killed while a part is on its way, restarted", async () => {
    const u = await openMultipart(bearer, group, "restart-mid-part.bin", 2 * PART + 99);
    await sendPart(bearer, u, 1);
    const path = await partPath(bearer, u, 2);
    const sent = await sendCut(path, u.parts[1], 3 * MiB, () => server.stop("SIGKILL"));
    restarts++;
    await start();
    bearer = await signIn();
    const kept = (await listParts(bearer, u)).map((p) => p.partNumber);
    if (kept.includes(2)) throw new Error("the interrupted part 2 was recorded");
    const done = await resumeAndComplete(bearer, u);
    return { ...done, note: `interrupted part (${sent}) not recorded, ${done.resent} re-sent; SHA-256 ${done.sameBytes ? "equal" : "DIFFERS"}` };
  });

  await fault("socket destroyed mid-part (real HTTP)", async () => {
    const u = await openMultipart(bearer, group, "socket-mid-part.bin", 2 * PART + 4321);
    const sent = await sendCut(await partPath(bearer, u, 1), u.parts[0], 2 * MiB);
    const kept = (await listParts(bearer, u)).map((p) => p.partNumber);
    if (kept.length > 0) throw new Error(`the cut part was recorded: [${kept}]`);
    const health = await call("/api/health");
    if (health.status !== 200) throw new Error(`/api/health answered ${health.status} after the drop`);
    const done = await resumeAndComplete(bearer, u);
    return { ...done, note: `cut part (${sent}) not recorded, server healthy, ${done.resent} sent; SHA-256 ${done.sameBytes ? "equal" : "DIFFERS"}` };
  });

  await fault("socket destroyed mid single PUT (real HTTP)", async () => {
    const source = randomBytes(3 * MiB + 17);
    const assetId = await newAsset(bearer, group, "socket-single.bin");
    const info = await api(`/api/asset/create-version/${assetId}`, {
      method: "POST",
      bearer,
      json: { file_name: "socket-single.bin", mime_type: "application/octet-stream", size: source.byteLength, to_group: group },
    });
    const sent = await sendCut(pathOf(info.upload_url), source, MiB);
    const status = await api(`/api/upload/status/${info.variant_id}`, { bearer });
    if (status.state !== "pending") throw new Error(`after the drop the upload is ${status.state}, expected pending`);
    const again = await call(pathOf(info.upload_url), { method: "PUT", body: source, headers: { "content-type": "application/octet-stream" } });
    if (again.status !== 201) throw new Error(`the PUT sent again answered ${again.status}: ${again.text}`);
    const done = await committedBytes(bearer, info.variant_id, source);
    return { ...done, note: `cut PUT (${sent}) committed nothing, sent again: 201; SHA-256 ${done.sameBytes ? "equal" : "DIFFERS"}` };
  });
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  console.error(`fault run could not proceed: ${error.stack ?? error}`);
  if (server) console.error(`--- wrangler dev output (tail) ---\n${server.output()}`);
  exitCode = 1;
} finally {
  await server?.stop();
  await rm(persistDir, { recursive: true, force: true });
}

const header = ["fault", "outcome", "bytes lost", "s"];
const rows = results.map((r) => [r.name, r.outcome, String(r.bytesLost), r.seconds.toFixed(1)]);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
console.log(`\nUpload faults over real HTTP (wrangler dev, ${restarts} restarts on the same state)\n${line(header)}`);
console.log(widths.map((w) => "-".repeat(w)).join("  "));
for (const row of rows) console.log(line(row));
const failed = results.filter((r) => !r.ok);
console.log(`\n${results.length - failed.length}/${results.length} faults ended with the source's bytes${failed.length ? `; FAILED: ${failed.map((r) => r.name).join("; ")}` : ""}`);
process.exit(exitCode || (failed.length > 0 || results.length === 0 ? 1 : 0));
