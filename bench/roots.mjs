// «Доступные Файлы» for a user with thousands of rules (issue 24; `SKIP_BUILD=1 node bench/roots.mjs` after `npm run
// build`): seeds a tree the reader cannot see — one top folder, 40 hidden folders, 2,000 folders below them with 10
// files each — and gives the reader `read` on each of the 2,000 folders and on 500 of the files (all inside readable
// folders, so none of them is a root file) plus 5,000 rules of other users. Starts the product under `wrangler dev`
// and measures, in the same run, GET /api/ping (the floor), GET /api/group/roots (first and last page of 50) and
// GET /api/group/members/{root} (first page) for the reader. Prints a table; exits 0 once it has run.
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { hexId, ROOT_GROUP_ID } from "./lib/library-seed.mjs";
import { buildUnlessSkipped, load, login, ms, printTable, unexpected, warmUp } from "./lib/measure.mjs";
import { retried } from "./lib/workerd.mjs";

const SHARED = 2_000;
const HIDDEN = 40;
const FILES_PER_FOLDER = 10;
const ASSET_RULES = 500;
const OTHER_RULES = 5_000;
const OTHER_USERS = 100;
const RUN = { connections: 1, durationSeconds: 5 };
const LOADED = { connections: 4, durationSeconds: 5 };

const TOP = hexId(0x24_0000_0000);
const HIDDEN_BASE = 0x24_0001_0000;
const SHARED_BASE = 0x24_0002_0000;
const ASSET_BASE = 0x24_0100_0000;
const USER_BASE = 0x24_0200_0000;
const RULE_BASE = 0x24_0300_0000;
const READER_ID = hexId(USER_BASE);
const READER_LOGIN = "roots-reader";

function seedSql(now = Date.now()) {
  const admin = "(SELECT id FROM users WHERE lower(login) = 'admin')";
  const id = (expr) => `printf('%032x', ${expr})`;
  const seq = (count) => `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count - 1})`;
  const hidden = (expr) => id(`${HIDDEN_BASE} + ${expr}`);
  const shared = (expr) => id(`${SHARED_BASE} + ${expr}`);
  const files = SHARED * FILES_PER_FOLDER;
  return [
    `INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES ('${TOP}', 'Проекты', '${ROOT_GROUP_ID}', ${admin}, ${now}, ${now})`,
    `INSERT INTO group_closure (ancestor, descendant, depth) VALUES ('${TOP}', '${TOP}', 0), ('${ROOT_GROUP_ID}', '${TOP}', 1)`,
    `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES ('${ROOT_GROUP_ID}', '${TOP}', 'group', ${now}, 'проекты', ${now}, 0)`,
    `${seq(HIDDEN)} INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) SELECT ${hidden(
      "n",
    )}, 'Скрытая ' || n, '${TOP}', ${admin}, ${now}, ${now} FROM seq`,
    `${seq(HIDDEN)} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) SELECT '${TOP}', ${hidden(
      "n",
    )}, 'group', ${now}, 'скрытая ' || n, ${now}, 0 FROM seq`,
    `${seq(HIDDEN)} INSERT INTO group_closure (ancestor, descendant, depth) SELECT ${hidden("n")}, ${hidden("n")}, 0 FROM seq
      UNION ALL SELECT '${TOP}', ${hidden("n")}, 1 FROM seq UNION ALL SELECT '${ROOT_GROUP_ID}', ${hidden("n")}, 2 FROM seq`,
    `${seq(SHARED)} INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime)
      SELECT ${shared("n")}, printf('Съёмка %04d', n), ${hidden(`n % ${HIDDEN}`)}, ${admin}, ${now}, ${now} FROM seq`,
    `${seq(SHARED)} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      SELECT ${hidden(`n % ${HIDDEN}`)}, ${shared("n")}, 'group', ${now}, printf('съёмка %04d', n), ${now}, 0 FROM seq`,
    `${seq(SHARED)} INSERT INTO group_closure (ancestor, descendant, depth) SELECT ${shared("n")}, ${shared("n")}, 0 FROM seq
      UNION ALL SELECT ${hidden(`n % ${HIDDEN}`)}, ${shared("n")}, 1 FROM seq UNION ALL SELECT '${TOP}', ${shared("n")}, 2 FROM seq
      UNION ALL SELECT '${ROOT_GROUP_ID}', ${shared("n")}, 3 FROM seq`,
    `${seq(files)} INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
      SELECT ${id(`${ASSET_BASE} + n`)}, printf('кадр-%06d.jpg', n), 'image/jpeg', ${admin}, ${admin}, 0, ${now}, ${now}, ${now} FROM seq`,
    `${seq(files)} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      SELECT ${shared(`n % ${SHARED}`)}, ${id(`${ASSET_BASE} + n`)}, 'asset', ${now}, printf('кадр-%06d.jpg', n), ${now}, 0 FROM seq`,
    `${seq(OTHER_USERS + 1)} INSERT INTO users (id, login, name, password_hash, is_admin, is_robot, enabled, chroot_groups, ctime, mtime)
      SELECT ${id(`${USER_BASE} + n`)}, CASE WHEN n = 0 THEN '${READER_LOGIN}' ELSE 'roots-user-' || n END, 'Читатель ' || n,
        (SELECT password_hash FROM users WHERE lower(login) = 'admin'), 0, 0, 1, '[]', ${now}, ${now} FROM seq`,
    `${seq(SHARED)} INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime, created_by)
      SELECT ${id(`${RULE_BASE} + n`)}, '${READER_ID}', 'user', ${shared("n")}, 'group', 2, ${now}, ${admin} FROM seq`,
    `${seq(ASSET_RULES)} INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime, created_by)
      SELECT ${id(`${RULE_BASE} + ${SHARED} + n`)}, '${READER_ID}', 'user', ${id(
      `${ASSET_BASE} + n * 37`,
    )}, 'asset', 258, ${now}, ${admin} FROM seq`,
    `${seq(OTHER_RULES)} INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime, created_by)
      SELECT ${id(`${RULE_BASE} + 10000 + n`)}, ${id(`${USER_BASE} + 1 + (n / 50) % ${OTHER_USERS}`)}, 'user',
        ${shared(`n % ${SHARED}`)}, 'group', 2, ${now}, ${admin} FROM seq`,
    "INSERT OR REPLACE INTO folder_rollups (group_id, assets, bytes, groups) SELECT g.id, (SELECT count(*) FROM group_members m WHERE m.group_id = g.id AND m.el_type = 'asset'), 0, (SELECT count(*) FROM group_members m WHERE m.group_id = g.id AND m.el_type = 'group') FROM groups g WHERE g.id BETWEEN '" +
      TOP +
      `' AND '${hexId(SHARED_BASE + SHARED)}'`,
  ]
    .map((statement) => `${statement};`)
    .join("\n");
}

