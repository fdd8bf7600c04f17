// Local disk helper benchmark (issue 15): starts the built product under `wrangler dev` on a free loopback port with a
// fresh state directory and the helper (helper/main.ts) on a temporary root, mounts a group, then measures how fast
// the helper's sync brings local files to the server (until every file is committed with the right SHA-256):
//   1. 1,000 small files (10 KB) written into the mounted folder at once;
//   2. one large file (HELPER_BENCH_MIB, default 1024 = 1 GiB) written into it;
// each beside its floor: the same bytes uploaded straight through the API (create, create-version, one PUT per small
// file 8 at a time; the multipart flow with 4 parts in parallel for the large file), the calls the helper makes,
// without the helper's scanning, planning and bookkeeping. Prints a table and always exits 0.
//
//   node bench/helper.mjs                              (builds first; SKIP_BUILD=1 to reuse build/)
//   HELPER_BENCH_MIB=64 HELPER_BENCH_FILES=200 node bench/helper.mjs   (a quicker run)
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, open, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { startHelper } from "../scripts/helper-process.mjs";
import { buildUnlessSkipped, printTable } from "./lib/measure.mjs";

const MiB = 1024 * 1024;
const ROOT_GROUP = "f".repeat(32);
const LARGE_BYTES = Math.max(8, Number(process.env.HELPER_BENCH_MIB ?? 1024)) * MiB;
const SMALL_FILES = Math.max(1, Math.min(10_000, Number(process.env.HELPER_BENCH_FILES ?? 1000)));
const SMALL_BYTES = 10 * 1000;
/** The helper's own parallelism (helper/mount-sync.ts), so the floor makes the same number of calls at once. */
const FILES_AT_ONCE = 8;
const PARTS_AT_ONCE = 4;
const SYNC_TIMEOUT_MS = 60 * 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const fixed = (value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

async function api(base, bearer, path, { method = "GET", json, body, headers = {} } = {}, expected = 200) {
  const h = { ...headers, "x-api-version": "1.0" };
  if (bearer) h.authorization = `Bearer ${bearer}`;
  if (json !== undefined) h["content-type"] = "application/json";
  const res = await fetch(new URL(path, base), { method, headers: h, body: json !== undefined ? JSON.stringify(json) : body });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return { text, headers: res.headers, json: () => JSON.parse(text) };
}

/** Every committed file of the group: name → sha256 (paging by key). */
async function committed(base, bearer, groupId) {
  const files = new Map();
  let after = null;
  for (;;) {
    const q = new URLSearchParams({ type: "asset", take: "500" });
    if (after) q.set("after", after);
    const res = await api(base, bearer, `/api/group/members/${groupId}?${q}`);
    const page = res.json();
    for (const m of page) if (m.el_info.var_hash) files.set(m.el_info.name, m.el_info.var_hash);
    after = res.headers.get("x-next-cursor");
    if (!after || page.length < 500) return files;
  }
}

async function waitCommitted(base, bearer, groupId, expected) {
  const deadline = Date.now() + SYNC_TIMEOUT_MS;
  for (;;) {
    const files = await committed(base, bearer, groupId);
    if ([...expected].every(([name, hash]) => files.get(name) === hash)) return;
    if (Date.now() > deadline) throw new Error(`not every file was committed within ${SYNC_TIMEOUT_MS / 60_000} min`);
    await sleep(250);
  }
}

/** Writes the large file part by part (bounded memory) and answers its SHA-256. */
async function writeLarge(path, size) {
  const block = randomBytes(16 * MiB);
  const hash = createHash("sha256");
  const handle = await open(path, "w");
  try {
    for (let offset = 0, n = 0; offset < size; offset += block.length, n++) {
      const chunk = Buffer.from(block.subarray(0, Math.min(block.length, size - offset)));
      chunk.writeUInt32BE(n, 0);
      hash.update(chunk);
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
  return hash.digest("hex");
}

async function eachLimited(count, limit, task) {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    for (let i = next++; i < count; i = next++) await task(i);
  }));
}

