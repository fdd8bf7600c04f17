import CATALOG_SCHEMA from "./catalog-schema.json";

/**
 * The catalog's schema as its migrations leave it (`scripts/catalog-schema.mjs`, decision 052): its tables, the rows the
 * migrations seed, its indexes, views and triggers, and the migrations it stands for.
 */
export interface CatalogSchema {
  migrations: string[];
  tables: string[];
  rows: { table: string; columns: string[]; values: (string | number | null)[][] }[];
  /** indexes, views and triggers */
  objects: string[];
}

export const CATALOG_SCHEMA_SNAPSHOT: CatalogSchema = CATALOG_SCHEMA;

/**
 * Makes a new shard's database the catalog's in one step, and records the migrations that stand for it (the caller's
 * transaction makes it all or nothing): replayed one by one, the migrations cost a new shard over 200 ms, most of it
 * building tables and triggers later migrations rebuild again. A migration newer than the snapshot is not recorded
 * and is applied after it as to any shard.
 */
export function applyCatalogSchema(sql: SqlStorage, now: number, schema: CatalogSchema = CATALOG_SCHEMA_SNAPSHOT): void {
  for (const statement of schema.tables) sql.exec(statement);
  for (const { table, columns, values } of schema.rows) {
    const insert = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;
    for (const row of values) sql.exec(insert, ...row);
  }
  for (const statement of schema.objects) sql.exec(statement);
  for (const name of schema.migrations) sql.exec("INSERT INTO shard_migrations (name, applied_at) VALUES (?, ?)", name, now);
}
