/**
 * Uploads: the multipart protocol (S3-style parts, completion, hashing), one-request uploads and the per-user upload
 * queue.
 *
 * The domain's public face (decision record 025): code outside workers/services/uploads/ imports only this file.
 */
export { MAX_BATCH_BYTES, MAX_BATCH_FILES, requireBatchLength, uploadBatch } from "./batch-upload.service";
export type { BatchUploadFile } from "./batch-upload.service";
export { uploadInOneRequest } from "./direct-upload.service";
export { MAX_COMPLETE_BODY_BYTES, authorize, createMultipart, listParts, uploadPart } from "./multipart.service";
export { abortMultipart, completeMultipart, putObject } from "./multipart-complete.service";
export { runAbortStaleMultipart, runHashVariant } from "./multipart-saving.service";
export { signS3Request, uploadStatus } from "./multipart-sign.service";
export type { S3Call } from "./multipart.service";
export type { SignInput, SignedRequest, UploadStatus } from "./multipart-sign.service";
export {
  QUEUE_SOCKET_PROTOCOL,
  addUploads,
  cancelUpload,
  clearCompletedUploads,
  getUploadQueue,
  keepUploadsAlive,
  openUploadSocket,
  removeUpload,
  reportUploads,
  updateUpload,
} from "./upload-queue.service";
