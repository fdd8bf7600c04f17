import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";

/** Variant types (SPEC §3). */
export const VARIANT_TYPES = ["initial", "master", "proxy_lowres", "proxy_highres", "watermarked", "untyped"] as const;
export type VariantType = (typeof VARIANT_TYPES)[number];

/** pending: bytes not complete yet (invisible); ready: committed into a version. */
export const VARIANT_STATUSES = ["pending", "ready"] as const;

/**
 * One rendition of an asset version (the original, a proxy …). Bytes live in a storage under `storage_key`, a
 * server-generated key; the user's file name is only metadata.
 */
export const variants = sqliteTable(
  "variants",
  {
    id: idColumn(),
    assetId: text("asset_id").notNull(),
    /** null while pending */
    versionId: text("version_id"),
    variantType: text("variant_type", { enum: VARIANT_TYPES }).notNull(),
    status: text("status", { enum: VARIANT_STATUSES }).notNull(),
    name: text("name").notNull(),
    mimeType: text("mime_type").notNull(),
    format: text("format"),
    fileName: text("file_name").notNull(),
    /** declared size while pending, stored size once ready */
    contentSize: integer("content_size", { mode: "number" }).notNull(),
    /** hex SHA-256 of the stored bytes, computed while they streamed in */
    sha256: text("sha256"),
    storageId: text("storage_id").notNull(),
    storageKey: text("storage_key").notNull(),
    previewStorageId: text("preview_storage_id"),
    metadataStorageId: text("metadata_storage_id"),
    /** technical metadata extracted from the bytes (JSON), filled by processing */
    techFields: text("tech_fields", { mode: "json" }).$type<Record<string, unknown>>(),
    techProps: text("tech_props", { mode: "json" }).$type<Record<string, unknown>>(),
    /** group the asset joins when this upload commits (create-version `to_group`) */
    toGroup: text("to_group"),
    userId: text("user_id").notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [index("variants_asset_version_idx").on(t.assetId, t.versionId), index("variants_version_idx").on(t.versionId)],
);

export type VariantRow = typeof variants.$inferSelect;
