import { createTableRelationsHelpers, extractTablesRelationalConfig } from "drizzle-orm";
import { DrizzleD1Database, SQLiteD1Session, drizzle } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "./schema/index";

function newDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

export type Database = ReturnType<typeof newDb>;

/**
 * The schema's relational config, worked out once per isolate: walking the whole schema's relations cost about 4% of
 * the Worker's CPU during small-file uploads when it ran per request. What is left per Drizzle instance (a dialect, a
 * session object and one query builder per table) is small, so every request gets its own instance over its own D1
 * session (workers/db/session.ts) without paying for the walk again.
 */
let relational: { fullSchema: typeof schema; schema: Record<string, unknown>; tableNamesMap: Record<string, string> } | undefined;
const dialect = new SQLiteAsyncDialect();

/**
 * Drizzle over a D1 client with the schema for typed queries. The client is the D1 binding or anything with its
 * `prepare`/`batch` (a `D1DatabaseSession`, or the counted session of a request): Drizzle's D1 driver calls nothing else.
 */
export function createDb(client: Pick<D1Database, "prepare" | "batch">): Database {
  if (!relational) {
    const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
    relational = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
  }
  const session = new SQLiteD1Session(client as D1Database, dialect, relational as never, {});
  const db = new DrizzleD1Database("async", dialect, session, relational as never) as unknown as Database;
  (db as { $client: unknown }).$client = client;
  return db;
}
