// Ranking in shards (decision 042; `npm run bench -- search-shards`): on the search index of a `npm run bench --
// search` state (BENCH_STATE; 1,000,000 files by default there), the statement a cold search sends the index — the
// ranked window of 200 with the first page's highlights and a total's first chunk of 2,002 (decision 041) — is timed
// on the one SEARCH file and on each of BENCH_SHARDS (default 4) shard files made from it (document d in shard
// d mod n, kept under BENCH_STATE for the next run), with node:sqlite — the engine D1 runs — page cache warm.
// Deployed, the shards are separate databases answering at once, so a search waits for the slowest shard plus the
// merge; locally `wrangler dev` runs every database on one thread, so the sum is printed too. The words are the
// search bench's cold words, parsed by the product's own parser. Prints the figures; exits 0 once it ran.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ROOT } from "./lib/measure.mjs";
import { applyMigrations } from "./lib/search-index.mjs";
import { FRESH_WORDS } from "./lib/search-words.mjs";
import { d1FileOf, databaseIdOf } from "./lib/d1-files.mjs";

const STATE = process.env.BENCH_STATE;
const SHARDS = Math.max(2, Number(process.env.BENCH_SHARDS ?? "4") || 4);
const COLD = 24;
/** An administrator's first window, page and count chunk (search.service: MIN_CANDIDATES, take 50 + 1, countChunk(TOTAL_CAP + 1)). */
const WINDOW = 200;
const PAGE = 51;
const SCAN = 2002;

if (!STATE || !existsSync(join(STATE, "v3"))) {
  console.log(
    "search-shards: skipped — BENCH_STATE must name the state of a search bench (BENCH_STATE=<dir> npm run bench -- search, once).",
  );
  process.exit(0);
}

const single = d1FileOf(STATE, databaseIdOf("SEARCH"));

/** The shard files of `n`, made once from the single index (documents by id mod n) and kept beside the state. */
function shardFiles(n) {
  const dir = join(STATE, `search-shards-${n}`);
  const files = Array.from({ length: n }, (_, i) => join(dir, `shard-${i}.sqlite`));
  if (files.every((f) => existsSync(f))) return files;
  mkdirSync(dir, { recursive: true });
  for (const [i, file] of files.entries()) {
    const started = performance.now();
    const partial = `${file}.partial`;
    rmSync(partial, { force: true });
    const db = new DatabaseSync(partial);
    applyMigrations(db, ROOT, "migrations-search");
    db.exec(`ATTACH DATABASE '${single.replaceAll("'", "''")}' AS whole`);
    db.exec(`INSERT INTO search_index (rowid, name, meta, content, acl)
      SELECT rowid, name, meta, content, acl FROM whole.search_index WHERE rowid % ${n} = ${i}`);
    db.exec(`INSERT INTO search_doc_seq (doc_id, seq) SELECT doc_id, seq FROM whole.search_doc_seq WHERE doc_id % ${n} = ${i}`);
    db.exec("INSERT INTO search_index (search_index) VALUES ('optimize')");
    db.exec("DETACH DATABASE whole");
    db.close();
    renameSync(partial, file);
    console.log(`shard ${i + 1} of ${n} written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  return files;
}

/** The cold statement of workers/db/repositories/search-index.repository.ts (`windowOfShard`), admin's sizes. */
const WINDOW_SQL = (marked) => `
  with r as materialized (select rowid as doc_id, bm25(search_index, 10.0, 4.0, 1.0, 0.0) as rank from search_index
    where search_index match ?1 order by rank, rowid limit ${WINDOW}),
  h as materialized (select rowid as doc_id, highlight(search_index, 0, '[', ']') as name_hl,
      snippet(search_index, 1, '[', ']', '…', 12) as meta_snip, snippet(search_index, 2, '[', ']', '…', 24) as content_snip
    from search_index where search_index match ?1
    and rowid in (select doc_id from r order by rank, doc_id limit ${marked.take} offset ${marked.skip})),
  m as materialized (select rowid as doc_id from search_index where search_index match ?1 order by rowid limit ${SCAN})
  select (select count(*) from r) as ranked, (select count(*) from h) as marked, (select count(*) from m) as scanned`;

function matchesOf(texts) {
  const run = spawnSync(join(ROOT, "node_modules", ".bin", "tsx"), [join(ROOT, "bench", "lib", "parse-queries.mts"), ...texts], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`parse-queries failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};
const ms = (v) => v.toFixed(1).padStart(7);

function timed(db, sql, match) {
  const started = performance.now();
  db.prepare(sql).get(match);
  return performance.now() - started;
}

const files = shardFiles(SHARDS);
const one = new DatabaseSync(single, { readOnly: true });
const shards = files.map((f) => new DatabaseSync(f, { readOnly: true }));
const kinds = [
  ["one word", FRESH_WORDS.slice(0, COLD)],
  ["two words", FRESH_WORDS.slice(COLD, 2 * COLD).map((w, i) => `${w} ${FRESH_WORDS[3 * COLD + i]}`)],
];
console.log(`search-shards: ${SHARDS} shards of ${single} (load average ${loadavg()[0].toFixed(1)} at start)`);
const documents = (db) => db.prepare("select count(*) as n from search_index").get().n.toLocaleString("en");
console.log(`documents: ${documents(one)}; per shard: ${shards.map(documents).join(", ")}`);
for (const [kind, texts] of kinds) {
  const matches = matchesOf(texts);
  const statement = WINDOW_SQL({ skip: 0, take: PAGE });
  // each shard highlights where the first page's rows are likely to lie in it (search-index.repository `shardPositions`)
  const shardStatement = WINDOW_SQL({ skip: 0, take: Math.min(PAGE, Math.ceil(PAGE / SHARDS) + Math.ceil(Math.sqrt(PAGE)) + 2) });
  // one pass to warm the page cache, then the measured one
  for (const match of matches) {
    timed(one, statement, match);
    for (const s of shards) timed(s, shardStatement, match);
  }
  const rows = matches.map((match) => {
    const whole = timed(one, statement, match);
    const parts = shards.map((s) => timed(s, shardStatement, match));
    return { whole, slowest: Math.max(...parts), sum: parts.reduce((a, b) => a + b, 0) };
  });
  const at = (key, q) =>
    ms(
      quantile(
        rows.map((r) => r[key]),
        q,
      ),
    );
  const col = (key) => `${at(key, 0.5)} /${at(key, 0.95)}`;
  console.log(`\n${kind} (${texts.length} words), p50 / p95 ms of database time:`);
  console.log(`  one index                          ${col("whole")}`);
  console.log(`  ${SHARDS} shards, slowest (deployed: at once) ${col("slowest")}`);
  console.log(`  ${SHARDS} shards, sum (local: one thread)     ${col("sum")}`);
}
