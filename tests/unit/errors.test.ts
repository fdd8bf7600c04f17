import { describe, expect, it } from "vitest";
import { AppError, ERROR_STATUS, errorBody, isLibraryMoving, reasonPhrase } from "../../workers/lib/errors";

describe("AppError", () => {
  it.each(Object.entries(ERROR_STATUS))("maps %s to %i", (code, status) => {
    const error = new AppError(code as keyof typeof ERROR_STATUS, "сообщение");
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.message).toBe("сообщение");
    expect(error.name).toBe("AppError");
    expect(error).toBeInstanceOf(Error);
    expect(error.headers).toEqual({});
  });

  it("carries extra answer headers", () => {
    expect(new AppError("TOO_MANY_REQUESTS", "подождите", { "Retry-After": "30" }).headers).toEqual({ "Retry-After": "30" });
  });
});

describe("reasonPhrase", () => {
  it("names every mapped status", () => {
    for (const status of Object.values(ERROR_STATUS)) expect(reasonPhrase(status)).not.toBe("Error");
    expect(reasonPhrase(404)).toBe("Not Found");
    expect(reasonPhrase(429)).toBe("Too Many Requests");
  });

  it("falls back for unknown statuses", () => {
    expect(reasonPhrase(418)).toBe("Error");
    expect(reasonPhrase(502)).toBe("Internal Server Error");
  });
});

describe("errorBody", () => {
  it("is the one error shape, with the request id when known", () => {
    expect(errorBody(401, "Требуется вход", "abc")).toEqual({
      statusCode: 401,
      message: "Требуется вход",
      error: "Unauthorized",
      requestId: "abc",
    });
    expect(errorBody(400, "x")).toEqual({ statusCode: 400, message: "x", error: "Bad Request" });
    expect(errorBody(400, "x")).not.toHaveProperty("requestId");
  });
});

describe("isLibraryMoving", () => {
  it("finds the catalog's refusal in the error or in the cause Drizzle wraps it in, and nothing else", () => {
    const refusal = new Error("D1_ERROR: LIBRARY_MOVING: SQLITE_CONSTRAINT");
    expect(isLibraryMoving(refusal)).toBe(true);
    expect(isLibraryMoving(new Error("Failed query: update variants …", { cause: refusal }))).toBe(true);
    expect(isLibraryMoving(new Error("Failed query: update variants …", { cause: new Error("UNIQUE constraint failed") }))).toBe(false);
    expect(isLibraryMoving(new Error("NOT_LIBRARY_MOVINGS"))).toBe(false);
    expect(isLibraryMoving("LIBRARY_MOVING")).toBe(false);
  });
});
