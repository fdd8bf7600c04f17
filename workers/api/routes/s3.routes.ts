import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import { S3Error, XML_CONTENT_TYPE, errorXml, quoteEtag, s3CodeOf, xmlDocument, type S3ErrorCode } from "../../lib/s3-xml";
import { outsideHold, type RequestContext } from "../../services/access";
import { s3OpOf, type S3Op } from "../../services/storage/pure";
import {
  MAX_COMPLETE_BODY_BYTES,
  abortMultipart,
  authorize,
  completeMultipart,
  createMultipart,
  listParts,
  putObject,
  uploadPart,
  type S3Call,
} from "../../services/uploads";
import { runWhereItLives } from "../library-place";
import { createRouter } from "../router";
import type { AppEnv } from "../types";

/**
 * The S3-compatible upload endpoints under /api/s3, as Uppy's `@uppy/aws-s3` (signRequest mode) calls them:
 * CreateMultipartUpload `POST ?uploads`, UploadPart `PUT ?partNumber&uploadId`, ListParts `GET ?uploadId`,
 * CompleteMultipartUpload `POST ?uploadId` (XML body), AbortMultipartUpload `DELETE ?uploadId`, and PutObject `PUT`
 * for small files. No bearer: each URL carries the signature POST /api/upload/sign made for exactly that call
 * (`u`, `exp`, `sig`). Answers and errors are S3 XML (`application/xml`), errors as `<Error><Code/><Message/></Error>`.
 */

const ObjectParams = z.object({
  bucket: z.string().openapi({ param: { name: "bucket", in: "path" }, example: "media" }),
  assetId: z.string().openapi({ param: { name: "assetId", in: "path" } }),
  variantId: z.string().openapi({ param: { name: "variantId", in: "path" } }),
});

const S3QuerySchema = z.object({
  uploads: z.string().optional().openapi({ description: "present (empty) on CreateMultipartUpload" }),
  uploadId: z.string().optional(),
  partNumber: z.string().optional().openapi({ description: "1–10000" }),
  u: z.string().optional(),
  exp: z.string().optional(),
  sig: z.string().optional(),
});

const OBJECT_PATH = "/{bucket}/assets/{assetId}/{variantId}";
const xmlAnswer = (description: string) => ({ description, content: { [XML_CONTENT_TYPE]: { schema: z.string() } } });
const xmlErrors = {
  400: xmlAnswer("S3 error (InvalidArgument, InvalidPart, InvalidPartOrder, EntityTooSmall, MalformedXML, BadDigest …)"),
  403: xmlAnswer("S3 error AccessDenied: forged, expired or misused signature"),
  404: xmlAnswer("S3 error NoSuchUpload / NoSuchKey"),
  409: xmlAnswer("S3 error OperationAborted: the upload is in another state"),
};

function xml(c: Context<AppEnv>, body: string, status: 200 | 400 | 403 | 404 | 405 | 409 | 411 | 500 | 503 = 200): Response {
  return c.body(body, status, { "Content-Type": XML_CONTENT_TYPE, "Cache-Control": "no-store" });
}

function callOf(c: Context<AppEnv>): S3Call {
  const { bucket, assetId, variantId } = c.req.param() as { bucket: string; assetId: string; variantId: string };
  return { bucket, assetId, variantId, query: new URL(c.req.url).searchParams };
}

/** The bytes of an upload call with their length and the checksums the client sent (upload-checksum.ts). */
const uploadBody = (c: Context<AppEnv>) => ({
  body: c.req.raw.body,
  contentLength: c.req.header("content-length"),
  checksums: { contentMd5: c.req.header("content-md5"), checksumSha256: c.req.header("x-amz-checksum-sha256") },
});

