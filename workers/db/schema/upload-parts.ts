import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The parts of a multipart upload that storage has accepted, one row per part (R2's upload handle cannot list them):
 * what ListParts answers after a reload and what CompleteMultipartUpload checks the client's list against. Rows go
 * when the upload commits or is aborted.
 */
export const uploadParts = sqliteTable(
  "upload_parts",
  {
    variantId: text("variant_id").notNull(),
    partNumber: integer("part_number", { mode: "number" }).notNull(),
    size: integer("size", { mode: "number" }).notNull(),
    /** the storage's etag of the part, without quotes */
    etag: text("etag").notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.variantId, t.partNumber] })],
);

export type UploadPartRow = typeof uploadParts.$inferSelect;
