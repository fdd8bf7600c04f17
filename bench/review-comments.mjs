// Comments of one file (issue «work together on media», decision 035; `SKIP_BUILD=1 node bench/review-comments.mjs`
// after `npm run build`): seeds one file with 1,000 comments (threads, anchors, mentions, several authors) owned by a
// reader, starts the product under `wrangler dev` and measures, in the same run, GET /api/auth/whoami (the floor)
// and GET /api/asset/{id}/comments (all 1,000 in one answer). Target: the list's p95 within 2× whoami's p95.
// Both are asked as a browser asks (`Accept-Encoding: gzip, deflate, br`), so the list arrives gzipped; the client
// does not decompress (autocannon), so what a browser spends inflating it is measured apart and printed, and the
// list asked without Accept-Encoding (plain, ~0.5 MB) is shown beside it for comparison (no target).
// Prints a table; exits 0 once it has run (a benchmark is not a test), 1 only when it could not run.
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { gunzipSync } from "node:zlib";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { hexId } from "./lib/library-seed.mjs";
import { buildUnlessSkipped, load, login, ms, printTable, unexpected, verdict, warmUp } from "./lib/measure.mjs";
import { retried } from "./lib/workerd.mjs";

const COMMENTS = 1_000;
const AUTHORS = 10;
const TARGET_RATIO = 2;
const RUN = { connections: 1, durationSeconds: 5 };
const LOADED = { connections: 4, durationSeconds: 5 };

const BASE = 0x35_0000_0000;
const ASSET_ID = hexId(BASE);
const USER_BASE = BASE + 0x10;
const COMMENT_BASE = BASE + 0x1000;
const READER_LOGIN = "comments-reader";
/** What a browser sends (Chromium, Firefox): the list is answered gzipped. */
const BROWSER_ENCODING = "gzip, deflate, br";

function seedSql(now = Date.now()) {
  const id = (expr) => `printf('%032x', ${expr})`;
  const seq = (count) => `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count - 1})`;
  const user = (expr) => id(`${USER_BASE} + ${expr}`);
  return [
    `${seq(AUTHORS)} INSERT INTO users (id, login, name, password_hash, is_admin, is_robot, enabled, chroot_groups, ctime, mtime)
      SELECT ${user("n")}, CASE WHEN n = 0 THEN '${READER_LOGIN}' ELSE 'commenter-' || n END, 'Рецензент ' || n,
        (SELECT password_hash FROM users WHERE lower(login) = 'admin'), 0, 0, 1, '[]', ${now}, ${now} FROM seq`,
    `INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
      VALUES ('${ASSET_ID}', 'ролик.mp4', 'video/mp4', ${user(0)}, ${user(0)}, 1, ${now}, ${now}, ${now})`,
    // Every fifth comment answers the one before it; anchors alternate between a region and a moment; some mention.
    `${seq(COMMENTS)} INSERT INTO comments (id, asset_id, version, author_id, text, anchor, parent_id, resolved, mentions, ctime, mtime)
      SELECT ${id(`${COMMENT_BASE} + n`)}, '${ASSET_ID}', 1, ${user(`n % ${AUTHORS}`)},
        printf('Замечание %d: звук пропадает на %d-й секунде, @commenter-%d посмотри', n, n % 60, 1 + n % ${AUTHORS - 1}),
        CASE n % 2 WHEN 0 THEN json_object('region', json_object('x', 0.1, 'y', 0.2, 'w', 0.3, 'h', 0.4))
                   ELSE json_object('time', json_object('start', n % 60)) END,
        CASE WHEN n % 5 = 4 THEN ${id(`${COMMENT_BASE} + n - 1`)} ELSE NULL END, n % 7 = 0,
        json_array(${user(`1 + n % ${AUTHORS - 1}`)}), ${now} + n, ${now} + n FROM seq`,
  ]
    .map((statement) => `${statement};`)
    .join("\n");
}