/** The floor for small files: create, create-version, PUT, as the helper does, FILES_AT_ONCE at a time. */
async function rawSmall(base, bearer, groupId, bodies) {
  await eachLimited(bodies.length, FILES_AT_ONCE, async (i) => {
    const name = `raw-${String(i).padStart(5, "0")}.bin`;
    const asset = (await api(base, bearer, "/api/asset/create", { method: "POST", json: { asset_name: name, asset_mime: "application/octet-stream", in_group: groupId } })).json();
    const info = (
      await api(base, bearer, `/api/asset/create-version/${asset.asset_id}`, {
        method: "POST",
        json: { to_group: groupId, variant_type: "initial", size: bodies[i].length },
      })
    ).json();
    await api(base, "", info.upload_url, { method: "PUT", body: bodies[i], headers: { "content-type": "application/octet-stream" } }, 201);
  });
}

/** The floor for the large file: the multipart flow straight from the file, PARTS_AT_ONCE parts at a time. */
async function rawLarge(base, bearer, groupId, path, size) {
  const asset = (await api(base, bearer, "/api/asset/create", { method: "POST", json: { asset_name: "raw-large.bin", asset_mime: "application/octet-stream", in_group: groupId } })).json();
  const info = (
    await api(base, bearer, `/api/asset/create-version/${asset.asset_id}`, {
      method: "POST",
      json: { to_group: groupId, variant_type: "initial", size, multipart: true },
    })
  ).json();
  const sign = async (body) => (await api(base, bearer, "/api/upload/sign", { method: "POST", json: { variant_id: info.variant_id, ...body } })).json();
  const created = await sign({ op: "create", method: "POST" });
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec((await api(base, "", created.url, { method: "POST" })).text)[1];
  const count = Math.ceil(size / info.part_size);
  const etags = new Array(count);
  const handle = await open(path, "r");
  try {
    await eachLimited(count, PARTS_AT_ONCE, async (i) => {
      const length = Math.min(info.part_size, size - i * info.part_size);
      const bytes = Buffer.alloc(length);
      await handle.read(bytes, 0, length, i * info.part_size);
      const signed = await sign({ op: "part", method: "PUT", upload_id: uploadId, part_number: i + 1 });
      etags[i] = (await api(base, "", signed.url, { method: "PUT", body: bytes })).headers.get("etag");
    });
  } finally {
    await handle.close();
  }
  const done = await sign({ op: "complete", method: "POST", upload_id: uploadId });
  const xml = `<CompleteMultipartUpload>${etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e}</ETag></Part>`).join("")}</CompleteMultipartUpload>`;
  await api(base, "", done.url, { method: "POST", body: xml, headers: { "content-type": "application/xml" } });
  for (;;) {
    const status = (await api(base, bearer, `/api/upload/status/${info.variant_id}`)).json();
    if (status.state === "ready") return status.sha256;
    if (status.state === "aborted") throw new Error("the raw upload was aborted");
    await sleep(250);
  }
}

async function main() {
  buildUnlessSkipped();
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-helper-"));
  const root = await mkdtemp(join(tmpdir(), "mam-bench-helper-root-"));
  console.log(`> wrangler dev on 127.0.0.1:${port} (state in ${persistDir}); helper root ${root}`);
  const server = await startDevServer({ port, persistDir });
  let helper;
  try {
    const base = server.url;
    const signIn = async () => (await api(base, "", "/api/auth/login", { method: "POST", json: { user: server.adminLogin, passwd: server.adminPassword } })).json().bearer;
    let bearer = await signIn();
    const group = (name) => api(base, bearer, "/api/group/create", { method: "POST", json: { parent: ROOT_GROUP, group_name: `${name} ${Date.now()}` } }).then((r) => r.json().group_id);
    const synced = await group("Бенчмарк помощника");
    const raw = await group("Бенчмарк API");
    helper = await startHelper({ root, port: await freePort(), origin: base, interval: 1 });
    const handToHelper = () => fetch(`${helper.url}/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: bearer }) });
    await handToHelper();
    const mount = await fetch(`${helper.url}/mount`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ group_id: synced, name: "Бенчмарк" }) });
    if (mount.status !== 201) throw new Error(`mount answered ${mount.status}: ${await mount.text()}`);
    const folder = join(root, "Бенчмарк");

    // Warm-up: the first requests compile the Worker; neither side should pay for it.
    await rawSmall(base, bearer, raw, [randomBytes(100)]);

    console.log(`> ${SMALL_FILES} files of ${SMALL_BYTES / 1000} KB written into the mounted folder`);
    const bodies = Array.from({ length: SMALL_FILES }, () => randomBytes(SMALL_BYTES));
    const expected = new Map(bodies.map((b, i) => [`small-${String(i).padStart(5, "0")}.bin`, sha256(b)]));
    const smallStart = performance.now();
    await Promise.all([...expected.keys()].map((name, i) => writeFile(join(folder, name), bodies[i])));
    await waitCommitted(base, bearer, synced, expected);
    const smallMs = performance.now() - smallStart;
    console.log(`  helper: ${(smallMs / 1000).toFixed(1)} s, ${fixed(SMALL_FILES / (smallMs / 1000))} files/s`);

    bearer = await signIn();
    await handToHelper();
    const rawSmallStart = performance.now();
    await rawSmall(base, bearer, raw, bodies);
    const rawSmallMs = performance.now() - rawSmallStart;
    console.log(`  floor (API, ${FILES_AT_ONCE} at a time): ${(rawSmallMs / 1000).toFixed(1)} s, ${fixed(SMALL_FILES / (rawSmallMs / 1000))} files/s`);

    console.log(`> one file of ${LARGE_BYTES / MiB} MiB (generated in a scratch folder, then moved into the mounted folder)`);
    const scratch = join(root, ".bench-large.bin");
    const largeHash = await writeLarge(scratch, LARGE_BYTES);
    bearer = await signIn();
    await handToHelper();
    const largeStart = performance.now();
    // A rename is atomic: the helper never sees a half-written file.
    await rename(scratch, join(folder, "large.bin"));
    await waitCommitted(base, bearer, synced, new Map([["large.bin", largeHash]]));
    const largeMs = performance.now() - largeStart;
    console.log(`  helper: ${(largeMs / 1000).toFixed(1)} s, ${fixed(LARGE_BYTES / MiB / (largeMs / 1000), 0)} MiB/s`);

    bearer = await signIn();
    const rawLargeStart = performance.now();
    const rawHash = await rawLarge(base, bearer, raw, join(folder, "large.bin"), LARGE_BYTES);
    const rawLargeMs = performance.now() - rawLargeStart;
    console.log(`  floor (API multipart, ${PARTS_AT_ONCE} parts at a time): ${(rawLargeMs / 1000).toFixed(1)} s, ${fixed(LARGE_BYTES / MiB / (rawLargeMs / 1000), 0)} MiB/s; sha256 ${rawHash === largeHash ? "matches" : "DIFFERS"}`);

    printTable([
      ["small files through the helper (files/s)", fixed(SMALL_FILES / (smallMs / 1000)), `floor ${fixed(SMALL_FILES / (rawSmallMs / 1000))}`, `${fixed((100 * rawSmallMs) / smallMs, 0)}% of floor`],
      [`${LARGE_BYTES / MiB} MiB through the helper (MiB/s)`, fixed(LARGE_BYTES / MiB / (largeMs / 1000), 0), `floor ${fixed(LARGE_BYTES / MiB / (rawLargeMs / 1000), 0)}`, `${fixed((100 * rawLargeMs) / largeMs, 0)}% of floor`],
    ]);
  } finally {
    await helper?.stop();
    await server.stop();
    await rm(root, { recursive: true, force: true });
    await rm(persistDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 0;
});
