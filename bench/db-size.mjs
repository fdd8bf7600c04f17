// The database-size benchmark (issue 27 item 7; `npm run bench -- db-size`): how many bytes each table (with its
// indexes) costs per asset, so the point where one D1 database (10 GB on Workers Paid) fills is a number
// (docs/scale.md). It applies every migration to a fresh SQLite file (the engine D1 runs, and the file local D1
// keeps under .wrangler/state), seeds BENCH_ASSETS assets (default 1,000,000; 100,000 is a quick run) with the rows
// a real upload and a year of use leave behind — see PROFILE — and reads the bytes of every table and index from
// SQLite's `dbstat` virtual table. The search index, in its own database since decision 040, is built in bulk into a
// second file from the views its feed reads (as bench/search.mjs does) and measured beside; every other trigger (folder rollups, per-asset totals, the cache revision) runs as in the
// product. No Worker is started: the figure is storage, not speed. Prints a table; exits 1 only when it cannot run.
import { DatabaseSync } from "node:sqlite";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./lib/measure.mjs";
import { REBUILD_SEARCH_DOCS, applyMigrations, attachCatalog, buildSearchIndex } from "./lib/search-index.mjs";

const ASSETS = Math.max(1000, Number(process.env.BENCH_ASSETS ?? "1000000") || 1_000_000);
/** Assets per folder: 1,000 folders for a million assets, under one top folder. */
const PER_FOLDER = 1000;
const D1_MAX_BYTES = 10 * 1000 ** 3;

/**
 * Rows per asset the seed writes, beside the tables the triggers fill (search_docs and the FTS tables, asset_totals,
 * folder_rollups). The assumptions behind each are in docs/scale.md.
 */
const PROFILE = {
  assets: 1,
  asset_versions: 1,
  variants: 2, // the upload and one proxy
  previews: 2, // thumb and medium
  group_members: 1,
  entity_tags: 2,
  field_values: 5,
  search_content: 0.1, // a tenth are documents with ~2 KB of extracted text
  audit_log: 3, // created, uploaded, one shared-link open or download
  global_events: 3, // asset.created, asset.uploaded, variant.ready
  tasks: 2, // tech fields, preview
};

const hex = (expr) => `printf('%032x', ${expr})`;
const seq = (n) => `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${n})`;

