import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { apiRequest } from "../../app/lib/api-client";
import { ACCESS_TOKEN_KEY, EXPIRE_TOKEN_KEY } from "../../app/lib/tokens";

/**
 * SPEC §7: "login, refresh, logout and the SSO calls carry no bearer" (issue 29, item 6). The UI's one API client
 * must not attach the access token it has stored to those calls; every other call still carries it.
 */

const sent: { path: string; authorization: string | null }[] = [];

beforeEach(() => {
  const store = new Map<string, string>([
    [ACCESS_TOKEN_KEY, "stored.access.token"],
    [EXPIRE_TOKEN_KEY, new Date(Date.now() + 10 * 60_000).toISOString()],
  ]);
  vi.stubGlobal("window", { location: { origin: "https://mam.test" } });
  vi.stubGlobal("localStorage", {
    getItem: (k: string) => store.get(k) ?? null,
    setItem: (k: string, v: string) => void store.set(k, v),
    removeItem: (k: string) => void store.delete(k),
  });
  vi.stubGlobal("fetch", async (url: URL, init: RequestInit) => {
    sent.push({ path: new URL(url).pathname, authorization: new Headers(init.headers).get("authorization") });
    const body = JSON.stringify({ bearer: "new.access.token", expire: new Date(Date.now() + 900_000).toISOString() });
    return new Response(url.pathname === "/api/auth/logout" ? null : body, {
      status: url.pathname === "/api/auth/logout" ? 204 : 200,
      headers: { "content-type": "application/json" },
    });
  });
  sent.length = 0;
});

afterEach(() => vi.unstubAllGlobals());

describe("the API client and the calls SPEC sends without a bearer", () => {
  it.each(["/api/auth/login", "/api/auth/logout", "/api/auth/exchange-token", "/api/auth/token-owner"])("%s goes without the stored bearer", async (path) => {
    await apiRequest(path, { method: path === "/api/auth/logout" ? "GET" : "POST", body: path === "/api/auth/logout" ? undefined : {} });
    expect(sent).toEqual([{ path, authorization: null }]);
  });

  it("any other call carries the stored bearer", async () => {
    await apiRequest("/api/auth/whoami");
    expect(sent).toEqual([{ path: "/api/auth/whoami", authorization: "Bearer stored.access.token" }]);
  });
});
