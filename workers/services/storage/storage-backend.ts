import { ru } from "../../../shared/i18n/ru";
import { S3Error as S3ProtocolError } from "../../lib/s3-xml";

/**
 * Where bytes are read and written. The R2 binding is the default backend; external S3-compatible storages get
 * their own implementation (storage.service). Keys are always server-generated.
 */
export interface StoredObject {
  size: number;
  etag: string;
  contentType: string | null;
  body: ReadableStream<Uint8Array> | null;
  /** the byte range served when a range was asked for */
  range?: { offset: number; length: number };
}

export interface ByteRange {
  offset: number;
  length: number;
}

/**
 * Multipart uploads into a storage (the parts of a large file arrive one request each). An upload the storage no
 * longer knows answers the S3 protocol error NoSuchUpload.
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

export interface StorageBackend {
  /** Stores a stream of exactly `size` bytes; answers the stored size. */
  put(
    key: string,
    body: ReadableStream<Uint8Array> | ArrayBuffer | Uint8Array,
    opts: { contentType: string; size: number },
  ): Promise<{ size: number; etag: string }>;
  /** Reads an object (or a range of it); null when missing. */
  get(key: string, range?: ByteRange): Promise<StoredObject | null>;
  /** Size and etag without the body; null when missing. */
  head(key: string): Promise<Omit<StoredObject, "body"> | null>;
  delete(keys: string[]): Promise<void>;
  /** Multipart uploads into this storage. */
  multipart: MultipartStore;
}

/**
 * `body` cut to exactly `size` bytes for R2 (it needs the length up front; a body shorter or longer fails the write).
 * `pipeTo` rather than `pipeThrough`: a client that goes away rejects the pipe, and that rejection must be handled
 * here (the write fails through the readable side anyway) instead of surfacing as an uncaught promise rejection.
 */
function fixedLength(body: ReadableStream<Uint8Array>, size: number): ReadableStream<Uint8Array> {
  const fixed = new FixedLengthStream(size);
  body.pipeTo(fixed.writable).catch(() => undefined);
  return fixed.readable;
}

/** R2's error for an upload id it does not know (completed, aborted or never created). */
const NO_SUCH_UPLOAD = /does not exist|NoSuchUpload|\(10024\)/i;

/** Turns R2's "no such upload" into the S3 error; anything else goes up unchanged. */
function mapR2Error(error: unknown): never {
  if (NO_SUCH_UPLOAD.test(String(error))) throw new S3ProtocolError("NoSuchUpload", ru.s3.uploadNotFound);
  throw error;
}

/** The R2 binding's multipart API (its upload handle cannot list parts: multipart.service records them in D1). */
function r2MultipartStore(bucket: R2Bucket): MultipartStore {
  return {
    async create(key, contentType) {
      return (await bucket.createMultipartUpload(key, { httpMetadata: { contentType } })).uploadId;
    },
    async uploadPart(key, uploadId, partNumber, body, size) {
      const upload = bucket.resumeMultipartUpload(key, uploadId);
      const part = await upload.uploadPart(partNumber, fixedLength(body, size)).catch(mapR2Error);
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

/** The R2 binding as a storage backend. */
export function r2Backend(bucket: R2Bucket): StorageBackend {
  return {
    async put(key, body, { contentType, size }) {
      const stream = body instanceof ReadableStream ? fixedLength(body, size) : body;
      const object = await bucket.put(key, stream, { httpMetadata: { contentType } });
      return { size: object.size, etag: object.httpEtag };
    },
    async get(key, range) {
      const object = await bucket.get(key, range ? { range: { offset: range.offset, length: range.length } } : undefined);
      if (!object) return null;
      return {
        size: object.size,
        etag: object.httpEtag,
        contentType: object.httpMetadata?.contentType ?? null,
        body: object.body,
        range,
      };
    },
    async head(key) {
      const object = await bucket.head(key);
      return object ? { size: object.size, etag: object.httpEtag, contentType: object.httpMetadata?.contentType ?? null } : null;
    },
    async delete(keys) {
      for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
    },
    multipart: r2MultipartStore(bucket),
  };
}