/** Reads a text body of at most `max` bytes (a longer one is refused without reading it all). */
async function readCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    total += chunk.value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new S3Error("MalformedXML", ru.s3.malformedXml);
    }
    chunks.push(chunk.value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** The operation of a request, or 405/400 as S3 XML. */
/**
 * An S3 call's work where its file's library lives (decision 043, «Uploads»): placed by the file the path names, once
 * its signature names the sender (checked again where it runs); a file also listed in another library is written
 * across libraries (decision 046).
 */
async function whereItLives<T>(c: Context<AppEnv>, op: S3Op, call: S3Call, work: (rc: RequestContext) => Promise<T>): Promise<T> {
  const { actor } = await authorize(c.var.rc, op, call);
  return runWhereItLives(c, call.assetId, work, { actor, files: [call.assetId], streamed: true });
}

function opOf(c: Context<AppEnv>, ...allowed: ReturnType<typeof s3OpOf>[]) {
  const op = s3OpOf(c.req.method, new URL(c.req.url).searchParams);
  if (!op || !allowed.includes(op)) throw new S3Error("InvalidRequest", ru.s3.unsupportedRequest);
  return op;
}

export const s3Routes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: OBJECT_PATH,
      tags: ["Uploads (S3)"],
      summary: "CreateMultipartUpload (?uploads) or CompleteMultipartUpload (?uploadId, XML body)",
      request: { params: ObjectParams, query: S3QuerySchema },
      responses: { 200: xmlAnswer("InitiateMultipartUploadResult or CompleteMultipartUploadResult"), ...xmlErrors },
    }),
    async (c) => {
      const call = callOf(c);
      const op = opOf(c, "create", "complete");
      if (op === "create") {
        const created = await whereItLives(c, op, call, (rc) => createMultipart(rc, call));
        return xml(
          c,
          xmlDocument("InitiateMultipartUploadResult", { Bucket: created.bucket, Key: created.key, UploadId: created.uploadId }),
        );
      }
      // The part list is a request body too: received with the libraries let go (decision 048).
      const done = await whereItLives(c, op, call, (rc) =>
        completeMultipart(rc, call, () => outsideHold(rc, () => readCapped(c.req.raw.body, MAX_COMPLETE_BODY_BYTES))),
      );
      // Location: where the client reads the upload's state (a 'saving' upload becomes 'ready' once hashed).
      const location = new URL(`/api/upload/status/${done.variantId}`, c.req.url).href;
      c.header("x-mam-upload-state", done.state);
      c.header("x-mam-variant-id", done.variantId);
      return xml(
        c,
        xmlDocument("CompleteMultipartUploadResult", {
          Location: location,
          Bucket: done.bucket,
          Key: done.key,
          ETag: quoteEtag(done.etag),
        }),
      );
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: OBJECT_PATH,
      tags: ["Uploads (S3)"],
      summary:
        "UploadPart (?partNumber&uploadId) or PutObject (small files): the body is the bytes, Content-Length required; an optional Content-MD5 or x-amz-checksum-sha256 (base64) is verified (400 BadDigest on mismatch, nothing recorded)",
      request: { params: ObjectParams, query: S3QuerySchema },
      responses: {
        200: { description: "Stored; the ETag header names the part (or the object's SHA-256)" },
        411: xmlAnswer("S3 error MissingContentLength"),
        ...xmlErrors,
      },
    }),
    async (c) => {
      const call = callOf(c);
      const headers = { "Access-Control-Expose-Headers": "ETag", "Cache-Control": "no-store" };
      const op = opOf(c, "part", "put");
      if (op === "part") {
        const { etag } = await whereItLives(c, op, call, (rc) => uploadPart(rc, call, uploadBody(c)));
        return c.body(null, 200, { ...headers, ETag: quoteEtag(etag) });
      }
      const done = await whereItLives(c, op, call, (rc) => putObject(rc, call, uploadBody(c)));
      return c.body(null, 200, {
        ...headers,
        ETag: quoteEtag(done.checksum),
        "x-mam-upload-state": "ready",
        "x-mam-variant-id": done.asset_variant_id,
      });
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: OBJECT_PATH,
      tags: ["Uploads (S3)"],
      summary: "ListParts (?uploadId): the parts stored so far (all of them, one page)",
      request: { params: ObjectParams, query: S3QuerySchema },
      responses: { 200: xmlAnswer("ListPartsResult"), ...xmlErrors },
    }),
    async (c) => {
      opOf(c, "list");
      const listed = await listParts(c.var.rc, callOf(c));
      const last = listed.parts.at(-1)?.partNumber ?? 0;
      return xml(
        c,
        xmlDocument("ListPartsResult", {
          Bucket: listed.bucket,
          Key: listed.key,
          UploadId: listed.uploadId,
          PartNumberMarker: 0,
          NextPartNumberMarker: last,
          MaxParts: 10_000,
          IsTruncated: false,
          Part: listed.parts.map((p) => ({
            PartNumber: p.partNumber,
            LastModified: p.lastModified,
            ETag: quoteEtag(p.etag),
            Size: p.size,
          })),
        }),
      );
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: OBJECT_PATH,
      tags: ["Uploads (S3)"],
      summary: "AbortMultipartUpload (?uploadId): drops the parts; the upload reads as aborted",
      request: { params: ObjectParams, query: S3QuerySchema },
      responses: { 204: { description: "Aborted (also when it already was)" }, ...xmlErrors },
    }),
    async (c) => {
      const call = callOf(c);
      await whereItLives(c, opOf(c, "abort"), call, (rc) => abortMultipart(rc, call));
      return c.body(null, 204);
    },
  )
  .all("/*", (c) => {
    const objectLike = /^\/api\/s3\/[^/]+\/assets\/[^/]+\/[^/]+$/.test(new URL(c.req.url).pathname);
    throw new S3Error(objectLike ? "MethodNotAllowed" : "NoSuchKey", objectLike ? ru.s3.unsupportedRequest : ru.s3.uploadNotFound);
  });

/** Every error of this router is S3 XML; unknown errors are logged and answered with a generic InternalError. */
s3Routes.onError((error, c) => {
  const requestId = c.get("requestId") ?? "";
  const resource = new URL(c.req.url).pathname;
  let code: S3ErrorCode;
  let message: string;
  if (error instanceof AppError) {
    code = s3CodeOf(error);
    message = error.message;
  } else if (error instanceof HTTPException && error.status < 500) {
    code = "InvalidRequest";
    message = error.message || ru.s3.unsupportedRequest;
  } else {
    console.error(
      JSON.stringify({ level: "error", requestId, method: c.req.method, path: resource, message: error.message, stack: error.stack }),
    );
    code = "InternalError";
    message = ru.errors.server;
  }
  const status = error instanceof AppError ? error.status : code === "InternalError" ? 500 : 400;
  return c.body(errorXml(code, message, resource, requestId), status as 400, {
    "Content-Type": XML_CONTENT_TYPE,
    "Cache-Control": "no-store",
  });
});
