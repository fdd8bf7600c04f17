import { describe, expect, it } from "vitest";
import { decideCors, isLoopbackHost } from "../../helper/cors";
import { readConfig } from "../../helper/config";

const APP = "https://mam.example.com";
const req = (over: Partial<Parameters<typeof decideCors>[0]> = {}) => ({
  method: "GET",
  host: "127.0.0.1:18981",
  origin: APP,
  requestHeaders: null,
  requestPrivateNetwork: false,
  ...over,
});

describe("decideCors", () => {
  it("passes the app's requests with its origin allowed", () => {
    expect(decideCors(req(), APP, 18981)).toEqual({ kind: "pass", headers: { "access-control-allow-origin": APP, vary: "Origin" } });
  });

  it("refuses every other origin, also on a preflight", () => {
    expect(decideCors(req({ origin: "https://evil.example" }), APP, 18981)).toMatchObject({ kind: "refuse", status: 403 });
    expect(decideCors(req({ method: "OPTIONS", origin: "null", requestPrivateNetwork: true }), APP, 18981)).toMatchObject({ kind: "refuse" });
  });

  it("grants Private Network Access on the app's preflight that asks for it, and only then", () => {
    const asked = decideCors(req({ method: "OPTIONS", requestHeaders: "Content-Type", requestPrivateNetwork: true }), APP, 18981);
    expect(asked).toMatchObject({ kind: "preflight", headers: { "access-control-allow-private-network": "true", "access-control-allow-headers": "content-type" } });
    const plain = decideCors(req({ method: "OPTIONS" }), APP, 18981);
    expect(plain.kind).toBe("preflight");
    expect(plain.kind === "preflight" && plain.headers["access-control-allow-private-network"]).toBeUndefined();
  });

  it("refuses a preflight asking for headers the helper does not take", () => {
    expect(decideCors(req({ method: "OPTIONS", requestHeaders: "content-type, authorization" }), APP, 18981)).toMatchObject({ kind: "refuse" });
  });

  it("passes a request without Origin (a local tool, not a page) but refuses a preflight without one", () => {
    expect(decideCors(req({ origin: null }), APP, 18981)).toEqual({ kind: "pass", headers: {} });
    expect(decideCors(req({ origin: null, method: "OPTIONS" }), APP, 18981).kind).toBe("refuse");
  });

  it("refuses a host name other than the loopback one (DNS rebinding)", () => {
    expect(decideCors(req({ host: "evil.example:18981" }), APP, 18981)).toMatchObject({ kind: "refuse" });
    expect(isLoopbackHost("localhost:18981", 18981)).toBe(true);
    expect(isLoopbackHost("127.0.0.1:18982", 18981)).toBe(false);
    expect(isLoopbackHost(null, 18981)).toBe(false);
  });
});

describe("readConfig", () => {
  it("takes flags over environment over defaults, and the origin as the API's address", () => {
    const c = readConfig(["--root", "/tmp/m", "--origin", "https://mam.example.com/app"], { MAM_HELPER_PORT: "18990" });
    expect(c).toEqual({ root: "/tmp/m", port: 18990, origin: APP, api: APP, intervalMs: 5000 });
    expect(readConfig([], {}).port).toBe(18981);
  });

  it("refuses a bad port, origin or unknown flag", () => {
    expect(() => readConfig(["--port", "abc"], {})).toThrow();
    expect(() => readConfig(["--origin", "not a url"], {})).toThrow();
    expect(() => readConfig(["--what"], {})).toThrow();
  });
});
