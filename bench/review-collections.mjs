// Collections against folders (decision record 034; `SKIP_BUILD=1 node bench/review-collections.mjs` after `npm run
// build`): seeds, at the storage layer, a folder of 10,000 files and a collection holding the same 10,000 files in
// the same order, owned by the administrator and shared with a reader who may read the folder through one rule (so
// every item of his pages passes the per-file rights filter, as in real use). Starts the product under `wrangler
// dev` and measures, in the same run and with the same caller: GET /api/auth/whoami (the floor), the folder's page of
// 50 at skip 9,950 (GET /api/group/members/{id}) and the collection's page of 50 at skip 9,950 (GET
// /api/collections/{id}/items, with its `total` and `hidden`). Target: the collection page's p95 within 1.5× the
// folder page's. Prints a table; exits 0 once it has run (a benchmark is not a test), 1 only when it could not run.
// Only loopback traffic; every loop is bounded; the server is always stopped.
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { hexId, ROOT_GROUP_ID } from "./lib/library-seed.mjs";
import { buildUnlessSkipped, load, login, ms, printTable, unexpected, verdict, warmUp } from "./lib/measure.mjs";
import { retried } from "./lib/workerd.mjs";

const ITEMS = 10_000;
const SKIP = 9_950;
const TAKE = 50;
const TARGET_RATIO = 1.5;
const RUN = { connections: 1, durationSeconds: 5 };
const LOADED = { connections: 4, durationSeconds: 5 };

const FOLDER = hexId(0x39_0000_0000);
const COLLECTION = hexId(0x39_0000_0001);
const ASSET_BASE = 0x39_0100_0000;
const READER_ID = hexId(0x39_0200_0000);
const READER_LOGIN = "collections-reader";
const RULE_ID = hexId(0x39_0300_0000);