function seedStatements(now) {
  const A = 0xa5_0000_0000;
  const V = 0xa6_0000_0000;
  const W = 0xa7_0000_0000;
  const P = 0xa9_0000_0000;
  const G = 0xb2_0000_0000;
  const T = 0xc1_0000_0000;
  const F = 0xc2_0000_0000;
  const folders = Math.ceil(ASSETS / PER_FOLDER);
  const admin = "'" + "a".repeat(32) + "'";
  const top = `'${G.toString(16).padStart(32, "0")}'`;
  const folderOf = (n) => hex(`${G} + 1 + ((${n} - 1) / ${PER_FOLDER})`);
  const s = [];
  s.push(`INSERT INTO users (id, login, name, password_hash, is_admin, is_robot, enabled, ctime, mtime)
    VALUES (${admin}, 'admin', 'Администратор', 'pbkdf2$sha256$600000$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNo', 1, 0, 1, ${now}, ${now})`);
  s.push(
    `INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES (${top}, 'Архив', '${"f".repeat(
      32,
    )}', ${admin}, ${now}, ${now})`,
  );
  s.push(`${seq(folders)} INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime)
    SELECT ${hex(`${G} + n`)}, printf('Съёмка %04d', n), ${top}, ${admin}, ${now}, ${now} FROM s`);
  const tree = `id >= ${top} AND id <= '${(G + folders).toString(16).padStart(32, "0")}'`;
  s.push(`INSERT INTO group_closure (ancestor, descendant, depth) SELECT id, id, 0 FROM groups WHERE ${tree}`);
  s.push(`INSERT INTO group_closure (ancestor, descendant, depth) SELECT parent_id, id, 1 FROM groups WHERE ${tree}`);
  s.push(
    `INSERT INTO group_closure (ancestor, descendant, depth) SELECT '${"f".repeat(
      32,
    )}', id, 2 FROM groups WHERE ${tree} AND parent_id <> '${"f".repeat(32)}'`,
  );
  s.push(
    `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) SELECT parent_id, id, 'group', ${now}, lower(name) FROM groups WHERE ${tree}`,
  );
  s.push(`${seq(20)} INSERT INTO tags (id, name, ctime) SELECT ${hex(`${T} + n`)}, printf('тег %02d', n), ${now} FROM s`);
  s.push(`${seq(5)} INSERT INTO field_templates (id, name, field_type, setup, priority, ctime, mtime)
    SELECT ${hex(`${F} + n`)}, printf('Поле %d', n), 'text', '{}', n, ${now}, ${now} FROM s`);
  s.push(`${seq(ASSETS)} INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
    SELECT ${hex(
      `${A} + n`,
    )}, printf('IMG_%07d съёмка на объекте.jpg', n), 'image/jpeg', ${admin}, ${admin}, 1, ${now} - n * 1000, ${now}, ${now} FROM s`);
  s.push(`${seq(ASSETS)} INSERT INTO asset_versions (id, asset_id, version, user_id, ctime)
    SELECT ${hex(`${V} + n`)}, ${hex(`${A} + n`)}, 1, ${admin}, ${now} FROM s`);
  const techFields = `'{"width":6000,"height":4000,"camera":"Canon EOS R5","lens":"RF24-70mm F2.8 L IS USM","iso":400,"exposure":"1/250","aperture":2.8,"focal":35,"taken":"2026-06-01T10:00:00Z","gps":[55.75,37.61]}'`;
  s.push(`${seq(
    ASSETS,
  )} INSERT INTO variants (id, asset_id, version_id, variant_type, status, name, mime_type, format, file_name, content_size, sha256, storage_id, storage_key, tech_fields, user_id, ctime)
    SELECT ${hex(`${W} + n * 2`)}, ${hex(`${A} + n`)}, ${hex(
    `${V} + n`,
  )}, 'initial', 'ready', printf('IMG_%07d.jpg', n), 'image/jpeg', 'jpg',
      printf('IMG_%07d.jpg', n), 8000000 + n, lower(hex(randomblob(32))), '${"0".repeat(
        32,
      )}', printf('a/%032x/1/%032x', ${A} + n, ${W} + n * 2), ${techFields}, ${admin}, ${now} FROM s`);
  s.push(`${seq(
    ASSETS,
  )} INSERT INTO variants (id, asset_id, version_id, variant_type, status, name, mime_type, format, file_name, content_size, storage_id, storage_key, user_id, ctime)
    SELECT ${hex(`${W} + n * 2 + 1`)}, ${hex(`${A} + n`)}, ${hex(
    `${V} + n`,
  )}, 'proxy_lowres', 'ready', printf('IMG_%07d.webp', n), 'image/webp', 'webp',
      printf('IMG_%07d.webp', n), 400000 + n, '${"0".repeat(
        32,
      )}', printf('a/%032x/1/%032x', ${A} + n, ${W} + n * 2 + 1), ${admin}, ${now} FROM s`);
  for (const [i, size] of [
    [0, "thumb"],
    [1, "medium"],
  ]) {
    s.push(`${seq(ASSETS)} INSERT INTO previews (id, asset_id, version_id, size, mime_type, width, height, content_size, storage_key, ctime)
      SELECT ${hex(`${P} + n * 2 + ${i}`)}, ${hex(`${A} + n`)}, ${hex(
      `${V} + n`,
    )}, '${size}', 'image/webp', 320, 213, 12000, printf('p/%032x/${size}', ${A} + n), ${now} FROM s`);
  }
  s.push(`${seq(ASSETS)} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
    SELECT ${folderOf("n")}, ${hex(`${A} + n`)}, 'asset', ${now}, printf('img_%07d съёмка на объекте.jpg', n), ${now}, 8000000 + n FROM s`);
  for (const k of [0, 1]) {
    s.push(
      `${seq(ASSETS)} INSERT INTO entity_tags (tag_id, entity_id, entity_type) SELECT ${hex(`${T} + 1 + ((n + ${k * 7}) % 20)`)}, ${hex(
        `${A} + n`,
      )}, 'asset' FROM s`,
    );
  }
  for (let f = 1; f <= 5; f++) {
    s.push(`${seq(ASSETS)} INSERT INTO field_values (id, entity_id, entity_type, def_id, data, value_text, ctime, mtime)
      SELECT lower(hex(randomblob(16))), ${hex(`${A} + n`)}, 'asset', ${hex(
      `${F} + ${f}`,
    )}, json_quote(printf('значение %d поля ${f}', n % 997)), printf('значение %d поля ${f}', n % 997), ${now}, ${now} FROM s`);
  }
  const docs = Math.round(ASSETS * PROFILE.search_content);
  s.push(`${seq(docs)} INSERT INTO search_content (asset_id, version, text, mtime)
    SELECT ${hex(`${A} + n * 10`)}, 1, substr(replace(hex(randomblob(1000)), 'A', ' '), 1, 2000), ${now} FROM s`);
  const audits = [
    ["asset.create", `'{"name":"IMG.jpg","group":"' || ${folderOf("n")} || '"}'`],
    ["asset.upload", `'{"version":1,"variant":"' || ${hex(`${W} + n * 2`)} || '","size":8000000}'`],
    ["shortlink.open", `'{"shortlink":"Qm9vTGlua0lkMTIzNDU2Nz","page":0}'`],
  ];
  for (const [action, details] of audits) {
    s.push(`${seq(ASSETS)} INSERT INTO audit_log (id, ctime, actor_id, action, object_type, object_id, details, ip)
      SELECT lower(hex(randomblob(16))), ${now}, ${admin}, '${action}', 'asset', ${hex(
      `${A} + n`,
    )}, ${details}, '203.0.113.' || (n % 250) FROM s`);
  }
  for (const type of ["asset.created", "asset.uploaded", "variant.ready"]) {
    s.push(`${seq(ASSETS)} INSERT INTO global_events (event_id, ctime, type, entity_type, entity_id, owner_id, actor_id, data, delivered_at)
      SELECT lower(hex(randomblob(16))), ${now}, '${type}', 'asset', ${hex(`${A} + n`)}, ${admin}, ${admin},
        '{"asset_id":"' || ${hex(`${A} + n`)} || '","version":1,"mime":"image/jpeg","size":8000000}', ${now} FROM s`);
  }
  for (const [k, op] of [
    [0, "tech-fields"],
    [1, "preview"],
  ]) {
    s.push(`${seq(
      ASSETS,
    )} INSERT INTO tasks (id, job_num, template, operation_class, name, owner_id, affected, src_entity, options, status, priority, attempts, progress, result, ctime, mtime, schedule_time, start_time, stop_time)
      SELECT lower(hex(randomblob(16))), n * 2 + ${k}, '${op}', 'media', '${op}', ${admin}, '["' || ${hex(`${A} + n`)} || '"]', ${hex(
      `${A} + n`,
    )}, '{}', 'done', 0, 1, 1,
        '{"ok":true}', ${now}, ${now}, ${now}, ${now}, ${now} FROM s`);
  }
  // The search documents in bulk (the index itself goes to its own database, decision 040).
  s.push(...REBUILD_SEARCH_DOCS);
  return s;
}