async function measure(name, url, headers) {
  await retried(new URL(url).origin, `${name} warm-up`, () =>
    warmUp(5, async () => {
      const response = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${name}: warm-up answered ${response.status}`);
    }),
  );
  console.log(`> ${name}`);
  const single = await load({ url, headers, connections: RUN.connections, duration: RUN.durationSeconds });
  const loaded = await load({ url, headers, connections: LOADED.connections, duration: LOADED.durationSeconds });
  for (const run of [single, loaded]) {
    if (unexpected(run) > 0 || run.errors > 0) console.log(`  note: ${name}: ${JSON.stringify(run.statuses)}, errors ${run.errors}`);
  }
  return { single, loaded };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** What the list weighs on the wire and as JSON, and what inflating it costs a client (the bench's client does not). */
async function wireSizes(url, headers) {
  const { request } = await import("node:http");
  const raw = await new Promise((resolve, reject) => {
    // node:http hands the body over as sent (fetch would inflate it).
    request(url, { headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ body: Buffer.concat(chunks), encoding: res.headers["content-encoding"] ?? null }));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
  const times = [];
  let json = raw.body;
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    json = raw.encoding === "gzip" ? gunzipSync(raw.body) : raw.body;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { sent: raw.body.byteLength, json: json.byteLength, encoding: raw.encoding, inflateMs: raw.encoding === "gzip" ? times[10] : 0 };
}

async function main() {
  buildUnlessSkipped();
  const port = Number(process.env.BENCH_PORT) || (await freePort());
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-comments-"));
  const loadAtStart = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  console.log(`> wrangler dev on 127.0.0.1:${port}; one file with ${COMMENTS} comments by ${AUTHORS} authors`);
  const server = await startDevServer({ port, persistDir, seedSql: seedSql(), migrateTimeoutMs: 600_000 });
  const stop = () => server.stop().finally(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const { url, adminPassword } = server;
    const plain = { authorization: `Bearer ${await login(url, READER_LOGIN, adminPassword)}`, "x-api-version": "1.0" };
    const reader = { ...plain, "accept-encoding": BROWSER_ENCODING };
    const listUrl = `${url}/api/asset/${ASSET_ID}/comments`;
    const list = await (await fetch(listUrl, { headers: reader })).json();
    if (list.total !== COMMENTS || list.items?.length !== COMMENTS) throw new Error(`seed check: ${list.total} comments, ${list.items?.length} listed`);
    console.log(`  ${list.items.length} comments listed in one answer, oldest «${list.items[0].text.slice(0, 30)}…»`);
    const wire = await wireSizes(listUrl, reader);
    console.log(
      `  Accept-Encoding: ${BROWSER_ENCODING} (as a browser): ${wire.encoding ?? "identity"}, ${kb(wire.sent)} on the wire for ${kb(wire.json)} of JSON;` +
        ` inflating it (node zlib, median of 20) ${wire.inflateMs.toFixed(2)} ms`,
    );

    const whoami = await measure("GET /api/auth/whoami (the floor)", `${url}/api/auth/whoami`, reader);
    const comments = await measure(`GET /api/asset/{id}/comments (${COMMENTS})`, listUrl, reader);
    const uncompressed = await measure(`GET /api/asset/{id}/comments (${COMMENTS}, no Accept-Encoding)`, listUrl, plain);
    const ratio1 = comments.single.p95 / whoami.single.p95;
    const ratio4 = comments.loaded.p95 / whoami.loaded.p95;
    printTable([
      ["whoami p50 / p95 (1 connection)", `${ms(whoami.single.p50)} / ${ms(whoami.single.p95)}`, "", ""],
      ["whoami p50 / p95 (4 connections)", `${ms(whoami.loaded.p50)} / ${ms(whoami.loaded.p95)}`, "", ""],
      [`${COMMENTS} comments p50 / p95 (1 connection)`, `${ms(comments.single.p50)} / ${ms(comments.single.p95)}`, "", ""],
      [`${COMMENTS} comments p50 / p95 (4 connections)`, `${ms(comments.loaded.p50)} / ${ms(comments.loaded.p95)}`, "", ""],
      ["comments p95 / whoami p95 (1 connection)", `${ratio1.toFixed(2)}×`, `< ${TARGET_RATIO}×`, verdict(ratio1, TARGET_RATIO)],
      ["comments p95 / whoami p95 (4 connections)", `${ratio4.toFixed(2)}×`, `< ${TARGET_RATIO}×`, verdict(ratio4, TARGET_RATIO)],
      [`${COMMENTS} comments, no Accept-Encoding, p50 / p95 (1 connection)`, `${ms(uncompressed.single.p50)} / ${ms(uncompressed.single.p95)}`, "", ""],
      [`${COMMENTS} comments, no Accept-Encoding, p50 / p95 (4 connections)`, `${ms(uncompressed.loaded.p50)} / ${ms(uncompressed.loaded.p95)}`, "", ""],
      [
        "  the same, p95 / whoami p95 (1 / 4 connections)",
        `${(uncompressed.single.p95 / whoami.single.p95).toFixed(2)}× / ${(uncompressed.loaded.p95 / whoami.loaded.p95).toFixed(2)}×`,
        "",
        "",
      ],
    ]);
    console.log(
      `load average at start ${loadAtStart}, at end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")} (2 cores shared)`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
