// The move of a live library into its shard (issue 40 item 4, decision 043; `npm run bench -- library-move`, or
// `SKIP_BUILD=1 node bench/library-move.mjs` after a build).
//   1. Seeds the access benchmark's library into a fresh local D1 (bench/lib/access-seed.mjs: one library of 100,000
//      assets in an 11,111-folder tree, 50,000 rules, 1,000 users) and starts `wrangler dev`.
//   2. Moves the library through the bench route (`POST /internal/bench/library-move`, 20 s of work per request,
//      called until the directory says `shard`), while a writer renames files of the library through the API one
//      request after another, as someone working in it would.
//   3. Prints the move's time, how long the library's writes were paused (the Worker's moments of the pause and the
//      switch, and the longest run of 503s the writer saw), the writes accepted while the library was copied, and
//      the sizes of the catalog and the shard; and, before the move (from the catalog D1) and after it (from the
//      shard), p50/p95 of the library's two reads — the folder page of 50 and the viewer's call for a file — for the
//      administrator and for a reader whose access comes from a rule two levels up, and of a rename of that file
//      (PATCH: one catalog batch before; after, routed to the shard and written back to the catalog) and of a 1 KB
//      upload in one request (after: its statements sent to the shard one by one, then written back), beside the
//      floors (`/api/ping`, whoami) of the same run.
// Loopback only; the server is always stopped. Exits 0 once it has run (a benchmark is not a test), 1 only when it
// could not run.
import { randomBytes } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { ASSETS, accessSeedSql, assetId, READER, READER_L3, readerAsset, TREE_TOP_ID, treeGroupId, userLogin } from "./lib/access-seed.mjs";
import { d1FileOf, databaseIdOf } from "./lib/d1-files.mjs";
import { buildUnlessSkipped, login, ms, percentile, printTable } from "./lib/measure.mjs";

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

/** The largest SQLite file of a library shard under miniflare's state: the shard the move filled. */
function shardBytes(persistDir) {
  const root = join(persistDir, "v3", "do");
  const dir = readdirSync(root).find((d) => d.endsWith("LibraryShardDO"));
  if (!dir) return 0;
  return Math.max(0, ...readdirSync(join(root, dir)).map((f) => statSync(join(root, dir, f)).size));
}

const READS = Number(process.env.BENCH_MOVE_READS ?? "200");

/**
 * p50/p95 of `READS` requests one after another (after 20 unmeasured), each answering `status`; `url` may be a
 * function of the request's number, and `init(i)` shapes each.
 */
