// The library shard benchmark (issue 40, decision 043; `npm run bench -- library-shard`, or
// `SKIP_BUILD=1 node bench/library-shard.mjs` after a build): the same library in D1 and in a library shard (a
// SQLite Durable Object with the catalog's schema), and the product's members page listed from each.
//   1. Seeds the access benchmark's library into a fresh local D1 (bench/lib/access-seed.mjs: 1,000 users, 200 groups
//      of users, 50,000 rules, 100,000 assets in an 11,111-group tree), starts `wrangler dev` and starts one shard
//      (its first call applies the catalog's migrations).
//   2. Stops the server and copies every catalog row into the shard's SQLite file at the storage layer (triggers
//      set aside during the copy, so the copy is exact), then starts the server again on the same state.
//   3. Times requests to the bench routes, each making one call: a trivial D1 statement and a trivial shard call (the
//      floors); the members page of 50 for the administrator and for a reader whose access comes from a rule two
//      levels up, listed by `listMembers` over D1 (its queries one round trip each) and by one call to the shard that
//      runs the same service against its own database. Prints p50/p95, the round trips, and both databases' sizes.
// Locally `wrangler dev` runs the Worker, D1 and the Durable Object on one thread, so a round trip costs its CPU, not
// a distance: the figures compare the work; the trips column says what distance would add. Loopback only; the
// server is always stopped. Exits 0 once it has run (a benchmark is not a test), 1 only when it could not run.
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { ASSETS, accessSeedSql, READER, READER_L3, RULES, treeGroupId, userId } from "./lib/access-seed.mjs";
import { d1FileOf, databaseIdOf } from "./lib/d1-files.mjs";
import { buildUnlessSkipped, login, ms, percentile, printTable } from "./lib/measure.mjs";

const SHARD = "bench-library";
const N = Number(process.env.BENCH_SHARD_CALLS ?? "200");

async function getJson(url, headers) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(120_000) });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** The shard's SQLite file: miniflare keeps a Durable Object's database as `<id>.sqlite` under its class's folder. */
function shardFileOf(persistDir, id) {
  const root = join(persistDir, "v3", "do");
  for (const dir of readdirSync(root)) {
    const file = join(root, dir, `${id}.sqlite`);
    if (dir.endsWith("LibraryShardDO") && existsSync(file)) return file;
  }
  throw new Error(`no SQLite file of shard ${id} under ${root}`);
}

/**
 * Copies every row of the catalog's tables into the shard (same schema: tests/integration/library-shard.test.ts). The
 * shard's triggers are dropped for the copy and made again from their own definitions, so the outbox and index marks
 * the seed wrote are copied, not written twice.
 */
function copyCatalogInto(shardFile, catalogFile) {
  const shard = new DatabaseSync(shardFile);
  try {
    shard.exec(`ATTACH DATABASE '${catalogFile.replaceAll("'", "''")}' AS catalog`);
    const triggers = shard.prepare("SELECT name, sql FROM main.sqlite_master WHERE type = 'trigger'").all();
    const tables = shard
      .prepare(
        // The catalog's own tables: not SQLite's, D1's (_cf_…, d1_migrations), miniflare's (__miniflare…) or the shard's.
        `SELECT m.name FROM main.sqlite_master m JOIN catalog.sqlite_master c ON c.type = 'table' AND c.name = m.name
         WHERE m.type = 'table' AND m.name NOT GLOB 'sqlite_*' AND m.name NOT GLOB '_*'
         AND m.name <> 'd1_migrations' ORDER BY m.name`,
      )
      .all()
      .map((row) => row.name);
    shard.exec("BEGIN");
    for (const { name } of triggers) shard.exec(`DROP TRIGGER "${name}"`);
    let rows = 0;
    for (const table of tables) {
      shard.exec(`DELETE FROM main."${table}"`);
      rows += Number(shard.prepare(`INSERT INTO main."${table}" SELECT * FROM catalog."${table}"`).run().changes);
    }
    for (const { sql } of triggers) shard.exec(sql);
    shard.exec("COMMIT");
    return { tables: tables.length, rows, triggers: triggers.length };
  } finally {
    shard.close();
  }
}

