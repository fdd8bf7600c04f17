// `npm run bench -- zip`: the ZIP of a selection (POST /api/zip) against a plain download of the same bytes, with the
// runtime's memory. BENCH_ZIP_GIB (default 10) GiB in BENCH_ZIP_FILES (default 10) files of one folder; the files are
// sparse in the sense the issue allows: one generated object (written into the local R2 by the bench-only route,
// bench/library.mjs's way) referenced by every file's variant, so the bytes are real R2 reads but the disk holds one
// copy. The figures, all from the same run: the floor (GET /api/ping), the plain download (each file through the
// product's download, and straight from the R2 binding), and the ZIP streamed to its end — its throughput against
// the plain download (target ≥ 0.9×) and the runtime's RSS over the ZIP (target: flat within 10 %). BENCH_ZIP_ROUNDS (default
// 3) rounds, medians reported (a shared machine); BENCH_PORT pins the server's port.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { DEFAULT_STORAGE_ID, ROOT_GROUP_ID, hexId } from "./lib/library-seed.mjs";
import { buildUnlessSkipped, login, printTable, verdict } from "./lib/measure.mjs";
import { serverCpuMs } from "./lib/server-cpu.mjs";
import { retried, withRssSamples, workerdProcesses } from "./lib/workerd.mjs";

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const TOTAL_GIB = Math.max(0.01, Number(process.env.BENCH_ZIP_GIB ?? 10) || 10);
const FILES = Math.max(1, Math.round(Number(process.env.BENCH_ZIP_FILES ?? 10) || 10));
const ROUNDS = Math.max(1, Math.round(Number(process.env.BENCH_ZIP_ROUNDS ?? 3) || 3));
const FILE_BYTES = Math.round((TOTAL_GIB * GiB) / FILES);
const KEY = "bench/zip-source";
const GROUP_ID = hexId(0xc1_0000_0000);
const assetId = (n) => hexId(0xc2_0000_0000 + n);
const versionId = (n) => hexId(0xc3_0000_0000 + n);
const variantId = (n) => hexId(0xc4_0000_0000 + n);
const TARGETS = { ratio: 0.9, rssGrowth: 0.1 };

const mib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / MiB).toFixed(0)} MiB` : "n/a");
const rate = (bytes, ms) => bytes / MiB / (ms / 1000);

function seedSql(now = Date.now()) {
  const admin = "(SELECT id FROM users WHERE lower(login) = 'admin')";
  const rows = [
    `INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES ('${GROUP_ID}', 'Bench ZIP', '${ROOT_GROUP_ID}', ${admin}, ${now}, ${now})`,
    `INSERT INTO group_closure (ancestor, descendant, depth) VALUES ('${GROUP_ID}', '${GROUP_ID}', 0), ('${ROOT_GROUP_ID}', '${GROUP_ID}', 1)`,
    `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES ('${ROOT_GROUP_ID}', '${GROUP_ID}', 'group', ${now}, 'bench zip', ${now}, 0)`,
  ];
  for (let n = 1; n <= FILES; n++) {
    const name = `rushes-${String(n).padStart(3, "0")}.mov`;
    rows.push(
      `INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime) VALUES ('${assetId(
        n,
      )}', '${name}', 'video/quicktime', ${admin}, ${admin}, 1, ${now}, ${now}, ${now})`,
      `INSERT INTO asset_versions (id, asset_id, version, user_id, ctime) VALUES ('${versionId(n)}', '${assetId(n)}', 1, ${admin}, ${now})`,
      `INSERT INTO variants (id, asset_id, version_id, variant_type, status, name, mime_type, format, file_name, content_size, sha256, storage_id, storage_key, user_id, ctime)
        VALUES ('${variantId(n)}', '${assetId(n)}', '${versionId(
        n,
      )}', 'initial', 'ready', '${name}', 'video/quicktime', 'mov', '${name}', ${FILE_BYTES}, printf('%064x', ${n}), '${DEFAULT_STORAGE_ID}', '${KEY}', ${admin}, ${now})`,
      `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES ('${GROUP_ID}', '${assetId(
        n,
      )}', 'asset', ${now}, '${name}', ${now}, ${FILE_BYTES})`,
    );
  }
  return `${rows.join(";\n")};\n`;
}

/**
 * CPU spent from now until the returned function is called: the local server's (every workerd process of this run) and
 * this client's, in milliseconds. Per byte it hardly moves with the load of other runs on the machine, unlike MiB/s.
 */
