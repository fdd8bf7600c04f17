import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { FIELD_TYPES } from "../../services/metadata/pure";
import { idColumn, timestamps } from "../columns";

/**
 * Field templates (SPEC §3 "Field template"): what a custom field is called, its type, its per-type setup (options,
 * bounds, required, multiple, list source, format, struct members), its order in forms and its mapping to a key of
 * an external system (an XMP/IPTC/EXIF property for import).
 */
export const fieldTemplates = sqliteTable(
  "field_templates",
  {
    id: idColumn(),
    name: text("name").notNull(),
    fieldType: text("field_type", { enum: FIELD_TYPES }).notNull(),
    setup: text("setup", { mode: "json" })
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'`),
    priority: integer("priority", { mode: "number" }).notNull().default(0),
    extsys: text("extsys"),
    extsysKey: text("extsys_key"),
    ...timestamps,
  },
  (t) => [uniqueIndex("field_templates_name_unique").on(sql`lower(${t.name})`), index("field_templates_extsys_key_idx").on(t.extsysKey)],
);

export type FieldTemplateRow = typeof fieldTemplates.$inferSelect;
