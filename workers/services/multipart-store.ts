import { ru } from "../../app/i18n/ru";
import { DEFAULT_STORAGE_ID, findStorage } from "../db/repositories/storage.repository";
import { S3Error } from "../lib/s3-xml";
import type { RequestContext } from "./context";

/**
 * Multipart uploads of a storage. The R2 binding implements it (its upload handle cannot list parts: the parts are
 * recorded in D1 by multipart.service). External S3 storages do not (yet): their files stop at the single-PUT size.
 */
export interface MultipartStore {
  /** Starts an upload; answers its upload id. */
  create(key: string, contentType: string): Promise<string>;
  /** Stores part `partNumber` from a stream of exactly `size` bytes; answers the part's etag. */
  uploadPart(key: string, uploadId: string, partNumber: number, body: ReadableStream<Uint8Array>, size: number): Promise<string>;
  /** Assembles the object from these parts; answers its etag and size. */
  complete(key: string, uploadId: string, parts: { partNumber: number; etag: string }[]): Promise<{ etag: string; size: number }>;
  /** Drops an open upload and its parts; an upload storage no longer knows is not an error. */
  abort(key: string, uploadId: string): Promise<void>;
}

/** R2's error for an upload id it does not know (completed, aborted or never created). */
const NO_SUCH_UPLOAD = /does not exist|NoSuchUpload|\(10024\)/i;

/** Turns R2's "no such upload" into the S3 error; anything else goes up unchanged. */
function mapR2Error(error: unknown): never {
  if (NO_SUCH_UPLOAD.test(String(error))) throw new S3Error("NoSuchUpload", ru.s3.uploadNotFound);
  throw error;
}

/** The R2 binding's multipart API as a MultipartStore. */
export function r2MultipartStore(bucket: R2Bucket): MultipartStore {
  return {
    async create(key, contentType) {
      return (await bucket.createMultipartUpload(key, { httpMetadata: { contentType } })).uploadId;
    },
    async uploadPart(key, uploadId, partNumber, body, size) {
      const upload = bucket.resumeMultipartUpload(key, uploadId);
      // A fixed-length stream: R2 needs the length up front, and a body shorter or longer than `size` fails the part.
      const part = await upload.uploadPart(partNumber, body.pipeThrough(new FixedLengthStream(size))).catch(mapR2Error);
      return part.etag;
    },
    async complete(key, uploadId, parts) {
      const object = await bucket.resumeMultipartUpload(key, uploadId).complete(parts).catch(mapR2Error);
      return { etag: object.etag, size: object.size };
    },
    async abort(key, uploadId) {
      await bucket
        .resumeMultipartUpload(key, uploadId)
        .abort()
        .catch((error: unknown) => {
          if (!NO_SUCH_UPLOAD.test(String(error))) throw error;
        });
    },
  };
}

/** The multipart store of a storage, or null when the storage cannot take multipart uploads. */
export async function multipartStoreFor(rc: RequestContext, storageId: string): Promise<MultipartStore | null> {
  if (storageId === DEFAULT_STORAGE_ID) return r2MultipartStore(rc.env.MEDIA);
  const row = await findStorage(rc.db, storageId);
  return row?.kind === "r2" ? r2MultipartStore(rc.env.MEDIA) : null;
}
