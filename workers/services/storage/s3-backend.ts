import { AwsClient } from "aws4fetch";
import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import { S3Error as S3ProtocolError, normalizeEtag, quoteEtag, xmlDocument } from "../../lib/s3-xml";
import type { ByteRange, MultipartStore, StorageBackend, StoredObject } from "./storage-backend";

/** Where an external S3-compatible bucket is and how to sign for it. */
export interface S3Location {
  /** endpoint, e.g. `https://s3.eu-central-1.amazonaws.com` or `https://<account>.r2.cloudflarestorage.com` */
  url: string;
  bucket: string;
  /** SigV4 region; "auto" (R2 and most S3-compatible services) when not set */
  region?: string | null;
}

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** How the backend sends a signed request; the global `fetch` unless a test passes its own. */
export type Fetcher = (request: Request) => Promise<Response>;

/** A failed call to the external storage; the API answers 503 with a Russian message, details stay on the error. */
export class S3Error extends AppError {
  constructor(readonly operation: string, readonly upstreamStatus: number | null, readonly upstreamCode: string | null) {
    super("SERVICE_UNAVAILABLE", ru.catalog.storageUnavailable);
    this.name = "S3Error";
  }
}

const RETRIES = 2;
const DELETE_CONCURRENCY = 6;

/** Percent-encodes all but the unreserved characters, as S3's canonical URI does. */
function strictEncode(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Path-style URL of an object: `${url}/${bucket}/${key}`, each key segment percent-encoded. */
export function s3ObjectUrl(location: S3Location, key: string): string {
  const base = location.url.replace(/\/+$/, "");
  return `${base}/${strictEncode(location.bucket)}/${key.split("/").map(strictEncode).join("/")}`;
}

/** `bytes 0-9/1234` → total size 1234 (null when absent or unknown). */
function totalFromContentRange(header: string | null): number | null {
  const match = header ? /^bytes \d+-\d+\/(\d+)$/.exec(header.trim()) : null;
  return match ? Number(match[1]) : null;
}

async function upstreamCode(res: Response): Promise<string | null> {
  const text = await res.text().catch(() => "");
  return /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1] ?? null;
}

/** Cuts `range` out of a whole-object body, for servers that ignore the Range header and answer 200. */
function sliceStream(body: ReadableStream<Uint8Array>, range: ByteRange): ReadableStream<Uint8Array> {
  let position = 0;
  const end = range.offset + range.length;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const start = position;
        position += chunk.byteLength;
        const from = Math.max(range.offset - start, 0);
        const to = Math.min(end - start, chunk.byteLength);
        if (to > from) controller.enqueue(chunk.subarray(from, to));
        if (position >= end) controller.terminate();
      },
    }),
  );
}

/**
 * An external S3-compatible bucket as a storage backend: every request is signed with SigV4 (aws4fetch, service
 * "s3", path-style URLs, `UNSIGNED-PAYLOAD` so bodies stream). Streams of known size go out with a Content-Length
 * (FixedLengthStream), as S3 refuses chunked uploads. Reads, heads and deletes are retried on 5xx/429.
 * @example const backend = s3Backend({ url: "https://s3.example.com", bucket: "media" }, { accessKeyId, secretAccessKey })
 */
export function s3Backend(location: S3Location, credentials: S3Credentials, fetcher?: Fetcher): StorageBackend {
  const client = new AwsClient({
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    sessionToken: credentials.sessionToken || undefined,
    service: "s3",
    region: location.region || "auto",
  });
  // Late-bound so the global fetch in force at call time is used.
  const send: Fetcher = fetcher ?? ((request) => fetch(request));

  async function call(operation: string, key: string, init: RequestInit, retryable: boolean, query = ""): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        // Never follow a redirect: the endpoint was judged by the outbound-address rules, its Location was not (a
        // public endpoint answering 302 towards 169.254.169.254 would otherwise be fetched, signed). A 3xx is a failure.
        res = await send(await client.sign(`${s3ObjectUrl(location, key)}${query}`, { ...init, redirect: "manual" }));
      } catch {
        if (retryable && attempt < RETRIES) continue;
        throw new S3Error(operation, null, null);
      }
      if ((res.status >= 500 || res.status === 429) && retryable && attempt < RETRIES) {
        await res.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
        continue;
      }
      return res;
    }
  }

  async function fail(operation: string, res: Response): Promise<never> {
    throw new S3Error(operation, res.status, await upstreamCode(res));
  }

  function describe(res: Response, size: number): Omit<StoredObject, "body"> {
    return { size, etag: res.headers.get("etag") ?? "", contentType: res.headers.get("content-type") };
  }

  return {
    async put(key, body, { contentType, size }) {
      const streaming = body instanceof ReadableStream;
      // Buffered bodies are ArrayBuffer-backed (never shared memory), which `fetch` accepts as is.
      const payload = (streaming ? body.pipeThrough(new FixedLengthStream(size)) : body) as BodyInit;
      const res = await call("put", key, { method: "PUT", headers: { "content-type": contentType }, body: payload }, !streaming);
      if (!res.ok) return fail("put", res);
      await res.body?.cancel();
      return { size, etag: res.headers.get("etag") ?? "" };
    },

    async get(key, range) {
      const headers: Record<string, string> = {};
      if (range) headers.range = `bytes=${range.offset}-${range.offset + Math.max(range.length, 1) - 1}`;
      const res = await call("get", key, { method: "GET", headers }, true);
      if (res.status === 404) {
        await res.body?.cancel();
        return null;
      }
      if (res.status === 416) {
        await res.body?.cancel();
        throw new AppError("BAD_REQUEST", ru.catalog.rangeNotSatisfiable);
      }
      if (!res.ok) return fail("get", res);
      if (res.status === 206) {
        const total = totalFromContentRange(res.headers.get("content-range")) ?? Number(res.headers.get("content-length") ?? 0);
        return { ...describe(res, total), body: res.body, range };
      }
      const size = Number(res.headers.get("content-length") ?? 0);
      if (range && res.body) return { ...describe(res, size), body: sliceStream(res.body, range), range };
      return { ...describe(res, size), body: res.body };
    },

    async head(key) {
      const res = await call("head", key, { method: "HEAD" }, true);
      if (res.status === 404) return null;
      if (!res.ok) return fail("head", res);
      return describe(res, Number(res.headers.get("content-length") ?? 0));
    },

    async delete(keys) {
      let next = 0;
      const worker = async () => {
        while (next < keys.length) {
          const key = keys[next++];
          const res = await call("delete", key, { method: "DELETE" }, true);
          if (!res.ok && res.status !== 404) await fail("delete", res);
          await res.body?.cancel();
        }
      };
      await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, keys.length) }, worker));
    },

    multipart: s3Multipart(call, fail),
  };
}

