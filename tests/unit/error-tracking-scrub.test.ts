import { describe, expect, it } from "vitest";
import {
  FILTERED,
  REPLAYS_ON_ERROR_SAMPLE_RATE,
  REPLAYS_SESSION_SAMPLE_RATE,
  TRACES_SAMPLE_RATE,
  scrubBreadcrumb,
  scrubEvent,
  scrubText,
} from "../../workers/lib/error-tracking-policy";

const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg";
const ROBOT = "mamr_Abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG";

describe("error tracking policy", () => {
  it("has SPEC §9's sample rates", () => {
    expect([TRACES_SAMPLE_RATE, REPLAYS_SESSION_SAMPLE_RATE, REPLAYS_ON_ERROR_SAMPLE_RATE]).toEqual([1, 0.1, 1]);
  });

  it("drops Authorization, cookies, bodies and every secret from an event's request", () => {
    const event = scrubEvent({
      request: {
        url: `https://mam.example/api/asset/content/stream/abc?u=1&exp=2&sig=deadbeef&p=3`,
        method: "POST",
        headers: { Authorization: `Bearer ${JWT}`, Cookie: "__Host-mam_refresh=r3fr3sh", "x-api-version": "1.0", "X-Api-Key": "k" },
        cookies: { "__Host-mam_refresh": "r3fr3sh" },
        data: { user: "anna", passwd: "hunter2" },
        query_string: "token=abc&page=2",
      },
      user: { id: "u1", email: "anna@example.com", ip_address: "203.0.113.9" },
    });
    expect(event.request).toEqual({
      url: `https://mam.example/api/asset/content/stream/abc?u=1&exp=2&sig=${FILTERED}&p=3`,
      method: "POST",
      headers: { Authorization: FILTERED, Cookie: FILTERED, "x-api-version": "1.0", "X-Api-Key": FILTERED },
      cookies: FILTERED,
      data: FILTERED,
      query_string: `token=${FILTERED}&page=2`,
    });
    expect(event.user).toEqual({ id: "u1" });
  });

  it("finds tokens, passwords and shortlink ids anywhere: messages, exceptions, extra data, breadcrumbs", () => {
    const event = scrubEvent({
      message: `login failed for Bearer ${JWT}`,
      exception: { values: [{ type: "Error", value: `robot ${ROBOT} refused; link /sl/AbCdEfGhIjKlMnOpQrStUv` }] },
      extra: { body: { password: "hunter2", nested: [{ refresh_token: "x" }, { note: JWT }] }, headers: [["authorization", "Basic Zm9v"]] },
      breadcrumbs: [{ category: "fetch", data: { url: "/api/wopi/files/1?access_token=secret-value" } }],
    });
    const text = JSON.stringify(event);
    for (const secret of [JWT, ROBOT, "hunter2", "AbCdEfGhIjKlMnOpQrStUv", "secret-value", "Zm9v", '"x"'])
      expect(text).not.toContain(secret);
    expect(event.message).toBe(`login failed for Bearer ${FILTERED}`);
    expect((event.exception as { values: { value: string }[] }).values[0].value).toBe(`robot ${FILTERED} refused; link /sl/${FILTERED}`);
    // what is not a secret stays, so the event is still useful
    expect(text).toContain("login failed for");
    expect(text).toContain("/api/wopi/files/1?access_token=");
  });

  it("scrubs breadcrumbs and plain text the same way, and survives cycles", () => {
    expect(scrubBreadcrumb({ message: `GET /api/auth/refresh cookie mam_refresh=abc123` })).toEqual({
      message: `GET /api/auth/refresh cookie mam_refresh=${FILTERED}`,
    });
    expect(scrubText("/api/auth/sso-cb/corp?code=c0de&state=s7ate&x=1")).toBe(
      `/api/auth/sso-cb/corp?code=${FILTERED}&state=${FILTERED}&x=1`,
    );
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    expect(scrubEvent(cyclic)).toEqual({ name: "loop", self: FILTERED });
  });

  it("does not change the event it was given", () => {
    const original = { request: { headers: { authorization: "Bearer abc" } } };
    scrubEvent(original);
    expect(original.request.headers.authorization).toBe("Bearer abc");
  });
});