function cpuMark() {
  const server = serverCpuMs();
  const client = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(client);
    return { serverMs: serverCpuMs() - server, clientMs: (used.user + used.system) / 1000 };
  };
}

const cpuText = (phase) =>
  `CPU per GiB: server ${(((phase.cpu.serverMs / phase.result.bytes) * GiB) / 1000).toFixed(1)} s, client ${(
    ((phase.cpu.clientMs / phase.result.bytes) * GiB) /
    1000
  ).toFixed(1)} s`;

/** Reads an answer to its end; answers status, bytes and milliseconds (nothing kept but the count). */
async function timed(url, init = {}) {
  const started = performance.now();
  const response = await fetch(url, init);
  let bytes = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
  }
  return { status: response.status, bytes, ms: performance.now() - started, type: response.headers.get("content-type") };
}

async function main() {
  buildUnlessSkipped();
  const port = Number(process.env.BENCH_PORT) || (await freePort());
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-zip-"));
  const benchToken = randomBytes(24).toString("hex");
  console.log(
    `> ${TOTAL_GIB} GiB in ${FILES} files of ${mib(FILE_BYTES)} (one generated object in local R2 behind every file); ` +
      `load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}; state in ${persistDir}`,
  );
  const server = await startDevServer({
    port,
    persistDir,
    seedSql: seedSql(),
    vars: { BENCH_TOKEN: benchToken },
    // A machine shared by several runs: migrations and the first start take minutes, not seconds.
    migrateTimeoutMs: 600_000,
    startTimeoutMs: 600_000,
  });
  const stop = () => server.stop().finally(() => rm(persistDir, { recursive: true, force: true }));
  process.once("SIGINT", () => stop().finally(() => process.exit(130)));
  try {
    const { url } = server;
    const benchAuth = { authorization: `Bearer ${benchToken}` };
    const written = await retried(url, "object write", async () => {
      const started = performance.now();
      const res = await fetch(`${url}/internal/bench/object?key=${encodeURIComponent(KEY)}&size=${FILE_BYTES}`, {
        method: "POST",
        headers: benchAuth,
        signal: AbortSignal.timeout(30 * 60_000),
      });
      if (res.status !== 200) throw new Error(`bench object write answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      return performance.now() - started;
    });
    console.log(`  ${mib(FILE_BYTES)} written into R2 in ${(written / 1000).toFixed(1)} s`);
    // A fresh token before every pass: an access token lives 15 minutes, and a pass of 10 GiB on a busy machine is longer.
    let auth = {};
    const signIn = async () => {
      auth = { authorization: `Bearer ${await login(url, server.adminLogin, server.adminPassword)}`, "x-api-version": "1.0" };
    };
    const findProcesses = () => workerdProcesses(persistDir, port);

    // The floor: GET /api/ping, after a warm-up.
    const pings = [];
    for (let i = 0; i < 25; i++) pings.push((await timed(`${url}/api/ping`)).ms);
    const floor = pings.slice(5).sort((a, b) => a - b)[Math.floor(pings.length / 2) - 3];

    const rows = [];
    const results = { plain: [], raw: [], zip: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      // A plain download of the same bytes: every file through the product's download, one after another.
      await signIn();
      const plainCpu = cpuMark();
      const plain = await withRssSamples(findProcesses(), async () => {
        let bytes = 0;
        const started = performance.now();
        for (let n = 1; n <= FILES; n++) {
          const r = await timed(`${url}/api/asset/content/download-variant/${variantId(n)}`, { headers: auth });
          if (r.status !== 200 || r.bytes !== FILE_BYTES) throw new Error(`download ${n} answered ${r.status} with ${r.bytes} bytes`);
          bytes += r.bytes;
        }
        return { bytes, ms: performance.now() - started };
      });
      plain.cpu = plainCpu();
      results.plain.push(plain);
      console.log(
        `  round ${round} plain download: ${(plain.result.ms / 1000).toFixed(1)} s, ${rate(plain.result.bytes, plain.result.ms).toFixed(
          0,
        )} MiB/s; ` + `runtime RSS ${mib(plain.runtime.min)} … ${mib(plain.runtime.max)}; ${cpuText(plain)}`,
      );
      // The same bytes straight from the R2 binding (no product code on the way): the simulator's own ceiling.
      const rawCpu = cpuMark();
      const raw = await withRssSamples(findProcesses(), async () => {
        let bytes = 0;
        const started = performance.now();
        for (let n = 1; n <= FILES; n++)
          bytes += (await timed(`${url}/internal/bench/r2-read?key=${encodeURIComponent(KEY)}`, { headers: benchAuth })).bytes;
        return { bytes, ms: performance.now() - started };
      });
      raw.cpu = rawCpu();
      results.raw.push(raw);
      console.log(
        `  round ${round} R2 binding read: ${(raw.result.ms / 1000).toFixed(1)} s, ${rate(raw.result.bytes, raw.result.ms).toFixed(
          0,
        )} MiB/s; ` + `runtime RSS ${mib(raw.runtime.min)} … ${mib(raw.runtime.max)}; ${cpuText(raw)}`,
      );
      // The ZIP of the folder, streamed in the answer.
      await signIn();
      const zipCpu = cpuMark();
      const zip = await withRssSamples(findProcesses(), () =>
        timed(`${url}/api/zip`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ group_ids: [GROUP_ID] }),
        }),
      );
      if (zip.result.status !== 200 || zip.result.type !== "application/zip" || zip.result.bytes < FILES * FILE_BYTES) {
        throw new Error(`ZIP answered ${zip.result.status} (${zip.result.type}) with ${zip.result.bytes} bytes`);
      }
      zip.cpu = zipCpu();
      results.zip.push(zip);
      console.log(
        `  round ${round} ZIP: ${(zip.result.ms / 1000).toFixed(1)} s, ${rate(zip.result.bytes, zip.result.ms).toFixed(0)} MiB/s; ` +
          `runtime RSS ${mib(zip.runtime.min)} … ${mib(zip.runtime.max)} (${zip.samples} samples; at each fifth: ${zip.fifths
            .map(mib)
            .join(", ")}); ` +
          cpuText(zip),
      );
    }
    // A machine shared with other runs: the median of the rounds (each round's ZIP against that round's plain
    // download, so a burst of load elsewhere weighs on both sides of a ratio alike), every round beside it.
    const rates = (list) => list.map((r) => rate(r.result.bytes, r.result.ms));
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
    const plainRate = median(rates(results.plain));
    const rawRate = median(rates(results.raw));
    const zipRate = median(rates(results.zip));
    const ratios = results.zip.map(
      (z, i) => rate(z.result.bytes, z.result.ms) / rate(results.plain[i].result.bytes, results.plain[i].result.ms),
    );
    const ratio = median(ratios);
    const spread = (values) => (values.length > 1 ? ` (rounds ${values.map((v) => v.toFixed(values === ratios ? 2 : 0)).join(", ")})` : "");
    // Flat memory: the runtime's RSS range over each round's ZIP against its lowest value, the median of the rounds (the
    // first pass of anything, the plain download too, grows the fresh runtime while the simulator warms up; the fifths
    // in each round's line show a climb if there is one).
    const growths = results.zip.map((z) => (z.runtime.max - z.runtime.min) / z.runtime.min);
    const growth = median(growths);
    const zipMedian = results.zip[growths.indexOf(growth)];
    rows.push(
      ["GET /api/ping (floor)", `${floor.toFixed(1)} ms p50`, "", ""],
      ["plain download (product), same bytes", `${plainRate.toFixed(0)} MiB/s${spread(rates(results.plain))}`, "", ""],
      ["R2 binding read, same bytes", `${rawRate.toFixed(0)} MiB/s${spread(rates(results.raw))}`, "", ""],
      [`ZIP of ${FILES} files, ${TOTAL_GIB} GiB`, `${zipRate.toFixed(0)} MiB/s${spread(rates(results.zip))}`, "", ""],
      [
        "ZIP against plain (median of rounds)",
        `${ratio.toFixed(2)}×${spread(ratios)}`,
        `≥ ${TARGETS.ratio}×`,
        verdict(ratio, TARGETS.ratio, { atLeast: true }),
      ],
      [
        "server CPU per GiB: plain / R2 read / ZIP (median)",
        ["plain", "raw", "zip"]
          .map((k) => `${median(results[k].map((r) => ((r.cpu.serverMs / r.result.bytes) * GiB) / 1000)).toFixed(1)} s`)
          .join(" / "),
        "",
        "",
      ],
      [
        "runtime RSS over the ZIP (median round)",
        `${mib(zipMedian.runtime.min)} … ${mib(zipMedian.runtime.max)} (rounds ${growths
          .map((g) => `${(g * 100).toFixed(0)} %`)
          .join(", ")})`,
        `flat within ${TARGETS.rssGrowth * 100} %`,
        verdict(growth, TARGETS.rssGrowth) + ` (${(growth * 100).toFixed(1)} %)`,
      ],
    );
    printTable(rows);
  } finally {
    await stop();
  }
}

await main();
