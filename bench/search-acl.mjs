// What keeping the search index current costs the writes that move visibility (decisions 039 and 040, migrations
// 0055–0056; `npm run bench -- search-acl`): on a fresh SQLite file with every migration — the engine D1 runs — a
// library of BENCH_ASSETS files (default 100,000) in one top folder with 10 subfolders is seeded with the index built
// in bulk, then, with the triggers live, timed: a subfolder moved to another top folder (a tenth of the files), an
// inheritance switch on the top folder (every file), and files listed one at a time, against the same inserts with
// the visibility triggers dropped. Since decision 040 the write only marks documents; the feed that indexes them
// afterwards, in slices of 200 (one transaction each), is timed beside it. Prints the figures; exits 0 once it ran.
import { DatabaseSync } from "node:sqlite";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./lib/measure.mjs";
import {
  REBUILD_SEARCH_DOCS,
  applyMigrations,
  attachCatalog,
  buildSearchIndex,
  feedSlice,
  searchIndexTriggers,
} from "./lib/search-index.mjs";

const FILES = Math.max(1000, Number(process.env.BENCH_ASSETS ?? "100000") || 100_000);
const SUBS = 10;
const LISTINGS = 2000;
const ROOT_GROUP = "f".repeat(32);
const hex = (n) => n.toString(16).padStart(32, "0");
const TOP = hex(0xa0_0000);
const OTHER_TOP = hex(0xa0_0001);
const sub = (k) => hex(0xa1_0000 + k);

function seed(db, now) {
  const admin = db.prepare("SELECT id FROM users WHERE lower(login) = 'admin'").get()?.id ?? hex(1);
  if (!db.prepare("SELECT 1 FROM users WHERE id = ?").get(admin))
    db.prepare("INSERT INTO users (id, login, name, is_admin, ctime, mtime) VALUES (?, 'admin', 'admin', 1, ?, ?)").run(admin, now, now);
  const group = db.prepare("INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES (?, ?, ?, ?, ?, ?)");
  const closure = db.prepare(
    "INSERT INTO group_closure (ancestor, descendant, depth) SELECT ancestor, ?1, depth + 1 FROM group_closure WHERE descendant = ?2 UNION ALL SELECT ?1, ?1, 0",
  );
  const listing = db.prepare("INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) VALUES (?, ?, ?, ?, ?)");
  const folder = (id, name, parent) => {
    group.run(id, name, parent, admin, now, now);
    closure.run(id, parent);
    listing.run(parent, id, "group", now, name.toLowerCase());
  };
  folder(TOP, "Библиотека", ROOT_GROUP);
  folder(OTHER_TOP, "Другая библиотека", ROOT_GROUP);
  for (let k = 0; k < SUBS; k++) folder(sub(k), `Папка ${k}`, TOP);
  const seq = `WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < ${FILES - 1})`;
  db.exec(`${seq} INSERT INTO assets (id, name, mime, owner_id, creator_id, ctime, mtime, atime)
    SELECT printf('%032x', ${0xb0_0000_0000} + n), 'снимок ' || n || '.jpg', 'image/jpeg', '${admin}', '${admin}', ${now}, ${now}, ${now} FROM s`);
  db.exec(`${seq} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name)
    SELECT printf('%032x', ${0xa1_0000} + n % ${SUBS}), printf('%032x', ${0xb0_0000_0000} + n), 'asset', ${now}, 'снимок ' || n FROM s`);
  return admin;
}

const time = (run) => {
  const started = performance.now();
  run();
  return performance.now() - started;
};

