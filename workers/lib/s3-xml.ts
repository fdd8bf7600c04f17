import { SaxesParser } from "saxes";
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

/** Thrown inside the parser's handlers to stop at the first thing that is not a CompleteMultipartUpload. */
class NotCompleteMultipartUpload extends Error {}

/**
 * Parses a CompleteMultipartUpload body into its parts, in document order. Null when it is not that document: any
 * other root, text outside `<Part>` elements, an element nested deeper than a part's fields, a repeated field, a part
 * without a positive integer PartNumber or without an ETag, a DOCTYPE, or XML that does not parse. Checksum elements
 * inside a part are tolerated and ignored. The order and uniqueness of the part numbers are the caller's rules.
 * Decided on the parsed document (saxes, one linear pass): the regular expressions this replaced rescanned the rest
 * of the body from every unclosed `<Part>`, so 1.5 MB of them took a minute of CPU.
 * @example parseCompleteMultipartUpload("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"a\"</ETag></Part></CompleteMultipartUpload>")
 */
export function parseCompleteMultipartUpload(body: string): CompletedPart[] | null {
  const parts: CompletedPart[] = [];
  const parser = new SaxesParser();
  const refuse = (): never => {
    throw new NotCompleteMultipartUpload();
  };
  /** open elements: root, Part, field */
  let depth = 0;
  let fields = new Map<string, string>();
  let text = "";
  parser.on("doctype", refuse);
  parser.on("opentag", (tag) => {
    depth++;
    if (depth === 1 && tag.name !== "CompleteMultipartUpload") refuse();
    if (depth === 2) {
      if (tag.name !== "Part") refuse();
      fields = new Map();
    }
    if (depth === 3) text = "";
    if (depth > 3) refuse();
  });
  const onText = (value: string) => {
    if (depth === 3) text += value;
    else if (value.trim() !== "") refuse();
  };
  parser.on("text", onText);
  parser.on("cdata", onText);
  parser.on("closetag", (tag) => {
    if (depth === 3) {
      if (fields.has(tag.name)) refuse();
      fields.set(tag.name, text.trim());
    } else if (depth === 2) {
      const number = fields.get("PartNumber") ?? "";
      const etag = normalizeEtag(fields.get("ETag") ?? "");
      if (!/^\d{1,6}$/.test(number) || Number(number) < 1 || etag === "") refuse();
      parts.push({ partNumber: Number(number), etag });
    }
    depth--;
  });
  try {
    parser.write(body.trimStart()).close();
  } catch {
    // Either our refusal or the parser's own error (not well-formed XML): both mean "not that document".
    return null;
  }
  return depth === 0 ? parts : null;
}
