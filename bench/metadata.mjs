// The metadata benchmark (`npm run bench -- metadata`): seeds 100,000 assets with 20 field values each (2,000,000
// rows over 20 templates of four types) into a fresh local D1, starts the product under `wrangler dev` on a free
// loopback port and measures GET /api/fields/for-entity, POST /api/fields/entities-by-field on indexed conditions
// (text equality, number range, date range) and a bulk set of one field on 1,000 assets in one batch. Prints a table
// with PASS/MISS per target; exits 0 once it has run (a benchmark is not a test), 1 only when it could not run.
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { buildUnlessSkipped, load, login, ms, percentile, printTable, unexpected, verdict, warmUp } from "./lib/measure.mjs";
import { retried } from "./lib/workerd.mjs";

const TARGETS = { entitiesByFieldP95Ms: 50, bulkSetMs: 2000 };
const ASSETS = 100_000;
const TEMPLATES = 20;
const BULK = 1000;
const BULK_ROUNDS = 7;
const LOADED = { connections: 10, durationSeconds: 6 };
const SINGLE = { connections: 1, durationSeconds: 3 };

const hexId = (n) => n.toString(16).padStart(32, "0");
const ASSET_BASE = 0xc5_0000_0000;
const TEMPLATE_BASE = 0xc6_0000_0000;
const VALUE_BASE = 0xc7_0000_0000;
const assetId = (n) => hexId(ASSET_BASE + n);
const templateId = (k) => hexId(TEMPLATE_BASE + k);
/** Template k's type: 8 texts, 6 numbers, 4 dates, 2 booleans. */
const typeOf = (k) => (k < 8 ? "text" : k < 14 ? "number" : k < 18 ? "date" : "bool");
const DAY_MS = 86_400_000;
const DATE_BASE_MS = Date.UTC(2020, 0, 1);

/**
 * The seed: assets owned by the administrator, 20 templates, and for every asset one value of every template.
 * Text k of asset n is `знач-<n mod 1000>` (100 assets share each value), number k is (n × (k + 1)) mod 10,000, date
 * k is 2020-01-01 plus n mod 3,650 days, boolean k is n mod 2. Rows come from recursive CTEs inside SQLite.
 */
function seedSql(now = Date.now()) {
  const admin = "(SELECT id FROM users WHERE lower(login) = 'admin')";
  const seq = `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${ASSETS})`;
  const statements = [
    `${seq} INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
      SELECT printf('%032x', ${ASSET_BASE} + n), printf('meta-%06d.mp4', n), 'video/mp4', ${admin}, ${admin}, 0, ${now}, ${now}, ${now} FROM seq`,
  ];
  for (let k = 0; k < TEMPLATES; k++) {
    statements.push(
      `INSERT INTO field_templates (id, name, field_type, setup, priority, ctime, mtime)
        VALUES ('${templateId(k)}', 'Bench ${typeOf(k)} ${k}', '${typeOf(k)}', '{}', ${k}, ${now}, ${now})`,
    );
    const type = typeOf(k);
    const [data, text, num] =
      type === "text"
        ? [`json_quote('знач-' || (n % 1000))`, `'знач-' || (n % 1000)`, "NULL"]
        : type === "number"
        ? [`json((n * ${k + 1}) % 10000)`, "NULL", `(n * ${k + 1}) % 10000`]
        : type === "date"
        ? [
            `json_quote(strftime('%Y-%m-%d', ${DATE_BASE_MS / 1000} + (n % 3650) * 86400, 'unixepoch'))`,
            `strftime('%Y-%m-%d', ${DATE_BASE_MS / 1000} + (n % 3650) * 86400, 'unixepoch')`,
            `${DATE_BASE_MS} + (n % 3650) * ${DAY_MS}`,
          ]
        : [`CASE n % 2 WHEN 1 THEN 'true' ELSE 'false' END`, "NULL", "n % 2"];
    statements.push(
      `${seq} INSERT INTO field_values (id, entity_id, entity_type, def_id, data, value_text, value_num, user_id, ctime, mtime)
        SELECT printf('%032x', ${VALUE_BASE} + n * ${TEMPLATES} + ${k}), printf('%032x', ${ASSET_BASE} + n), 'asset', '${templateId(k)}',
          ${data}, ${text}, ${num}, ${admin}, ${now}, ${now} FROM seq`,
    );
  }
  statements.push("ANALYZE");
  return `${statements.join(";\n")};\n`;
}

