import { sql } from "drizzle-orm";
import { sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { idColumn, timestamps } from "../columns";

/** Asset classes: a name and the field templates (`def_fields`) an asset of the class shows and requires. */
export const assetClasses = sqliteTable(
  "asset_classes",
  {
    id: idColumn(),
    name: text("name").notNull(),
    defFields: text("def_fields", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    ...timestamps,
  },
  (t) => [uniqueIndex("asset_classes_name_unique").on(sql`lower(${t.name})`)],
);