async function timed(url, headers = {}, init = () => ({}), status = 200) {
  const times = [];
  for (let i = 0; i < READS + 20; i++) {
    const target = typeof url === "function" ? url(i) : url;
    const started = performance.now();
    const response = await fetch(target, { headers, ...init(i) });
    await response.arrayBuffer();
    if (response.status !== status) throw new Error(`${target} answered ${response.status}`);
    if (i >= 20) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

/** The floors and the two reads a library's screens make, for the administrator and for a reader (rule two levels up). */
async function reads(url, who, phase) {
  const page = `${url}/api/group/members/${treeGroupId(3, READER_L3)}?type=asset&take=50`;
  const viewer = `${url}/api/asset/${readerAsset()}?versions=1&groups=1`;
  const out = { "floor: GET /api/ping": await timed(`${url}/api/ping`) };
  for (const [label, headers] of Object.entries(who)) {
    out[`floor: whoami, ${label}`] = await timed(`${url}/api/auth/whoami`, headers);
    out[`folder page of 50, ${label}`] = await timed(page, headers);
    out[`file (viewer's call), ${label}`] = await timed(viewer, headers);
  }
  // A write: in the catalog one batch; in the shard (decision 043, «Writes») one call, then its writeback batch.
  const { administrator } = who;
  out["rename the file (PATCH), administrator"] = await timed(
    viewer.split("?")[0],
    { ...administrator, "content-type": "application/json" },
    (i) => ({
      method: "PATCH",
      body: JSON.stringify({ asset_name: `замер-${i}.jpg` }),
    }),
  );
  // An upload: in the catalog its statements run there; in the shard (decision 043, «Uploads») each is a call to the
  // shard from the Worker, which keeps the bytes, then the writeback batch.
  const folder = treeGroupId(3, 999);
  out["upload a 1 KB file (one request), administrator"] = await timed(
    (i) => `${url}/api/asset/upload?in_group=${folder}&name=${encodeURIComponent(`замер-${phase}-${i}.txt`)}`,
    { ...administrator, "content-type": "text/plain" },
    () => ({ method: "POST", body: "x".repeat(1024) }),
    201,
  );
  return out;
}

async function main() {
  buildUnlessSkipped();
  const loadAtStart = load();
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-move-"));
  const benchToken = randomBytes(24).toString("hex");
  const auth = { authorization: `Bearer ${benchToken}` };
  console.log(`> wrangler dev on 127.0.0.1:${port} (state in ${persistDir}); seeding one library of ${ASSETS} assets into D1`);
  const server = await startDevServer({
    port,
    persistDir,
    seedSql: accessSeedSql(),
    vars: { BENCH_TOKEN: benchToken },
    migrateTimeoutMs: 900_000,
  });
  try {
    const { url } = server;
    const bearer = await login(url, server.adminLogin, server.adminPassword);
    const who = {
      administrator: { authorization: `Bearer ${bearer}`, "x-api-version": "1.0" },
      reader: { authorization: `Bearer ${await login(url, userLogin(READER), server.adminPassword)}`, "x-api-version": "1.0" },
    };
    console.log(`> reads before the move (${READS} each, from the catalog D1)`);
    const before = await reads(url, who, "before");

    // The writer: renames files of the library until the move has switched it.
    let switched = false;
    const writes = { accepted: 0, refused: 0, other: 0, longestRefusal: 0, times: [] };
    const writer = (async () => {
      let refusedSince = null;
      for (let i = 0; !switched; i++) {
        const started = performance.now();
        const response = await fetch(`${url}/api/asset/${assetId((i * 7919) % ASSETS)}`, {
          method: "PATCH",
          headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", "x-api-version": "1.0" },
          body: JSON.stringify({ asset_name: `переименован-${i}.jpg` }),
        });
        await response.arrayBuffer();
        const now = performance.now();
        if (response.status === 200) {
          writes.accepted++;
          writes.times.push(now - started);
          refusedSince = null;
        } else if (response.status === 503) {
          writes.refused++;
          refusedSince ??= started;
          writes.longestRefusal = Math.max(writes.longestRefusal, now - refusedSince);
        } else writes.other++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    const moveStarted = performance.now();
    const calls = [];
    let answer;
    let pausedAt = null;
    try {
      do {
        const response = await fetch(`${url}/internal/bench/library-move?library=${TREE_TOP_ID}&budget=20000`, {
          method: "POST",
          headers: auth,
        });
        answer = await response.json();
        if (response.status !== 200) throw new Error(`library-move answered ${response.status}: ${JSON.stringify(answer)}`);
        pausedAt ??= answer.paused_at;
        if (answer.move.state === "shard")
          console.log(
            `  moments after the pause (ms): ${JSON.stringify(
              Object.fromEntries(Object.entries(answer.moments).map(([k, v]) => [k, v - (pausedAt ?? v)])),
            )}`,
          );
        calls.push(answer.ms);
        console.log(`  … ${answer.move.state} / ${answer.move.step}, ${(answer.ms / 1000).toFixed(1)} s`);
      } while (answer.move.state !== "shard");
    } finally {
      switched = true;
      await writer;
    }
    const moveMs = performance.now() - moveStarted;
    writes.times.sort((a, b) => a - b);

    // Isolates trust "no library is in a shard" for a minute: the reads after the move wait it out.
    await new Promise((resolve) => setTimeout(resolve, 61_000));
    console.log(`> the same reads after the move (from the library's shard)`);
    const after = await reads(url, who, "after");
    const catalogBytes = statSync(d1FileOf(persistDir, databaseIdOf("DB"))).size;
    console.log(`> one library of ${ASSETS} assets moved into its shard while a writer renamed its files`);
    const rows = [
      ["p50 / p95", "before: catalog D1", "after: library shard"],
      ...Object.keys(before).map((label) => [
        label,
        `${ms(before[label].p50)} / ${ms(before[label].p95)}`,
        `${ms(after[label].p50)} / ${ms(after[label].p95)}`,
      ]),
    ];
    const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length)));
    console.log(
      `\n${rows
        .map((row) =>
          row
            .map((cell, i) => cell.padEnd(widths[i]))
            .join("  ")
            .trimEnd(),
        )
        .join("\n")}`,
    );
    printTable([
      ["the move, start to switch", `${(moveMs / 1000).toFixed(1)} s in ${calls.length} requests of ≤ 20 s`],
      ["writes paused (the Worker: pause → switch)", ms(answer.switched_at - pausedAt)],
      ["writes paused (the writer: longest run of 503)", ms(writes.longestRefusal)],
      [
        "renames accepted while copying",
        `${writes.accepted}, p50 ${ms(percentile(writes.times, 50))} / p95 ${ms(percentile(writes.times, 95))}`,
      ],
      ["renames refused (503, Retry-After)", String(writes.refused)],
      ["other answers", String(writes.other)],
      ["check found a difference", answer.move.error ?? "no"],
    ]);
    console.log(
      `sizes: D1 catalog file ${(catalogBytes / 1e6).toFixed(1)} MB; the shard's file ${(shardBytes(persistDir) / 1e6).toFixed(1)} MB`,
    );
    console.log(`load average at start ${loadAtStart}, at end ${load()}`);
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