function seedSql(now = Date.now()) {
  const admin = "(SELECT id FROM users WHERE lower(login) = 'admin')";
  const id = (expr) => `printf('%032x', ${expr})`;
  const seq = `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${ITEMS - 1})`;
  const name = `printf('кадр-%06d.jpg', n)`;
  return [
    `INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES ('${FOLDER}', 'Съёмка 10k', '${ROOT_GROUP_ID}', ${admin}, ${now}, ${now})`,
    `INSERT INTO group_closure (ancestor, descendant, depth) VALUES ('${FOLDER}', '${FOLDER}', 0), ('${ROOT_GROUP_ID}', '${FOLDER}', 1)`,
    `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES ('${ROOT_GROUP_ID}', '${FOLDER}', 'group', ${now}, 'съёмка 10k', ${now}, 0)`,
    `${seq} INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
      SELECT ${id(`${ASSET_BASE} + n`)}, ${name}, 'image/jpeg', ${admin}, ${admin}, 0, ${now}, ${now}, ${now} FROM seq`,
    `${seq} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      SELECT '${FOLDER}', ${id(`${ASSET_BASE} + n`)}, 'asset', ${now}, ${name}, ${now}, 0 FROM seq`,
    `INSERT OR REPLACE INTO folder_rollups (group_id, assets, bytes, groups) VALUES ('${FOLDER}', ${ITEMS}, 0, 0)`,
    `INSERT INTO users (id, login, name, password_hash, is_admin, is_robot, enabled, chroot_groups, ctime, mtime)
      VALUES ('${READER_ID}', '${READER_LOGIN}', 'Читатель', (SELECT password_hash FROM users WHERE lower(login) = 'admin'), 0, 0, 1, '[]', ${now}, ${now})`,
    `INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime, created_by)
      VALUES ('${RULE_ID}', '${READER_ID}', 'user', '${FOLDER}', 'group', 2, ${now}, ${admin})`,
    `INSERT INTO collections (id, name, description, owner_id, ctime, mtime) VALUES ('${COLLECTION}', 'Подборка 10k', '', ${admin}, ${now}, ${now})`,
    `${seq} INSERT INTO collection_items (collection_id, asset_id, pos, added_by, added_at)
      SELECT '${COLLECTION}', ${id(`${ASSET_BASE} + n`)}, n + 1, ${admin}, ${now} FROM seq`,
    `INSERT INTO collection_members (collection_id, subj_id, subj_type, role, added_by, ctime)
      VALUES ('${COLLECTION}', '${READER_ID}', 'user', 'view', ${admin}, ${now})`,
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
  const port = Number(process.env.BENCH_PORT) || (await freePort());
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-collections-"));
  const loadAtStart = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  console.log(`> wrangler dev on 127.0.0.1:${port}; a folder and a collection of ${ITEMS} files, read by a reader through one folder rule`);
  const server = await startDevServer({ port, persistDir, seedSql: seedSql(), migrateTimeoutMs: 600_000 });
  const stop = () => server.stop().finally(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const { url, adminPassword } = server;
    const reader = { authorization: `Bearer ${await login(url, READER_LOGIN, adminPassword)}`, "x-api-version": "1.0" };
    const owner = { authorization: `Bearer ${await login(url, "admin", adminPassword)}`, "x-api-version": "1.0" };
    const folderUrl = `${url}/api/group/members/${FOLDER}?skip=${SKIP}&take=${TAKE}&type=asset`;
    const collectionUrl = `${url}/api/collections/${COLLECTION}/items?skip=${SKIP}&take=${TAKE}`;
    const folderPage = await getJson(folderUrl, reader);
    const collectionPage = await getJson(collectionUrl, reader);
    if (folderPage.length !== TAKE || collectionPage.items.length !== TAKE || collectionPage.total !== ITEMS || collectionPage.hidden !== 0) {
      throw new Error(
        `seed check: folder page ${folderPage.length}, collection page ${collectionPage.items.length}, total ${collectionPage.total}, hidden ${collectionPage.hidden}`,
      );
    }
    if (collectionPage.items[0].name !== folderPage[0].el_info.name) {
      throw new Error(`seed check: the pages differ (${collectionPage.items[0].name} / ${folderPage[0].el_info.name})`);
    }
    console.log(`  both pages start at ${folderPage[0].el_info.name}; collection total ${collectionPage.total}, hidden ${collectionPage.hidden}`);

    const runs = {
      whoami: await measure("GET /api/auth/whoami (reader)", `${url}/api/auth/whoami`, reader),
      folder: await measure(`folder page at skip ${SKIP} (reader)`, folderUrl, reader),
      collection: await measure(`collection page at skip ${SKIP} (reader)`, collectionUrl, reader),
      ownerFolder: await measure(`folder page at skip ${SKIP} (owner, administrator)`, folderUrl, owner),
      ownerCollection: await measure(`collection page at skip ${SKIP} (owner, administrator)`, collectionUrl, owner),
    };
    const table = [];
    for (const [key, label] of [
      ["whoami", "whoami (floor), reader"],
      ["folder", `folder page skip ${SKIP}, reader`],
      ["collection", `collection page skip ${SKIP}, reader`],
      ["ownerFolder", `folder page skip ${SKIP}, owner`],
      ["ownerCollection", `collection page skip ${SKIP}, owner`],
    ]) {
      const run = runs[key];
      table.push(
        [`${label}, p50 / p95 (1 connection)`, `${ms(run.single.p50)} / ${ms(run.single.p95)}`, "", ""],
        [`${label}, p50 / p95 (4 connections)`, `${ms(run.loaded.p50)} / ${ms(run.loaded.p95)}`, "", ""],
      );
    }
    for (const [who, folder, collection] of [
      ["reader", runs.folder, runs.collection],
      ["owner", runs.ownerFolder, runs.ownerCollection],
    ]) {
      for (const kind of ["single", "loaded"]) {
        const ratio = collection[kind].p95 / folder[kind].p95;
        table.push([`collection / folder p95, ${who} (${kind === "single" ? "1" : "4"} conn.)`, `${ratio.toFixed(2)}×`, `< ${TARGET_RATIO}×`, verdict(ratio, TARGET_RATIO)]);
      }
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
