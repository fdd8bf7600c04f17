import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import { createApiApp } from "../../workers/api/app";
import { AppError } from "../../workers/lib/errors";
import { call, expectError, ORIGIN } from "./factories";

/** The API app with one extra route, called directly with the test env. */
async function fetchWithRoute(path: string, handler: () => Response | Promise<Response>, headers?: Record<string, string>) {
  const app = createApiApp();
  app.get(path, handler);
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${ORIGIN}${path}`, { headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("x-api-version and prefer-uldl-server headers", () => {
  it("answers every API call with x-api-version 1.0 and a request id", async () => {
    for (const path of ["/api/ping", "/api/version", "/api/auth/whoami", "/api/nope"]) {
      const res = await call(path);
      await res.body?.cancel();
      expect(res.headers.get("x-api-version"), path).toBe("1.0");
      expect(res.headers.get("x-request-id"), path).toMatch(/^[0-9a-f]{32}$/);
    }
  });

  it("accepts version 1.0 (and minor versions of 1)", async () => {
    expect((await call("/api/ping", { headers: { "x-api-version": "1.0" } })).status).toBe(200);
    expect((await call("/api/ping", { headers: { "x-api-version": "1.3" } })).status).toBe(200);
  });

  it.each(["2.0", "0.9", "banana", ""])("refuses x-api-version %j with 400", async (version) => {
    const error = await expectError(await call("/api/ping", { headers: { "x-api-version": version } }), 400);
    expect(error.message).toContain("«x-api-version»");
  });

  it("accepts a valid prefer-uldl-server and refuses an invalid one with 400", async () => {
    expect((await call("/api/ping", { headers: { "prefer-uldl-server": "eu-1.storage_2" } })).status).toBe(200);
    for (const bad of ["../etc", "a b", "x".repeat(65), "<script>"]) {
      const error = await expectError(await call("/api/ping", { headers: { "prefer-uldl-server": bad } }), 400);
      expect(error.message).toContain("«prefer-uldl-server»");
    }
  });

  it("uses cf-ray as the request id when present", async () => {
    const res = await call("/api/nope", { headers: { "cf-ray": "8f1e2d3c4b5a6978-AMS" } });
    expect(res.headers.get("x-request-id")).toBe("8f1e2d3c4b5a6978-AMS");
    expect(((await res.json()) as { requestId: string }).requestId).toBe("8f1e2d3c4b5a6978-AMS");
  });
});

describe("errors", () => {
  it("answers an unknown /api route with a 404 in the one error model", async () => {
    const error = await expectError(await call("/api/no/such/route", { method: "DELETE" }), 404);
    expect(error).toMatchObject({ statusCode: 404, error: "Not Found", message: ru.errors.routeNotFound("DELETE", "/api/no/such/route") });
    expect(Object.keys(error).sort()).toEqual(["error", "message", "requestId", "statusCode"]);
  });

  it("answers a wrong method on a known path with 404 JSON, not HTML", async () => {
    await expectError(await call("/api/auth/login"), 404);
  });

  it("turns an AppError into its status, message and headers", async () => {
    const res = await fetchWithRoute("/api/test-app-error", () => {
      throw new AppError("CONFLICT", "Уже существует", { "x-test": "1" });
    });
    expect(await expectError(res, 409)).toMatchObject({ message: "Уже существует", error: "Conflict" });
    expect(res.headers.get("x-test")).toBe("1");
  });

  it("answers an uncaught error with a generic 500 that leaks nothing, and logs it with the request id", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await fetchWithRoute(
      "/api/test-boom",
      () => {
        throw new Error("database password is hunter2 at /srv/secret.ts:42");
      },
      { "cf-ray": "boom-request-1" },
    );
    const text = await res.clone().text();
    const error = await expectError(res, 500);
    expect(error).toEqual({ statusCode: 500, message: ru.errors.server, error: "Internal Server Error", requestId: "boom-request-1" });
    expect(text).not.toMatch(/hunter2|secret\.ts|stack|Error:/);

    expect(logged).toHaveBeenCalledTimes(1);
    const entry = JSON.parse(String(logged.mock.calls[0][0])) as Record<string, string>;
    expect(entry).toMatchObject({ level: "error", requestId: "boom-request-1", method: "GET", path: "/api/test-boom" });
    expect(entry.message).toContain("hunter2");
  });
});
