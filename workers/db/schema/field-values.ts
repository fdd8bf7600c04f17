import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn, timestamps } from "../columns";

export const FIELD_ENTITY_TYPES = ["asset", "group"] as const;
export type FieldEntityType = (typeof FIELD_ENTITY_TYPES)[number];

/**
 * Entity field values (SPEC §3 "Entity field value"): one value of one template on an asset or group, optionally of
 * one asset version and optionally on a time range (`pts_start`..`pts_end`, seconds). `data` is the value as the API
 * shows it; `value_text` / `value_num` are its typed, indexed projection (a reference id, a folded text, an epoch
 * for dates, seconds for times, 0/1 for booleans) so entities-by-field is an index range scan per template.
 */
export const fieldValues = sqliteTable(
  "field_values",
  {
    id: idColumn(),
    entityId: text("entity_id").notNull(),
    entityType: text("entity_type", { enum: FIELD_ENTITY_TYPES }).notNull(),
    defId: text("def_id").notNull(),
    versionId: text("version_id"),
    version: integer("version", { mode: "number" }),
    ptsStart: real("pts_start"),
    ptsEnd: real("pts_end"),
    data: text("data", { mode: "json" }).$type<unknown>().notNull(),
    valueText: text("value_text"),
    valueNum: real("value_num"),
    userId: text("user_id"),
    ...timestamps,
  },
  (t) => [
    index("field_values_entity_idx").on(t.entityId, t.defId),
    index("field_values_def_text_idx")
      .on(t.defId, t.valueText, t.entityId)
      .where(sql`${t.valueText} is not null`),
    index("field_values_def_num_idx")
      .on(t.defId, t.valueNum, t.entityId)
      .where(sql`${t.valueNum} is not null`),
  ],
);

export type FieldValueRow = typeof fieldValues.$inferSelect;
