import { describe, expect, it } from "vitest";
import { getConfig } from "../../workers/lib/config";

const env = (vars: Record<string, string>) => vars as unknown as Env;
const SECRET = "x".repeat(32);

describe("getConfig", () => {
  it("applies defaults and coerces numbers", () => {
    expect(getConfig(env({ JWT_SECRET: SECRET, ACCESS_TOKEN_TTL_SECONDS: "600" }))).toMatchObject({
      ADMIN_LOGIN: "admin",
      JWT_ISSUER: "edge-mam",
      JWT_AUDIENCE: "edge-mam-api",
      ACCESS_TOKEN_TTL_SECONDS: 600,
      REFRESH_TOKEN_TTL_SECONDS: 2_592_000,
      ULDL_SERVERS: [],
      SSO_PROVIDERS: [],
    });
  });

  it("leaves optional secrets unset", () => {
    const config = getConfig(env({ JWT_SECRET: SECRET }));
    expect(config.METRICS_TOKEN).toBeUndefined();
    expect(config.ADMIN_PASSWORD).toBeUndefined();
  });

  it("puts the local disk helper on SPEC's loopback port unless told, and only ever on a loopback address", () => {
    expect(getConfig(env({ JWT_SECRET: SECRET })).DISK_HELPER_URL).toBe("http://127.0.0.1:18981");
    expect(getConfig(env({ JWT_SECRET: SECRET, DISK_HELPER_URL: "http://127.0.0.1:18995" })).DISK_HELPER_URL).toBe("http://127.0.0.1:18995");
    expect(() => getConfig(env({ JWT_SECRET: SECRET, DISK_HELPER_URL: "https://evil.example" }))).toThrow(/DISK_HELPER_URL/);
  });

  it("takes a map tile server only as an https template with {z}, {x} and {y}; anything else leaves the offline map", () => {
    const tiles = (value: string) => getConfig(env({ JWT_SECRET: SECRET, MAP_TILE_URL: value })).MAP_TILE_URL;
    expect(tiles("https://tiles.example.org/{z}/{x}/{y}.png")).toBe("https://tiles.example.org/{z}/{x}/{y}.png");
    expect(tiles("http://tiles.example.org/{z}/{x}/{y}.png")).toBeUndefined();
    expect(tiles("https://tiles.example.org/{z}/{x}.png")).toBeUndefined();
    expect(tiles("javascript:alert(1)//{z}{x}{y}")).toBeUndefined();
    expect(tiles("  ")).toBeUndefined();
    expect(getConfig(env({ JWT_SECRET: SECRET })).MAP_TILE_URL).toBeUndefined();
  });

  it("takes a Sentry DSN, leaves an empty one unset, and refuses what is not a DSN", () => {
    expect(getConfig(env({ JWT_SECRET: SECRET })).SENTRY_DSN).toBeUndefined();
    expect(getConfig(env({ JWT_SECRET: SECRET, SENTRY_DSN: " " })).SENTRY_DSN).toBeUndefined();
    const dsn = "https://0123abcd@o42.ingest.sentry.io/4508";
    expect(getConfig(env({ JWT_SECRET: SECRET, SENTRY_DSN: dsn })).SENTRY_DSN).toBe(dsn);
    expect(getConfig(env({ JWT_SECRET: SECRET, SENTRY_DSN: "http://key@127.0.0.1:8843/7" })).SENTRY_DSN).toBe("http://key@127.0.0.1:8843/7");
    for (const bad of ["https://o42.ingest.sentry.io/4508", "sentry", "ftp://k@host/1", "https://k@host/project"]) {
      expect(() => getConfig(env({ JWT_SECRET: SECRET, SENTRY_DSN: bad }))).toThrow(/SENTRY_DSN/);
    }
  });

  it("refuses a short JWT secret", () => {
    expect(() => getConfig(env({ JWT_SECRET: "short" }))).toThrow(/JWT_SECRET/);
    expect(() => getConfig(env({}))).toThrow();
  });

  it("treats an empty METRICS_TOKEN as unset", () => {
    expect(getConfig(env({ JWT_SECRET: SECRET, METRICS_TOKEN: "" })).METRICS_TOKEN).toBeUndefined();
    expect(getConfig(env({ JWT_SECRET: SECRET, METRICS_TOKEN: "t" })).METRICS_TOKEN).toBe("t");
  });

  it("parses ULDL_SERVERS and refuses invalid entries", () => {
    const servers = [{ id: "eu-1", url: "https://eu.example/api" }];
    expect(getConfig(env({ JWT_SECRET: SECRET, ULDL_SERVERS: JSON.stringify(servers) })).ULDL_SERVERS).toEqual(servers);
    expect(() => getConfig(env({ JWT_SECRET: SECRET, ULDL_SERVERS: "not json" }))).toThrow(/ULDL_SERVERS/);
    expect(() => getConfig(env({ JWT_SECRET: SECRET, ULDL_SERVERS: JSON.stringify([{ id: "a b", url: "https://x" }]) }))).toThrow(
      /ULDL_SERVERS/,
    );
  });

  it("is memoised per env object", () => {
    const e = env({ JWT_SECRET: SECRET });
    expect(getConfig(e)).toBe(getConfig(e));
  });
});
