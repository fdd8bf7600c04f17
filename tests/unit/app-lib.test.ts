import { afterEach, describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import { ApiError, describeError, errorMessage } from "../../app/lib/api-error";
import { guardRedirect, isAdminPath, loginRedirect, safeReturnPath } from "../../app/lib/guard";
import {
  ACCESS_TOKEN_KEY,
  clearTokens,
  EXPIRE_TOKEN_KEY,
  jwtExpiry,
  needsRefresh,
  readTokens,
  REFRESH_THRESHOLD_MS,
  storeTokens,
} from "../../app/lib/tokens";

// Pure browser-side modules of the UI (app/lib): the navigation guard, token expiry maths and error mapping.

describe("guardRedirect (SPEC §2 navigation guard)", () => {
  const user = { isAdmin: false };
  const admin = { isAdmin: true };

  it("sends anonymous visitors to /login with the wanted path", () => {
    expect(guardRedirect({ pathname: "/mam", search: "", user: null })).toBe("/login?to=%2Fmam");
    expect(guardRedirect({ pathname: "/mam/abc", search: "?page=2", user: null })).toBe(
      `/login?to=${encodeURIComponent("/mam/abc?page=2")}`,
    );
  });

  it("lets short links through for everyone", () => {
    expect(guardRedirect({ pathname: "/sl/xyz", search: "", user: null })).toBeNull();
  });

  it("shows the login screen to anonymous visitors and sends signed-in users to /mam", () => {
    expect(guardRedirect({ pathname: "/login", search: "", user: null })).toBeNull();
    expect(guardRedirect({ pathname: "/login", search: "", user })).toBe("/mam");
    expect(guardRedirect({ pathname: "/login", search: "?token=abc", user })).toBeNull(); // a one-time token to trade
  });

  it("keeps /admin for administrators", () => {
    expect(guardRedirect({ pathname: "/admin", search: "", user })).toBe("/mam");
    expect(guardRedirect({ pathname: "/admin/groups", search: "", user })).toBe("/mam");
    expect(guardRedirect({ pathname: "/admin/groups", search: "", user: admin })).toBeNull();
    expect(guardRedirect({ pathname: "/administrator", search: "", user })).toBeNull();
  });

  it("lets signed-in users reach ordinary screens", () => {
    expect(guardRedirect({ pathname: "/mam", search: "", user })).toBeNull();
  });
});

describe("guard helpers", () => {
  it("recognises admin paths exactly", () => {
    expect(isAdminPath("/admin")).toBe(true);
    expect(isAdminPath("/admin/user/1")).toBe(true);
    expect(isAdminPath("/admins")).toBe(false);
    expect(isAdminPath("/mam/admin")).toBe(false);
  });

  it("builds the login redirect", () => {
    expect(loginRedirect("/jobs", "?x=1&y=2")).toBe("/login?to=%2Fjobs%3Fx%3D1%26y%3D2");
  });

  it.each([
    [null, "/mam"],
    ["", "/mam"],
    ["/jobs?x=1", "/jobs?x=1"],
    ["//evil.example/path", "/mam"],
    ["/\\evil.example", "/mam"],
    ["https://evil.example", "/mam"],
    ["javascript:alert(1)", "/mam"],
    ["/login?to=/x", "/mam"],
    // a browser drops tabs and line breaks while parsing and reads \ as /: each of these would open evil.example
    ["/\t/evil.example", "/mam"],
    ["/\n/evil.example", "/mam"],
    ["/\r\n/evil.example", "/mam"],
    ["/x\\..\\\\evil.example", "/mam"],
    ["/папка/файл?x=1#y", "/папка/файл?x=1#y"],
  ])("safeReturnPath(%j) is %j: never off-site", (to, expected) => {
    expect(safeReturnPath(to)).toBe(expected);
  });
});

describe("token expiry", () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);
  const iso = (ms: number) => new Date(ms).toISOString();

  it("needs a refresh when missing, unreadable, expired or close to expiry", () => {
    expect(needsRefresh(null, now)).toBe(true);
    expect(needsRefresh("soon", now)).toBe(true);
    expect(needsRefresh(iso(now - 1), now)).toBe(true);
    expect(needsRefresh(iso(now + REFRESH_THRESHOLD_MS), now)).toBe(true);
    expect(needsRefresh(iso(now + REFRESH_THRESHOLD_MS + 1000), now)).toBe(false);
    expect(needsRefresh(iso(now + 15 * 60_000), now)).toBe(false);
  });

  it("refreshes two minutes ahead (SPEC §9)", () => {
    expect(REFRESH_THRESHOLD_MS).toBe(120_000);
  });

  it("reads a JWT's exp without verifying it", () => {
    const payload = Buffer.from(JSON.stringify({ sub: "u", exp: 1_795_300_000 })).toString("base64url");
    expect(jwtExpiry(`eyJhbGciOiJIUzI1NiJ9.${payload}.sig`)).toBe(new Date(1_795_300_000_000).toISOString());
  });

  it.each([
    "",
    "abc",
    "a.!!!.c",
    `a.${Buffer.from('{"exp":"tomorrow"}').toString("base64url")}.c`,
    `a.${Buffer.from("[1]").toString("base64url")}.c`,
  ])("jwtExpiry(%j) is null", (token) => {
    expect(jwtExpiry(token)).toBeNull();
  });
});

