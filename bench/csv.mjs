// The metadata CSV benchmark (`npm run bench -- csv`): seeds 50,000 files in one folder, each with a title, a
// description and two keywords of the default metadata set, into a fresh local D1 (at the storage layer: recursive
// CTEs), starts the product under `wrangler dev` on a free loopback port and measures, as the administrator:
//   - GET /api/metadata/csv?group_id=… — the whole streamed export (50,001 lines), checked with papaparse;
//   - POST /api/metadata/csv?dry_run=1 — the same file with every description changed (50,000 changes expected);
//   - GET /api/auth/whoami — the floor (auth + one D1 read), for reading the figures above.
// Target: each of export and dry run under 60 s. Exits 0 once it has run (a benchmark is not a test), 1 when it could not.
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { buildUnlessSkipped, login, ms, percentile, printTable, verdict } from "./lib/measure.mjs";

const TARGET_MS = 60_000;
const FILES = 50_000;
const hexId = (n) => n.toString(16).padStart(32, "0");
const ROOT_GROUP_ID = "f".repeat(32);
const FOLDER_ID = hexId(0xd1_0000_0000);
const ASSET_BASE = 0xd2_0000_0000;
const VALUE_BASE = 0xd3_0000_0000;
/** The seeded default fields (migration 0048): Заголовок, Описание, Ключевые слова. */
const TITLE = "000000000000000000000000000d0f01";
const DESCRIPTION = "000000000000000000000000000d0f02";
const KEYWORDS = "000000000000000000000000000d0f03";

function seedSql(now = Date.now()) {
  const admin = "(SELECT id FROM users WHERE lower(login) = 'admin')";
  const seq = `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${FILES})`;
  const value = (slot, def, data, text) =>
    `${seq} INSERT INTO field_values (id, entity_id, entity_type, def_id, data, value_text, user_id, ctime, mtime)
      SELECT printf('%032x', ${VALUE_BASE} + n * 4 + ${slot}), printf('%032x', ${ASSET_BASE} + n), 'asset', '${def}', ${data}, ${text}, ${admin}, ${now}, ${now} FROM seq`;
  return `${[
    `INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES ('${FOLDER_ID}', 'CSV bench', '${ROOT_GROUP_ID}', ${admin}, ${now}, ${now})`,
    `INSERT INTO group_closure (ancestor, descendant, depth) VALUES ('${FOLDER_ID}', '${FOLDER_ID}', 0), ('${ROOT_GROUP_ID}', '${FOLDER_ID}', 1)`,
    `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES ('${ROOT_GROUP_ID}', '${FOLDER_ID}', 'group', ${now}, 'csv bench', ${now}, 0)`,
    `${seq} INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
      SELECT printf('%032x', ${ASSET_BASE} + n), printf('photo-%06d.jpg', n), 'image/jpeg', ${admin}, ${admin}, 0, ${now}, ${now}, ${now} FROM seq`,
    `${seq} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      SELECT '${FOLDER_ID}', printf('%032x', ${ASSET_BASE} + n), 'asset', ${now}, printf('photo-%06d.jpg', n), ${now}, 0 FROM seq`,
    value(0, TITLE, `json_quote('Кадр ' || n)`, `'кадр ' || n`),
    value(1, DESCRIPTION, `json_quote('Съёмка, день ' || (n % 30) || char(10) || 'вторая строка')`, "NULL"),
    value(2, KEYWORDS, `json_quote('море')`, `'море'`),
    value(3, KEYWORDS, `json_quote('закат')`, `'закат'`),
    "ANALYZE",
  ].join(";\n")};\n`;
}

async function timed(fn) {
  const started = performance.now();
  const result = await fn();
  return { result, ms: performance.now() - started };
}

async function main() {
  buildUnlessSkipped();
  const loadAtStart = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-csv-"));
  console.log(`> wrangler dev on 127.0.0.1:${port} (state in ${persistDir}); seeding ${FILES} files with 4 field values each`);
  const server = await startDevServer({ port, persistDir, seedSql: seedSql(), migrateTimeoutMs: 900_000 });
  const stopOnSignal = () => server.stop().finally(() => process.exit(130));
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    const { url, adminLogin, adminPassword } = server;
    const auth = { authorization: `Bearer ${await login(url, adminLogin, adminPassword)}`, "x-api-version": "1.0" };

    const whoami = [];
    for (let i = 0; i < 30; i++) {
      const t = await timed(async () => (await fetch(`${url}/api/auth/whoami`, { headers: auth })).arrayBuffer());
      if (i >= 5) whoami.push(t.ms);
    }
    whoami.sort((a, b) => a - b);

    console.log("> export");
    const exported = await timed(async () => {
      const res = await fetch(`${url}/api/metadata/csv?group_id=${FOLDER_ID}`, { headers: auth, signal: AbortSignal.timeout(300_000) });
      if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
      return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await res.arrayBuffer());
    });
    const parsed = Papa.parse(exported.result.slice(1), { skipEmptyLines: true });
    if (parsed.errors.length > 0 || parsed.data.length !== FILES + 1) throw new Error(`export: ${parsed.data.length} lines, ${parsed.errors.length} parse errors`);
    const header = parsed.data[0];
    const col = header.indexOf("Описание");
    const edited = parsed.data.map((row, i) => (i === 0 ? row : row.map((cell, j) => (j === col ? `${cell} (правка)` : cell))));
    const body = Papa.unparse(edited);
    console.log(`  ${parsed.data.length - 1} rows, ${(exported.result.length / 1048576).toFixed(1)} MiB of text; import body ${(Buffer.byteLength(body) / 1048576).toFixed(1)} MiB`);

    console.log("> dry-run import");
    const dry = await timed(async () => {
      const res = await fetch(`${url}/api/metadata/csv?dry_run=1`, {
        method: "POST",
        headers: { ...auth, "content-type": "text/csv" },
        body,
        signal: AbortSignal.timeout(300_000),
      });
      const json = await res.json();
      if (res.status !== 200) throw new Error(`dry run answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    });
    const report = dry.result;
    if (report.rows !== FILES || report.changes !== FILES || report.error_rows !== 0)
      throw new Error(`dry run: ${JSON.stringify({ ...report, errors: report.errors.slice(0, 5) })}`);

    console.log(`\nload average at start: ${loadAtStart}; whoami floor p50 ${ms(percentile(whoami, 50))}, p95 ${ms(percentile(whoami, 95))}`);
    printTable([
      ["GET /api/auth/whoami (floor: auth + one D1 read), p50", ms(percentile(whoami, 50)), "-", "-"],
      [`export of ${FILES} files (streamed CSV)`, ms(exported.ms), `< ${TARGET_MS} ms`, verdict(exported.ms, TARGET_MS)],
      [`dry-run import of ${FILES} rows (${report.changes} changes)`, ms(dry.ms), `< ${TARGET_MS} ms`, verdict(dry.ms, TARGET_MS)],
      ["export per file / whoami p50", (exported.ms / FILES / percentile(whoami, 50)).toFixed(4), "-", "-"],
    ]);
  } catch (error) {
    console.error(`--- wrangler dev output (tail) ---\n${server.output().slice(-4000)}`);
    throw error;
  } finally {
    process.removeListener("SIGINT", stopOnSignal);
    process.removeListener("SIGTERM", stopOnSignal);
    await server.stop();
    await rm(persistDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`csv bench could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
