/**
 * Storage: where bytes live — the storage backends (R2, S3-compatible), per-entity storage choice and usage, part
 * planning for multipart transfers, and checksums of streamed uploads.
 *
 * The domain's public face (decision record 025): code outside workers/services/storage/ imports only this file or
 * ./pure.
 */
export { r2Backend } from "./storage-backend";
export type { MultipartStore, StorageBackend } from "./storage-backend";
export {
  createStorage,
  getStorageBackend,
  getStorageInfo,
  getStorageUsage,
  listStorageInfos,
  resolveEntityStorage,
  storageForEntity,
  updateStorage,
} from "./storage.service";
export type { StorageInfo } from "./storage.service";
export { checksumTap } from "./upload-checksum";
export type { ChecksumHeaders } from "./upload-checksum";
