import { sql } from "drizzle-orm";
import { check, integer, sqliteTable } from "drizzle-orm/sqlite-core";

/**
 * One row (`id` = 1) whose `n` every write that can change a search answer increments, by the triggers of
 * migration 0024 (decision 031): cached answers are keyed by it.
 */
export const searchEpoch = sqliteTable(
  "search_epoch",
  {
    id: integer("id", { mode: "number" }).primaryKey(),
    n: integer("n", { mode: "number" }).notNull(),
  },
  (t) => [check("search_epoch_single_row", sql`${t.id} = 1`)],
);
