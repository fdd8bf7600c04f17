/** The helper's refusals, answered in the product's error model `{ statusCode, message, error }`. */
export class HelperError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
    this.name = "HelperError";
  }
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  500: "Internal Server Error",
  502: "Bad Gateway",
};

/** The error body for a status and message, with a request id (as the product's answers carry) to quote in a report. */
export function errorBody(status: number, message: string): { statusCode: number; message: string; error: string; requestId: string } {
  return { statusCode: status, message, error: REASONS[status] ?? "Error", requestId: crypto.randomUUID() };
}
