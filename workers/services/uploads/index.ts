/**
 * Uploads: the multipart protocol (S3-style parts, completion, hashing), one-request uploads and the per-user upload
 * queue.
 *
 * The domain's public face (decision record 025): code outside workers/services/uploads/ imports only this file.
 */
export { uploadInOneRequest } from "./direct-upload.service";
export {
  MAX_COMPLETE_BODY_BYTES,
  abortMultipart,
  completeMultipart,
  createMultipart,
  listParts,
  putObject,
  runAbortStaleMultipart,
  runHashVariant,
  signS3Request,
  uploadPart,
  uploadStatus,
} from "./multipart.service";
export type { S3Call, SignInput, SignedRequest, UploadStatus } from "./multipart.service";
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