type Caller = (operation: string, key: string, init: RequestInit, retryable: boolean, query?: string) => Promise<Response>;

/** The text of the first `<tag>` of an S3 XML answer. */
function xmlText(xml: string, tag: string): string | null {
  return new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1] ?? null;
}

/** S3's multipart API on an external bucket, through the backend's signed and retried calls. */
function s3Multipart(call: Caller, fail: (operation: string, res: Response) => Promise<never>): MultipartStore {
  const uploadQuery = (uploadId: string) => `?uploadId=${encodeURIComponent(uploadId)}`;
  /** 404 NoSuchUpload is the protocol's answer for an upload the bucket does not know; anything else is a failure. */
  async function failOrNoSuchUpload(operation: string, res: Response): Promise<never> {
    if (res.status === 404) {
      await res.body?.cancel();
      throw new S3ProtocolError("NoSuchUpload", ru.s3.uploadNotFound);
    }
    return fail(operation, res);
  }
  return {
    async create(key, contentType) {
      const res = await call("create-multipart", key, { method: "POST", headers: { "content-type": contentType } }, true, "?uploads");
      if (!res.ok) return fail("create-multipart", res);
      const uploadId = xmlText(await res.text(), "UploadId");
      if (!uploadId) throw new S3Error("create-multipart", res.status, "MalformedXML");
      return uploadId;
    },
    async uploadPart(key, uploadId, partNumber, body, size) {
      const query = `?partNumber=${partNumber}&uploadId=${encodeURIComponent(uploadId)}`;
      // A streamed body cannot be sent twice: the client retries the part instead.
      const res = await call("upload-part", key, { method: "PUT", body: body.pipeThrough(new FixedLengthStream(size)) }, false, query);
      if (!res.ok) return failOrNoSuchUpload("upload-part", res);
      await res.body?.cancel();
      const etag = res.headers.get("etag");
      if (!etag) throw new S3Error("upload-part", res.status, "MissingETag");
      return etag;
    },
    async complete(key, uploadId, parts) {
      const body = xmlDocument("CompleteMultipartUpload", {
        Part: parts.map((p) => ({ PartNumber: String(p.partNumber), ETag: quoteEtag(normalizeEtag(p.etag)) })),
      });
      const res = await call(
        "complete-multipart",
        key,
        { method: "POST", headers: { "content-type": "application/xml" }, body },
        true,
        uploadQuery(uploadId),
      );
      if (!res.ok) return failOrNoSuchUpload("complete-multipart", res);
      // S3 may answer 200 and still report an error in the body (it fails while assembling).
      const xml = await res.text();
      if (xml.includes("<Error>")) throw new S3Error("complete-multipart", res.status, xmlText(xml, "Code"));
      const head = await call("head", key, { method: "HEAD" }, true);
      if (!head.ok) return fail("head", head);
      return { etag: normalizeEtag(head.headers.get("etag") ?? ""), size: Number(head.headers.get("content-length") ?? 0) };
    },
    async abort(key, uploadId) {
      const res = await call("abort-multipart", key, { method: "DELETE" }, true, uploadQuery(uploadId));
      await res.body?.cancel();
      if (!res.ok && res.status !== 404) await fail("abort-multipart", res);
    },
  };
}
