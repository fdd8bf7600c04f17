import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn, timestamps } from "../columns";

export const STORAGE_KINDS = ["r2", "s3"] as const;

/**
 * Where bytes live: the R2 binding (the default row, created by migration) or an external S3-compatible bucket.
 * Credentials are stored encrypted (AES-GCM) and never leave the server.
 */
export const storages = sqliteTable("storages", {
  id: idColumn(),
  name: text("name").notNull(),
  kind: text("kind", { enum: STORAGE_KINDS }).notNull(),
  url: text("url"),
  bucket: text("bucket"),
  region: text("region"),
  credsEncrypted: text("creds_encrypted"),
  ...timestamps,
});

export type StorageRow = typeof storages.$inferSelect;
