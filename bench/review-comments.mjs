// Comments of one file (issue «work together on media», decision 035; `SKIP_BUILD=1 node bench/review-comments.mjs`
// after `npm run build`): seeds one file with 1,000 comments (threads, anchors, mentions, several authors) owned by a
// reader, starts the product under `wrangler dev` and measures, in the same run, GET /api/auth/whoami (the floor)
// and GET /api/asset/{id}/comments (all 1,000 in one answer). Target: the list's p95 within 2× whoami's p95.
// Prints a table; exits 0 once it has run (a benchmark is not a test), 1 only when it could not run.
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
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
    const reader = { authorization: `Bearer ${await login(url, READER_LOGIN, adminPassword)}`, "x-api-version": "1.0" };
    const list = await (await fetch(`${url}/api/asset/${ASSET_ID}/comments`, { headers: reader })).json();
    if (list.total !== COMMENTS || list.items?.length !== COMMENTS) throw new Error(`seed check: ${list.total} comments, ${list.items?.length} listed`);
    console.log(`  ${list.items.length} comments listed in one answer, oldest «${list.items[0].text.slice(0, 30)}…»`);

    const whoami = await measure("GET /api/auth/whoami (the floor)", `${url}/api/auth/whoami`, reader);
    const comments = await measure(`GET /api/asset/{id}/comments (${COMMENTS})`, `${url}/api/asset/${ASSET_ID}/comments`, reader);
    const ratio1 = comments.single.p95 / whoami.single.p95;
    const ratio4 = comments.loaded.p95 / whoami.loaded.p95;
    printTable([
      ["whoami p50 / p95 (1 connection)", `${ms(whoami.single.p50)} / ${ms(whoami.single.p95)}`, "", ""],
      ["whoami p50 / p95 (4 connections)", `${ms(whoami.loaded.p50)} / ${ms(whoami.loaded.p95)}`, "", ""],
      [`${COMMENTS} comments p50 / p95 (1 connection)`, `${ms(comments.single.p50)} / ${ms(comments.single.p95)}`, "", ""],
      [`${COMMENTS} comments p50 / p95 (4 connections)`, `${ms(comments.loaded.p50)} / ${ms(comments.loaded.p95)}`, "", ""],
      ["comments p95 / whoami p95 (1 connection)", `${ratio1.toFixed(2)}×`, `< ${TARGET_RATIO}×`, verdict(ratio1, TARGET_RATIO)],
      ["comments p95 / whoami p95 (4 connections)", `${ratio4.toFixed(2)}×`, `< ${TARGET_RATIO}×`, verdict(ratio4, TARGET_RATIO)],
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
