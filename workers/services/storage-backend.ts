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
}

/** The R2 binding as a storage backend. */
export function r2Backend(bucket: R2Bucket): StorageBackend {
  return {
    async put(key, body, { contentType, size }) {
      const stream = body instanceof ReadableStream ? body.pipeThrough(new FixedLengthStream(size)) : body;
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
  };
}
