import { integer, text } from "drizzle-orm/sqlite-core";

/** Primary key column holding a 32-character lowercase hex id (see `newId`). */
export const idColumn = (name = "id") => text(name).primaryKey();

/** Creation and modification times in epoch milliseconds; ISO strings are produced at the API edge. */
export const timestamps = {
  ctime: integer("ctime", { mode: "number" }).notNull(),
  mtime: integer("mtime", { mode: "number" }).notNull(),
};

export const bool = (name: string) => integer(name, { mode: "boolean" });
