import { describe, expect, it } from "vitest";
import { call, signIn } from "./factories";

// Remix pages rendered by the same Worker (everything outside /api, /metrics and /internal). Kept few on purpose:
// the screens themselves are covered by the end-to-end tier.
describe("pages through the Worker", () => {
  it("redirects / to /mam", async () => {
    const res = await call("/");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/mam");
  });

  it("sends an anonymous visitor of /mam to the login screen with the way back", async () => {
    const res = await call("/mam");
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get("location")).toBe("/login?to=%2Fmam");
  });

  it("renders /mam for a signed-in user (session cookie)", async () => {
    const user = await signIn();
    const res = await call("/mam", { refresh: user.refresh });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    await res.body?.cancel();
  });

  it("renders the login screen for an anonymous visitor", async () => {
    const res = await call("/login?to=%2Fmam");
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/<html[^>]*lang="ru"/);
  });
});