async function getJson(url, headers) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
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
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-roots-"));
  const loadAtStart = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  console.log(
    `> wrangler dev on 127.0.0.1:${port}; reader with ${SHARED} folder rules and ${ASSET_RULES} file rules, ${OTHER_RULES} other rules`,
  );
  const server = await startDevServer({ port, persistDir, seedSql: seedSql(), migrateTimeoutMs: 600_000 });
  const stop = () => server.stop().finally(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const { url, adminPassword } = server;
    const reader = { authorization: `Bearer ${await login(url, READER_LOGIN, adminPassword)}`, "x-api-version": "1.0" };
    const first = await getJson(`${url}/api/group/roots`, reader);
    const last = await getJson(`${url}/api/group/roots?skip=${SHARED - 50}`, reader);
    const members = await getJson(`${url}/api/group/members/${ROOT_GROUP_ID}`, reader);
    if (first.length !== 50 || last.length !== 50 || members.length !== 50) {
      throw new Error(`seed check: pages of ${first.length}, ${last.length} and ${members.length}`);
    }
    if (first.some((g) => !g.group_name.startsWith("Съёмка"))) throw new Error("seed check: a hidden folder is listed");
    console.log(`  reader's root: ${first[0].group_name} … ${last.at(-1).group_name}; hidden folders never listed`);

    const runs = {
      ping: await measure("GET /api/ping", `${url}/api/ping`, reader),
      roots: await measure("GET /api/group/roots (first page of 50)", `${url}/api/group/roots`, reader),
      rootsLast: await measure("GET /api/group/roots?skip=1950 (last page)", `${url}/api/group/roots?skip=${SHARED - 50}`, reader),
      members: await measure("GET /api/group/members/{root} (first page)", `${url}/api/group/members/${ROOT_GROUP_ID}`, reader),
    };
    const table = [];
    for (const [key, label] of [
      ["ping", "GET /api/ping"],
      ["roots", "roots, first page"],
      ["rootsLast", "roots, last page (skip 1,950)"],
      ["members", "members of the root, first page"],
    ]) {
      const run = runs[key];
      table.push(
        [`${label}, p50 / p95 (1 connection)`, `${ms(run.single.p50)} / ${ms(run.single.p95)}`, "", ""],
        [`${label}, p50 / p95 (4 connections)`, `${ms(run.loaded.p50)} / ${ms(run.loaded.p95)}`, "", ""],
      );
    }
    printTable(table);
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
