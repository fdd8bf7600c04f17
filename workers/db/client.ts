import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema/index";

function newDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

export type Database = ReturnType<typeof newDb>;

/**
 * One Drizzle instance per D1 binding: building one walks the whole schema's relations (about 4% of the Worker's
 * CPU during small-file uploads when it ran per request) and it holds no per-request state.
 */
const instances = new WeakMap<D1Database, Database>();

/** Drizzle over the D1 binding, with the schema for typed queries. */
export function createDb(d1: D1Database): Database {
  let db = instances.get(d1);
  if (!db) instances.set(d1, (db = newDb(d1)));
  return db;
}
