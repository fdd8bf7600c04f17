import { sql } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { idColumn, timestamps } from "../columns";

/** Value lists (sources for fields whose setup names a `list_id`). */
export const lists = sqliteTable(
  "lists",
  {
    id: idColumn(),
    name: text("name").notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex("lists_name_unique").on(sql`lower(${t.name})`)],
);

/** SPEC §3 "List record": a key (`rec_id`, unique in its list) and its data (at least a `label`). */
export const listRecords = sqliteTable(
  "list_records",
  {
    listId: text("list_id").notNull(),
    recId: text("rec_id").notNull(),
    recData: text("rec_data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    position: integer("position", { mode: "number" }).notNull().default(0),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.listId, t.recId] })],
);