async function main() {
  buildUnlessSkipped();
  const loadAtStart = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-shard-"));
  const benchToken = randomBytes(24).toString("hex");
  const vars = { BENCH_TOKEN: benchToken };
  const auth = { authorization: `Bearer ${benchToken}` };
  console.log(`> wrangler dev on 127.0.0.1:${port} (state in ${persistDir}); seeding ${ASSETS} assets, ${RULES} rules into D1`);
  let server = await startDevServer({ port, persistDir, seedSql: accessSeedSql(), vars, migrateTimeoutMs: 900_000 });
  const { adminLogin, adminPassword, jwtSecret } = server;
  let shardId;
  try {
    shardId = (await getJson(`${server.url}/internal/bench/shard?shard=${SHARD}`, auth)).id;
  } finally {
    await server.stop();
  }

  const catalogFile = d1FileOf(persistDir, databaseIdOf("DB"));
  const shardFile = shardFileOf(persistDir, shardId);
  const copyStarted = performance.now();
  const copied = copyCatalogInto(shardFile, catalogFile);
  console.log(
    `> copied ${copied.rows} rows of ${copied.tables} tables into shard ${shardId} in ${((performance.now() - copyStarted) / 1000).toFixed(
      1,
    )} s`,
  );

  server = await startDevServer({ port, persistDir, adminLogin, adminPassword, jwtSecret, vars });
  try {
    const { url } = server;
    const admin = { authorization: `Bearer ${await login(url, adminLogin, adminPassword)}`, "x-api-version": "1.0" };
    const adminId = (await getJson(`${url}/api/auth/whoami`, admin)).id;
    const shardStats = await getJson(`${url}/internal/bench/shard?shard=${SHARD}`, auth);
    const calls = {
      "floor: one trivial D1 statement": `${url}/internal/bench/d1-floor?n=1`,
      "floor: one trivial shard call": `${url}/internal/bench/shard?shard=${SHARD}&n=1`,
    };
    for (const [who, user] of [
      ["administrator", adminId],
      ["reader", userId(READER)],
    ]) {
      for (const where of ["D1", "shard"]) {
        calls[`members page of 50, ${who}, ${where}`] = `${url}/internal/bench/members-page?user=${user}&group=${treeGroupId(
          3,
          READER_L3,
        )}&n=1${where === "shard" ? `&shard=${SHARD}` : ""}`;
      }
    }
    // workerd's clock stands still while code runs (it moves on I/O only), and a shard call inside one process is
    // not I/O to it: the Worker's own timings of a shard call read ~0. So each call is one HTTP request, timed here.
    const runs = {};
    for (const [label, callUrl] of Object.entries(calls)) {
      for (let i = 0; i < 20; i++) await getJson(callUrl, auth);
      const times = [];
      let answer;
      for (let i = 0; i < N; i++) {
        const started = performance.now();
        answer = await getJson(callUrl, auth);
        times.push(performance.now() - started);
      }
      if (label.startsWith("members") && answer.items !== 50) throw new Error(`${label}: a page of ${answer.items}`);
      times.sort((a, b) => a - b);
      runs[label] = { p50: percentile(times, 50), p95: percentile(times, 95), trips: answer.roundTrips ?? 1 };
    }

    console.log(`> ${N} requests each, one after another (HTTP to the Worker, which makes the call once)`);
    printTable(
      Object.entries(runs).map(([label, run]) => [
        label,
        `p50 ${ms(run.p50)} / p95 ${ms(run.p95)}`,
        "",
        `${run.trips} round trip${run.trips === 1 ? "" : "s"}`,
      ]),
    );
    // The dry run of moving every library (GET /api/library-shards/plan): one round trip of grouped passes.
    const planTimes = [];
    let plan;
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      plan = await getJson(`${url}/api/library-shards/plan`, admin);
      planTimes.push(performance.now() - started);
    }
    const biggest = plan.libraries.reduce((a, b) => (b.rows > a.rows ? b : a));
    console.log(
      `dry run of the move: ${plan.libraries.length} librar${plan.libraries.length === 1 ? "y" : "ies"}, the largest «${biggest.name}» ` +
        `${biggest.assets} assets, ${biggest.rows} rows, ~${(biggest.bytes_estimate / 1e6).toFixed(1)} MB; answered in ` +
        `${planTimes.map((t) => t.toFixed(0)).join(", ")} ms`,
    );
    const dbBytes = statSync(catalogFile).size;
    console.log(
      `sizes: D1 catalog file ${(dbBytes / 1e6).toFixed(1)} MB; the shard as it reports itself ${(shardStats.bytes / 1e6).toFixed(1)} MB ` +
        `(${shardStats.migrations} migrations)`,
    );
    console.log(
      `load average at start ${loadAtStart}, at end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
