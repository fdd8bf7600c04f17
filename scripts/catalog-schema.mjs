// The catalog's schema as its migrations leave it, for a new library shard to take in one step (decision 052):
// `npm run catalog-schema` replays migrations/ in SQLite and writes workers/db/catalog-schema.json;
// tests/unit/catalog-schema.test.ts fails while that file is behind the migrations.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const migrationsDir = new URL("../migrations/", import.meta.url);
export const SCHEMA_FILE = new URL("../workers/db/catalog-schema.json", import.meta.url);

/** Migration files in the order wrangler applies them. */
export function migrationFiles() {
  return readdirSync(migrationsDir)
    .filter((name) => name.endsWith(".sql"))
    .sort()
    .map((name) => ({ name, sql: readFileSync(new URL(name, migrationsDir), "utf8") }));
}

/** Statements of one migration, split as the shard splits them. */
export function statementsOf(sql) {
  return sql.split("--> statement-breakpoint").filter((part) => part.replace(/^\s*--.*$/gm, "").trim());
}

// Tables before what is built on them; each kind in the order it was made.
const KIND_ORDER = "CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END";

/**
 * What a database holds, as statements that make it again: its tables' own SQL, the rows its migrations seeded, and
 * its indexes, views and triggers (after the rows: a trigger would write what the rows already hold). SQLite's
 * internal tables are left out (made by what needs them); an AUTOINCREMENT counter is a row of its own.
 */
export function schemaOf(db) {
  const objects = db
    .prepare(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY ${KIND_ORDER}, rowid`)
    .all();
  const rows = [];
  for (const { name } of objects.filter((o) => o.type === "table").concat([{ name: "sqlite_sequence" }])) {
    const found = db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all();
    if (found.length === 0) continue;
    const columns = Object.keys(found[0]);
    for (const row of found) {
      for (const value of Object.values(row)) {
        if (value instanceof Uint8Array) throw new Error(`a migration seeds a blob into ${name}: not kept by the snapshot`);
      }
    }
    rows.push({ table: name, columns, values: found.map((row) => columns.map((c) => row[c])) });
  }
  return {
    tables: objects.filter((o) => o.type === "table").map((o) => o.sql),
    rows,
    objects: objects.filter((o) => o.type !== "table").map((o) => o.sql),
  };
}

/** Replays every migration into a new in-memory SQLite and answers the snapshot. */
export async function buildSnapshot() {
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(":memory:");
  const files = migrationFiles();
  for (const file of files) for (const statement of statementsOf(file.sql)) db.exec(statement);
  return { migrations: files.map((f) => f.name), ...schemaOf(db) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const snapshot = await buildSnapshot();
  writeFileSync(SCHEMA_FILE, JSON.stringify(snapshot, null, 1) + "\n");
  console.log(
    `${fileURLToPath(SCHEMA_FILE)}: ${snapshot.migrations.length} migrations, ${snapshot.tables.length} tables, ${
      snapshot.objects.length
    } other objects`,
  );
}