async function postJson(url, headers, body) {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const json = await response.json();
  const took = performance.now() - started;
  if (response.status !== 200) throw new Error(`POST ${url} answered ${response.status}: ${JSON.stringify(json)}`);
  return { json, ms: took };
}

/** Checks through the API that the data set is what the figures claim to measure. */
async function verifySeed(url, auth) {
  const values = await (await fetch(`${url}/api/fields/for-entity/${assetId(54_321)}`, { headers: auth })).json();
  if (!Array.isArray(values) || values.length !== TEMPLATES)
    throw new Error(`seed check: for-entity answered ${JSON.stringify(values).slice(0, 300)}`);
  const text = await postJson(`${url}/api/fields/entities-by-field`, auth, {
    def_id: templateId(3),
    condition: { op: "eq", value: "знач-321" },
    take: 500,
  });
  if (text.json.length !== ASSETS / 1000)
    throw new Error(`seed check: text equality matched ${text.json.length}, expected ${ASSETS / 1000}`);
  console.log(`  for-entity: ${values.length} values; text equality matches ${text.json.length} assets`);
}

async function measure(name, options) {
  const { url, method = "GET", headers = {}, body } = options;
  await retried(new URL(url).origin, `${name} warm-up`, () =>
    warmUp(5, async () => {
      const response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(30_000) });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${name}: warm-up answered ${response.status}`);
    }),
  );
  console.log(`> ${name}`);
  const single = await load({ url, method, headers, body, connections: SINGLE.connections, duration: SINGLE.durationSeconds });
  const loaded = await load({ url, method, headers, body, connections: LOADED.connections, duration: LOADED.durationSeconds });
  for (const run of [single, loaded]) {
    if (unexpected(run) > 0 || run.errors > 0 || run.timeouts > 0) {
      console.log(`  note: ${name}: answers ${JSON.stringify(run.statuses)}, errors ${run.errors}, timeouts ${run.timeouts}`);
    }
  }
  return { name, single, loaded, body };
}

/** Bulk sets on 1,000 assets, alternating two values so every round really replaces; each is one D1 batch. */
async function bulkRounds(url, auth) {
  const ids = Array.from({ length: BULK }, (_, i) => assetId(20_000 + i * 37));
  const times = [];
  for (let round = 0; round < BULK_ROUNDS; round++) {
    const { json, ms: took } = await postJson(`${url}/api/fields/bulk-set`, auth, {
      def_id: templateId(0),
      entity_ids: ids,
      data: `пакет-${round % 2}`,
    });
    if (json.changed !== BULK) throw new Error(`bulk set changed ${json.changed} rows, expected ${BULK}`);
    times.push(took);
  }
  const check = await postJson(`${url}/api/fields/entities-by-field`, auth, {
    def_id: templateId(0),
    condition: { op: "eq", value: `пакет-${(BULK_ROUNDS - 1) % 2}` },
    take: 500,
  });
  if (check.json.length !== 500) throw new Error(`after the bulk set, entities-by-field found ${check.json.length} of the first 500`);
  return times.sort((a, b) => a - b);
}

/**
 * The time D1 itself spends on an entities-by-field query (the API's `Server-Timing: sql;dur=…`), over sequential
 * requests: what the indexes do, apart from sign-in checks, the Worker and the loopback.
 */
async function sqlTimes(url, headers, body, count = 200) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${url}/api/fields/entities-by-field`, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(30_000),
    });
    await response.arrayBuffer();
    const dur = /sql;dur=([\d.]+)/.exec(response.headers.get("server-timing") ?? "")?.[1];
    if (response.status !== 200 || dur === undefined)
      throw new Error(`entities-by-field answered ${response.status} without Server-Timing`);
    times.push(Number(dur));
  }
  return times.sort((a, b) => a - b);
}

