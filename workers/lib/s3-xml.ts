import { AppError, type ErrorCode } from "./errors";

/**
 * The S3 wire format our S3-compatible upload endpoints speak (`/api/s3/…`): the XML answers Uppy's S3 client reads
 * (InitiateMultipartUploadResult, ListPartsResult, CompleteMultipartUploadResult, Error), the CompleteMultipartUpload
 * body it sends, and the error type that carries an S3 error code. Answers are `application/xml` exactly: Uppy only
 * parses an error body when the content type is that string.
 */

export const S3_XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/";
export const XML_CONTENT_TYPE = "application/xml";

/** S3 error codes we answer, with the HTTP status of each. */
export const S3_ERROR_STATUS = {
  AccessDenied: "FORBIDDEN",
  SignatureDoesNotMatch: "FORBIDDEN",
  NoSuchUpload: "NOT_FOUND",
  NoSuchKey: "NOT_FOUND",
  InvalidArgument: "BAD_REQUEST",
  InvalidRequest: "BAD_REQUEST",
  InvalidPart: "BAD_REQUEST",
  InvalidPartOrder: "BAD_REQUEST",
  EntityTooSmall: "BAD_REQUEST",
  EntityTooLarge: "BAD_REQUEST",
  IncompleteBody: "BAD_REQUEST",
  InvalidDigest: "BAD_REQUEST",
  BadDigest: "BAD_REQUEST",
  MalformedXML: "BAD_REQUEST",
  MissingContentLength: "LENGTH_REQUIRED",
  MethodNotAllowed: "METHOD_NOT_ALLOWED",
  OperationAborted: "CONFLICT",
  ServiceUnavailable: "SERVICE_UNAVAILABLE",
  InternalError: "INTERNAL_SERVER_ERROR",
} as const satisfies Record<string, ErrorCode>;

export type S3ErrorCode = keyof typeof S3_ERROR_STATUS;

/**
 * An error of the S3 endpoints: an AppError (so services may throw it anywhere) that also names its S3 code.
 * @example throw new S3Error("InvalidPartOrder", ru.s3.partOrder)
 */
export class S3Error extends AppError {
  constructor(readonly s3Code: S3ErrorCode, message: string) {
    super(S3_ERROR_STATUS[s3Code], message);
    this.name = "S3Error";
  }
}

/** The S3 code for an AppError thrown by shared code (access checks, the single-PUT core). */
export function s3CodeOf(error: AppError): S3ErrorCode {
  if (error instanceof S3Error) return error.s3Code;
  switch (error.status) {
    case 400:
      return "InvalidRequest";
    case 401:
    case 403:
      return "AccessDenied";
    case 404:
      return "NoSuchUpload";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "OperationAborted";
    case 411:
      return "MissingContentLength";
    case 413:
      return "EntityTooLarge";
    case 503:
      return "ServiceUnavailable";
    default:
      return "InternalError";
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Escapes text for an XML element. */
export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function unescapeXml(value: string): string {
  return value.replace(
    /&(quot|apos|lt|gt|amp|#34|#39);/g,
    (_, name: string) => ({ quot: '"', apos: "'", lt: "<", gt: ">", amp: "&", "#34": '"', "#39": "'" }[name] ?? ""),
  );
}

type XmlValue = string | number | boolean | XmlChildren;
interface XmlChildren {
  [name: string]: XmlValue | XmlValue[] | undefined;
}

/** `<Name>…</Name>` elements of a flat record; arrays repeat the element (`Part`), nested records nest. */
function elements(children: XmlChildren): string {
  let out = "";
  for (const [name, value] of Object.entries(children)) {
    if (value === undefined) continue;
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      out += typeof item === "object" ? `<${name}>${elements(item)}</${name}>` : `<${name}>${escapeXml(String(item))}</${name}>`;
    }
  }
  return out;
}

/** A whole XML document with one root element (in the S3 namespace unless `namespace` is false). */
export function xmlDocument(root: string, children: XmlChildren, namespace = true): string {
  const ns = namespace ? ` xmlns="${S3_XMLNS}"` : "";
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${ns}>${elements(children)}</${root}>`;
}

/** `<Error>` body of an S3 error answer. */
export function errorXml(code: S3ErrorCode, message: string, resource: string, requestId: string): string {
  return xmlDocument("Error", { Code: code, Message: message, Resource: resource, RequestId: requestId }, false);
}

/** An S3 etag as sent in headers and XML: the hex value in double quotes. */
export function quoteEtag(etag: string): string {
  return `"${etag}"`;
}

/** An etag as clients send it back: with or without quotes (plain or escaped), trimmed. */
export function normalizeEtag(etag: string): string {
  return etag.trim().replace(/^(?:"|&quot;|&#34;)+|(?:"|&quot;|&#34;)+$/g, "");
}

/** One entry of a CompleteMultipartUpload body. */
export interface CompletedPart {
  partNumber: number;
  etag: string;
}

const DECLARATION = /^\s*<\?xml[^?]*\?>/;
const ROOT = /^\s*<CompleteMultipartUpload(?:\s+[^>]*)?>([\s\S]*)<\/CompleteMultipartUpload>\s*$/;
const PART = /<Part>([\s\S]*?)<\/Part>/g;
const CHILD = /<([A-Za-z][\w.-]*)>([^<]*)<\/\1>/g;

/**
 * Parses a CompleteMultipartUpload body into its parts, in document order. Null when it is not that document: any
 * text outside `<Part>` elements, a part without a positive integer PartNumber or without an ETag. Checksum elements
 * inside a part are tolerated and ignored. The order and uniqueness of the part numbers are the caller's rules.
 * @example parseCompleteMultipartUpload("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"a\"</ETag></Part></CompleteMultipartUpload>")
 */
export function parseCompleteMultipartUpload(body: string): CompletedPart[] | null {
  const root = ROOT.exec(body.replace(DECLARATION, ""));
  if (!root) return null;
  const inner = root[1];
  const parts: CompletedPart[] = [];
  let rest = inner;
  for (const match of inner.matchAll(PART)) {
    const fields = new Map<string, string>();
    let leftover = match[1];
    for (const child of match[1].matchAll(CHILD)) {
      if (fields.has(child[1])) return null;
      fields.set(child[1], unescapeXml(child[2]).trim());
      leftover = leftover.replace(child[0], "");
    }
    if (leftover.trim() !== "") return null;
    const number = fields.get("PartNumber") ?? "";
    const etag = normalizeEtag(fields.get("ETag") ?? "");
    if (!/^\d{1,6}$/.test(number) || Number(number) < 1 || etag === "") return null;
    parts.push({ partNumber: Number(number), etag });
    rest = rest.replace(match[0], "");
  }
  if (rest.trim() !== "") return null;
  return parts;
}
