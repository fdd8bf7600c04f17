import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";

/** Variant types (SPEC §3). */
export const VARIANT_TYPES = ["initial", "master", "proxy_lowres", "proxy_highres", "watermarked", "untyped"] as const;
export type VariantType = (typeof VARIANT_TYPES)[number];

/**
 * pending: bytes not complete yet (invisible); saving: a multipart upload is complete in storage and its SHA-256 is
 * being computed (still invisible); ready: committed into a version; aborted: a multipart upload given up (kept a
 * while so the client can read the state, then deleted by the cleanup).
 */
export const VARIANT_STATUSES = ["pending", "saving", "ready", "aborted"] as const;
export type VariantStatus = (typeof VARIANT_STATUSES)[number];

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
    /** multipart uploads: the storage's upload id, set by CreateMultipartUpload */
    uploadId: text("upload_id"),
    /** multipart uploads: the part size the client was told to use */
    partSize: integer("part_size", { mode: "number" }),
    /** while saving: the resumable SHA-256 state (JSON) after `hash_offset` bytes, for objects hashed in several runs */
    hashState: text("hash_state"),
    /** while saving: bytes of the stored object hashed so far */
    hashOffset: integer("hash_offset", { mode: "number" }),
    /** last sign of life of an upload (a part stored, a hashing run, a single PUT begun): what the stale-upload cleanup looks at */
    progressAt: integer("progress_at", { mode: "number" }),
    /**
     * create-version's number for this upload (SPEC: create-version makes the next numbered version, empty until its
     * bytes are committed, which writes the version row with this number); null for uploads committed in one request
     */
    reservedVersion: integer("reserved_version", { mode: "number" }),
    /** a browser-made rendition (a heal's proxy): the user whose browser made it; null for the Worker and uploads */
    madeBy: text("made_by"),
    /** who let everyone see it: its maker when he held `update`, else the user who accepted it (heal_candidates) */
    acceptedBy: text("accepted_by"),
    // `phash` (migrations/0049_duplicates.sql), the 64-bit difference hash of the version's preview picture, is left
    // out of this model on purpose: a JS number cannot hold it, so it is read and written only in 32-bit halves by
    // db/repositories/duplicates.repository.ts.
  },
  (t) => [
    index("variants_asset_version_idx").on(t.assetId, t.versionId),
    index("variants_version_idx").on(t.versionId),
    // Purges ask whether any other variant still references an object before deleting its bytes.
    index("variants_storage_key_idx").on(t.storageKey),
    // Exact duplicates: other files whose bytes have this SHA-256.
    index("variants_sha256_idx")
      .on(t.sha256)
      .where(sql`sha256 is not null`),
    // Partial: only multipart uploads (the cleanup's scans). A full (status, …) index would tempt SQLite to look up
    // every ready variant by status instead of by version.
    index("variants_upload_progress_idx")
      .on(t.status, t.progressAt)
      .where(sql`upload_id is not null`),
  ],
);

export type VariantRow = typeof variants.$inferSelect;