const pair = (run) => `${ms(run.p50)} / ${ms(run.p95)}, ${run.requestsPerSecond.toFixed(0)} req/s`;

async function main() {
  buildUnlessSkipped();
  const loadAtStart = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-metadata-"));
  const sql = seedSql();
  console.log(`> wrangler dev on 127.0.0.1:${port} (state in ${persistDir}); seeding ${ASSETS} assets × ${TEMPLATES} field values`);
  const startedAt = performance.now();
  const server = await startDevServer({ port, persistDir, seedSql: sql, migrateTimeoutMs: 900_000 });
  console.log(`  migrations, seed and two starts: ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
  const stopOnSignal = () => server.stop().finally(() => process.exit(130));
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    const { url, adminLogin, adminPassword } = server;
    const auth = { authorization: `Bearer ${await login(url, adminLogin, adminPassword)}`, "x-api-version": "1.0" };
    const json = { ...auth, "content-type": "application/json" };
    await retried(url, "seed check", () => verifySeed(url, auth));

    const byField = (condition, def) => JSON.stringify({ def_id: templateId(def), condition, take: 100 });
    const runs = [
      await measure("GET /api/auth/whoami (floor: auth + one D1 read)", { url: `${url}/api/auth/whoami`, headers: auth }),
      await measure("GET /api/fields/for-entity (20 values)", { url: `${url}/api/fields/for-entity/${assetId(77_777)}`, headers: auth }),
      await measure("entities-by-field: text equality (100 matches)", {
        url: `${url}/api/fields/entities-by-field`,
        method: "POST",
        headers: json,
        body: byField({ op: "eq", value: "знач-777" }, 5),
      }),
      await measure("entities-by-field: number range (first 100)", {
        url: `${url}/api/fields/entities-by-field`,
        method: "POST",
        headers: json,
        body: byField({ op: "range", min: 4000, max: 4099 }, 10),
      }),
      await measure("entities-by-field: date range, one month (first 100)", {
        url: `${url}/api/fields/entities-by-field`,
        method: "POST",
        headers: json,
        body: byField({ op: "range", min: "2023-03-01", max: "2023-03-31" }, 15),
      }),
    ];
    const sqlRuns = [];
    for (const r of runs.filter((r) => r.name.startsWith("entities-by-field"))) {
      console.log(`> ${r.name}: SQL time reported by D1, 200 sequential requests`);
      sqlRuns.push({ name: r.name, times: await sqlTimes(url, json, r.body) });
    }
    console.log(`> bulk set of one field on ${BULK} assets, ${BULK_ROUNDS} rounds`);
    const bulk = await bulkRounds(url, json);

    console.log(`\nload average at start: ${loadAtStart}; single connection, then ${LOADED.connections} connections (p50 / p95)`);
    printTable([
      ...runs.map((r) => {
        const isByField = r.name.startsWith("entities-by-field");
        return [
          r.name,
          `${pair(r.single)}; loaded ${pair(r.loaded)}`,
          isByField ? `p95 < ${TARGETS.entitiesByFieldP95Ms} ms` : "-",
          isByField ? verdict(r.single.p95, TARGETS.entitiesByFieldP95Ms) : "-",
        ];
      }),
      ...sqlRuns.map((r) => [
        `${r.name}: SQL in D1`,
        `${ms(percentile(r.times, 50))} / ${ms(percentile(r.times, 95))}`,
        `p95 < ${TARGETS.entitiesByFieldP95Ms} ms`,
        verdict(percentile(r.times, 95), TARGETS.entitiesByFieldP95Ms),
      ]),
      [
        `bulk set on ${BULK} assets (median / worst of ${BULK_ROUNDS})`,
        `${ms(percentile(bulk, 50))} / ${ms(bulk.at(-1))}`,
        `< ${TARGETS.bulkSetMs} ms`,
        verdict(bulk.at(-1), TARGETS.bulkSetMs),
      ],
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
    console.error(`metadata bench could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