describe("token storage", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("answers nulls where there is no localStorage (server rendering)", () => {
    expect(readTokens()).toEqual({ bearer: null, expire: null });
  });

  it("keeps the access token under the SPEC §9 keys", () => {
    const store = new Map<string, string>();
    vi.stubGlobal("localStorage", {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
    });
    storeTokens({ bearer: "jwt", expire: "2026-11-22T12:15:00.000Z" });
    expect(store.get(ACCESS_TOKEN_KEY)).toBe("jwt");
    expect(store.get(EXPIRE_TOKEN_KEY)).toBe("2026-11-22T12:15:00.000Z");
    expect([ACCESS_TOKEN_KEY, EXPIRE_TOKEN_KEY]).toEqual(["accessToken", "expireToken"]);
    expect(readTokens()).toEqual({ bearer: "jwt", expire: "2026-11-22T12:15:00.000Z" });
    clearTokens();
    expect(readTokens()).toEqual({ bearer: null, expire: null });
  });
});

describe("error mapping (SPEC §8)", () => {
  it("prefers the API's message", () => {
    expect(errorMessage(400, { statusCode: 400, message: "Поле «user»: обязательное поле", error: "Bad Request" })).toBe(
      "Поле «user»: обязательное поле",
    );
  });

  it("falls back to 'HTTP {code}: {text}' for plain-text bodies, trimmed and shortened", () => {
    expect(errorMessage(502, "  Bad gateway  ")).toBe(ru.errors.http(502, "Bad gateway"));
    expect(errorMessage(400, "x".repeat(1000))).toBe(ru.errors.http(400, "x".repeat(300)));
  });

  it("uses the server error text for 5xx without a body", () => {
    expect(errorMessage(500, null)).toBe(ru.errors.server);
    expect(errorMessage(503, { message: "" })).toBe(ru.errors.server);
  });

  it("uses the status text, or 'unknown', for other statuses", () => {
    expect(errorMessage(404, undefined, "Not Found")).toBe(ru.errors.http(404, "Not Found"));
    expect(errorMessage(404, undefined)).toBe(ru.errors.http(404, ru.errors.unknown));
    expect(errorMessage(0, undefined)).toBe(ru.errors.unknown);
  });

  it("describes anything thrown", () => {
    expect(describeError(new ApiError(401, {}, "Требуется вход"))).toBe("Требуется вход");
    expect(describeError(new Error("boom"))).toBe("boom");
    expect(describeError(new Error(""))).toBe(ru.errors.unknown);
    expect(describeError("text")).toBe("text");
    expect(describeError({ a: 1 })).toBe('{"a":1}');
    expect(describeError(undefined)).toBe(ru.errors.unknown);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeError(cyclic)).toBe(ru.errors.serialize);
  });
});
