import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Error codes of the API and the HTTP status each one answers with. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  GONE: 410,
  LENGTH_REQUIRED: 411,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  UNPROCESSABLE_ENTITY: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The `error` field: the standard reason phrase of the status. */
const REASON: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** JSON body of every error answer. */
export interface ErrorBody {
  statusCode: number;
  message: string;
  error: string;
  requestId?: string;
}

/**
 * The one error type services and handlers throw; the API's `onError` turns it into `ErrorBody`.
 * @example throw new AppError("NOT_FOUND", "Группа не найдена")
 */
export class AppError extends Error {
  readonly status: ContentfulStatusCode;
  constructor(readonly code: ErrorCode, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
    this.name = "AppError";
    this.status = ERROR_STATUS[code];
  }
}

/**
 * Whether the catalog refused a write because its library is being switched into its shard or lives there
 * (migration 0058's triggers raise LIBRARY_MOVING; D1 hands a trigger's refusal over as text only, in the error or,
 * for a statement Drizzle ran alone, in its cause).
 */
export function isLibraryMoving(error: unknown): boolean {
  return raised(error, /\bLIBRARY_MOVING\b/);
}

/** Whether a shard refused a write while a change across libraries holds it (decision 046: its hold triggers). */
export function isLibraryHeld(error: unknown): boolean {
  return raised(error, /\bLIBRARY_HELD\b/);
}

function raised(error: unknown, refusal: RegExp): boolean {
  // Drizzle wraps a single statement's failure ("Failed query: …") with D1's error as its cause.
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (refusal.test(e.message)) return true;
  }
  return false;
}

export function reasonPhrase(status: number): string {
  return REASON[status] ?? (status >= 500 ? "Internal Server Error" : "Error");
}

export function errorBody(status: number, message: string, requestId?: string): ErrorBody {
  return { statusCode: status, message, error: reasonPhrase(status), ...(requestId ? { requestId } : {}) };
}
