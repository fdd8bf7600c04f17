import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { buildSnapshot, migrationFiles, schemaOf, statementsOf } from "../../scripts/catalog-schema.mjs";
import { applyCatalogSchema, CATALOG_SCHEMA_SNAPSHOT } from "../../workers/db/catalog-schema";

/** A migration that seeds rows stamps them with the clock of the run that made them. */
const unstamped = (snapshot: unknown) =>
  JSON.parse(JSON.stringify(snapshot, (_key, value) => (typeof value === "number" && value > 1e12 ? "time" : value)));

function replayed(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  for (const file of migrationFiles()) for (const statement of statementsOf(file.sql)) db.exec(statement);
  return db;
}

/** A new shard's database, made from the snapshot through the same SqlStorage calls the shard makes. */
function fromSnapshot(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE shard_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const sql = {
    exec: (query: string, ...binds: (string | number | null)[]) => (binds.length ? db.prepare(query).run(...binds) : db.exec(query)),
  } as unknown as SqlStorage;
  applyCatalogSchema(sql, 1);
  return db;
}

describe("the catalog's schema for a new shard (decision 052)", () => {
  it("is the one migrations/ makes today (else: npm run catalog-schema)", async () => {
    expect(unstamped(CATALOG_SCHEMA_SNAPSHOT)).toEqual(unstamped(await buildSnapshot()));
  });

  it("makes the same tables, rows, indexes, views and triggers as replaying every migration", () => {
    const made = fromSnapshot();
    const replay = replayed();
    const { shard_migrations: _own, ...mine } = Object.fromEntries(
      schemaOf(made).rows.map((r: { table: string }) => [r.table, r]),
    ) as Record<string, unknown>;
    const theirs = Object.fromEntries(schemaOf(replay).rows.map((r: { table: string }) => [r.table, r]));
    expect(unstamped(mine)).toEqual(unstamped(theirs));
    const objects = (db: DatabaseSync) =>
      db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name <> 'shard_migrations' ORDER BY type, name").all();
    expect(objects(made)).toEqual(objects(replay));
    expect(objects(replay).length).toBeGreaterThan(400);
    const recorded = made.prepare("SELECT name FROM shard_migrations ORDER BY name").all() as { name: string }[];
    expect(recorded.map((r) => r.name)).toEqual(migrationFiles().map((f) => f.name));
  });
});