/** What a table's bytes are attributed to: an index or a shadow table counts toward the table it serves. */
function ownerOf(name, tableOfIndex) {
  if (tableOfIndex.has(name)) return tableOfIndex.get(name);
  if (name.startsWith("search_index")) return "search_index (FTS5, all shadow tables)";
  if (name.startsWith("sqlite_autoindex_")) return name.replace(/^sqlite_autoindex_(.*)_\d+$/, "$1");
  return name;
}

const mb = (bytes) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

async function main() {
  const dir = await mkdtemp(join(tmpdir(), "mam-db-size-"));
  const file = join(dir, "d1.sqlite");
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  try {
    const db = new DatabaseSync(file);
    const migrations = (await readdir(join(ROOT, "migrations"))).filter((f) => f.endsWith(".sql")).sort();
    for (const name of migrations)
      db.exec((await readFile(join(ROOT, "migrations", name), "utf8")).replaceAll("--> statement-breakpoint", ""));
    for (const { name } of db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search\\_%' ESCAPE '\\'")
      .all()) {
      db.exec(`DROP TRIGGER ${name}`);
    }
    console.log(
      `> ${migrations.length} migrations applied; seeding ${ASSETS.toLocaleString("en")} assets (load average ${load}, 2 cores shared)`,
    );
    const started = performance.now();
    db.exec("BEGIN");
    for (const statement of seedStatements(Date.now())) {
      const t = performance.now();
      db.exec(statement);
      const head = statement
        .replace(/\s+/g, " ")
        .replace(/^WITH RECURSIVE .*? FROM s WHERE n < \d+\) /, "")
        .slice(0, 60);
      if (performance.now() - t > 2000) console.log(`  ${((performance.now() - t) / 1000).toFixed(1)} s  ${head}`);
    }
    db.exec("COMMIT");
    db.exec("VACUUM");
    const searchFile = join(dir, "search.sqlite");
    const search = new DatabaseSync(searchFile);
    applyMigrations(search, ROOT, "migrations-search");
    const detach = attachCatalog(search, file);
    buildSearchIndex(search);
    detach();
    search.exec("VACUUM");
    search.close();
    const searchBytes = (await stat(searchFile)).size;
    const seeded = (performance.now() - started) / 1000;
    const tableOfIndex = new Map(
      db
        .prepare("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'")
        .all()
        .map((r) => [r.name, r.tbl_name]),
    );
    const perObject = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all();
    const byTable = new Map();
    for (const { name, bytes } of perObject) {
      const owner = ownerOf(name, tableOfIndex);
      const entry = byTable.get(owner) ?? { table: 0, indexes: 0 };
      if (owner === name || name.startsWith("search_index")) entry.table += bytes;
      else entry.indexes += bytes;
      byTable.set(owner, entry);
    }
    const rowsOf = (table) => {
      try {
        return db.prepare(`SELECT count(*) AS n FROM "${table}"`).get().n;
      } catch {
        return null;
      }
    };
    const total = (await stat(file)).size;
    const rows = [...byTable.entries()]
      .map(([table, { table: data, indexes }]) => ({ table, data, indexes, all: data + indexes, rows: rowsOf(table.split(" ")[0]) }))
      .filter((r) => r.all > 8 * 4096)
      .sort((a, b) => b.all - a.all);
    console.log(`\nDatabase size per table, ${ASSETS.toLocaleString("en")} assets (seeded in ${seeded.toFixed(0)} s; file ${mb(total)})`);
    const line = (cells) => console.log(cells.map((c, i) => (i === 0 ? String(c).padEnd(38) : String(c).padStart(12))).join(" "));
    line(["table (with its indexes)", "rows", "data", "indexes", "bytes/asset", "share"]);
    for (const r of rows) {
      line([
        r.table,
        r.rows == null ? "-" : r.rows.toLocaleString("en"),
        mb(r.data),
        mb(r.indexes),
        (r.all / ASSETS).toFixed(0),
        `${((r.all / total) * 100).toFixed(1)} %`,
      ]);
    }
    const perAsset = total / ASSETS;
    line(["all (the file)", "", "", "", perAsset.toFixed(0), "100 %"]);
    console.log(
      `\nOne D1 database (10 GB, Workers Paid) holds about ${Math.floor(D1_MAX_BYTES / perAsset).toLocaleString(
        "en",
      )} assets of this profile;`,
    );
    const withoutLogs =
      rows.filter((r) => !["audit_log", "global_events", "tasks"].includes(r.table)).reduce((sum, r) => sum + r.all, 0) / ASSETS;
    const withoutSearch = rows.filter((r) => !r.table.startsWith("search_")).reduce((sum, r) => sum + r.all, 0) / ASSETS;
    console.log(
      `  without audit_log, global_events and tasks: ${withoutLogs.toFixed(0)} bytes/asset, about ${Math.floor(
        D1_MAX_BYTES / withoutLogs,
      ).toLocaleString("en")} assets;`,
    );
    console.log(
      `  without the search tables: ${withoutSearch.toFixed(0)} bytes/asset, about ${Math.floor(
        D1_MAX_BYTES / withoutSearch,
      ).toLocaleString("en")} assets.`,
    );
    const searchPerAsset = searchBytes / ASSETS;
    console.log(
      `The search index's own database (SEARCH): ${mb(searchBytes)}, ${searchPerAsset.toFixed(0)} bytes/asset, about ${Math.floor(
        D1_MAX_BYTES / searchPerAsset,
      ).toLocaleString("en")} assets per 10 GB.`,
    );
    console.log(`Profile (rows per asset): ${JSON.stringify(PROFILE)}`);
    console.log(
      `load average at end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")} (2 cores shared)`,
    );
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`bench could not run: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
