import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";

export const tags = sqliteTable(
  "tags",
  {
    id: idColumn(),
    name: text("name").notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("tags_name_unique").on(sql`lower(${t.name})`)],
);

export const TAGGED_TYPES = ["asset", "group"] as const;

/** Which assets and groups carry which tags. */
export const entityTags = sqliteTable(
  "entity_tags",
  {
    tagId: text("tag_id").notNull(),
    entityId: text("entity_id").notNull(),
    entityType: text("entity_type", { enum: TAGGED_TYPES }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tagId, t.entityId] }), index("entity_tags_entity_idx").on(t.entityId)],
);