/** Feeds the index every pending document; the time, the documents and the longest slice. */
function feed(db) {
  let documents = 0;
  let longest = 0;
  const ms = time(() => {
    for (;;) {
      const started = performance.now();
      const taken = feedSlice(db);
      longest = Math.max(longest, performance.now() - started);
      if (taken === 0) break;
      documents += taken;
    }
  });
  return { ms, documents, longest };
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), "mam-search-acl-"));
  try {
    // The index's database (SEARCH) with the catalog's attached: unqualified names reach the catalog's tables.
    const catalogFile = join(dir, "catalog.sqlite");
    const catalog = new DatabaseSync(catalogFile);
    applyMigrations(catalog, ROOT, "migrations");
    catalog.close();
    const db = new DatabaseSync(join(dir, "search.sqlite"));
    applyMigrations(db, ROOT, "migrations-search");
    attachCatalog(db, catalogFile);
    const triggers = searchIndexTriggers(ROOT);
    const names = triggers.map((t) => /CREATE TRIGGER (\w+)/.exec(t)[1]);
    console.log(
      `> seeding ${FILES.toLocaleString("en")} files in ${SUBS} folders (load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}, 2 cores shared)`,
    );
    const now = Date.now();
    db.exec("BEGIN");
    for (const name of names) db.exec(`DROP TRIGGER catalog.${name}`);
    const admin = seed(db, now);
    for (const statement of REBUILD_SEARCH_DOCS) db.exec(statement);
    buildSearchIndex(db);
    for (const trigger of triggers) db.exec(trigger.replace(/^CREATE TRIGGER /, "CREATE TRIGGER catalog."));
    db.exec("COMMIT");

    const perSub = FILES / SUBS;
    // The move's statements as `moveGroupStatements` batches them (workers/db/repositories/group.repository.ts).
    const subtree = `(SELECT descendant FROM group_closure WHERE ancestor = '${sub(0)}')`;
    const move = time(() => {
      db.exec("BEGIN");
      db.exec(`DELETE FROM group_closure WHERE descendant IN ${subtree} AND ancestor NOT IN ${subtree}`);
      db.exec(`INSERT INTO group_closure (ancestor, descendant, depth) SELECT p.ancestor, s.descendant, p.depth + s.depth + 1
        FROM group_closure p CROSS JOIN group_closure s WHERE p.descendant = '${OTHER_TOP}' AND s.ancestor = '${sub(0)}'`);
      db.exec(`UPDATE groups SET parent_id = '${OTHER_TOP}' WHERE id = '${sub(0)}'`);
      db.exec(`UPDATE group_members SET group_id = '${OTHER_TOP}' WHERE group_id = '${TOP}' AND el_id = '${sub(0)}'`);
      db.exec("COMMIT");
    });
    const moveFeed = feed(db);
    const cut = time(() =>
      db.exec(`INSERT INTO access_inheritance (entity_id, entity_type, inherit, mtime) VALUES ('${TOP}', 'group', 0, ${now})`),
    );
    const cutFeed = feed(db);
    const uncut = time(() => db.exec(`DELETE FROM access_inheritance WHERE entity_id = '${TOP}'`));
    const uncutFeed = feed(db);

    const addFiles = (from) => {
      const asset = db.prepare(
        "INSERT INTO assets (id, name, mime, owner_id, creator_id, ctime, mtime, atime) VALUES (?, ?, 'image/jpeg', ?, ?, ?, ?, ?)",
      );
      const listing = db.prepare("INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) VALUES (?, ?, 'asset', ?, ?)");
      const write = time(() => {
        db.exec("BEGIN");
        for (let i = 0; i < LISTINGS; i++) {
          const id = hex(0xc0_0000_0000 + from + i);
          asset.run(id, `новый ${from + i}.jpg`, admin, admin, now, now, now);
          listing.run(sub(1), id, now, `новый ${from + i}`);
        }
        db.exec("COMMIT");
      });
      return { write, fed: feed(db) };
    };
    // The rewrites above leave FTS5 segments to merge; merged first, so the listings below pay only their own work.
    db.exec("INSERT INTO search_index (search_index) VALUES ('optimize')");
    const withTokens = addFiles(0);
    for (const name of names.filter((n) => n.startsWith("search_acl_"))) db.exec(`DROP TRIGGER catalog.${name}`);
    const withoutTokens = addFiles(LISTINGS);
    const row = (what, ms, count, fed) =>
      console.log(
        `${what.padEnd(58)} ${ms.toFixed(0).padStart(6)} ms ${((ms * 1000) / count).toFixed(1).padStart(6)} µs` +
          `   ${fed.ms.toFixed(0).padStart(6)} ms ${((fed.ms * 1000) / count).toFixed(1).padStart(6)} µs  ${fed.documents
            .toLocaleString("en")
            .padStart(7)}  ${fed.longest.toFixed(0).padStart(4)} ms`,
      );
    console.log(
      `\n${"".padEnd(58)} ${"the write (marks)".padStart(19)}   ${"the feed afterwards".padStart(19)}  ${"docs".padStart(
        7,
      )}  ${"max slice".padStart(9)}`,
    );
    row(`folder of ${perSub.toLocaleString("en")} files moved to another library`, move, perSub, moveFeed);
    row(`inheritance switched off on a folder of ${FILES.toLocaleString("en")} files`, cut, FILES, cutFeed);
    row(`inheritance switched on again`, uncut, FILES, uncutFeed);
    row(`${LISTINGS} files created and listed, visibility triggers on`, withTokens.write, LISTINGS, withTokens.fed);
    row(`${LISTINGS} files created and listed, visibility triggers off`, withoutTokens.write, LISTINGS, withoutTokens.fed);
    console.log(
      `listing overhead of the visibility column, write and feed: ${(
        ((withTokens.write + withTokens.fed.ms - withoutTokens.write - withoutTokens.fed.ms) * 1000) /
        LISTINGS
      ).toFixed(1)} µs per file`,
    );
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
