import { describe, expect, it } from "vitest";
import { applyBaseHeaders, applyPageHeaders, contentSecurityPolicy, isCrossSiteRequest, originOf, pageKind } from "../../workers/lib/security-headers";

const base = { nonce: "bm9uY2Utbm9uY2Utbm9uY2U=", reportUri: "/api/csp-report" };
const directive = (csp: string, name: string) => csp.split("; ").find((d) => d.startsWith(`${name} `));

describe("contentSecurityPolicy", () => {
  it("allows scripts only from self and the nonce, and forbids plugins, base changes and framing", () => {
    const csp = contentSecurityPolicy({ ...base, kind: "app" });
    expect(directive(csp, "script-src")).toBe(`script-src 'self' 'nonce-${base.nonce}'`);
    expect(directive(csp, "object-src")).toBe("object-src 'none'");
    expect(directive(csp, "base-uri")).toBe("base-uri 'none'");
    expect(directive(csp, "frame-ancestors")).toBe("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-eval/);
    expect(directive(csp, "report-to")).toBe("report-to csp");
  });

  it("lets the upload/download servers be fetched from and played", () => {
    const csp = contentSecurityPolicy({ ...base, kind: "app", connectOrigins: ["https://ul1.example.com"] });
    expect(directive(csp, "connect-src")).toBe("connect-src 'self' https://ul1.example.com");
    expect(directive(csp, "media-src")).toContain("https://ul1.example.com");
  });

  it("lets the browser reach the error tracker's origin in connect-src only, and only when configured", () => {
    const on = contentSecurityPolicy({ ...base, kind: "app", errorTrackingOrigin: "https://o1.ingest.sentry.io" });
    expect(directive(on, "connect-src")).toBe("connect-src 'self' https://o1.ingest.sentry.io");
    expect(on.replace(directive(on, "connect-src")!, "")).not.toContain("sentry.io");
    expect(directive(contentSecurityPolicy({ ...base, kind: "app" }), "connect-src")).toBe("connect-src 'self'");
  });

  it("lets the app's pages call the local disk helper (connect-src only), and no other kind of page", () => {
    const app = contentSecurityPolicy({ ...base, kind: "app", diskHelperOrigin: "http://127.0.0.1:18981" });
    expect(directive(app, "connect-src")).toBe("connect-src 'self' http://127.0.0.1:18981");
    expect(app.replace(directive(app, "connect-src")!, "")).not.toContain("127.0.0.1");
    const shared = contentSecurityPolicy({ ...base, kind: "shortlink", diskHelperOrigin: "http://127.0.0.1:18981" });
    expect(directive(shared, "connect-src")).toBe("connect-src 'self'");
  });

  it("frames and posts to the office server only on the editor page", () => {
    const editor = contentSecurityPolicy({ ...base, kind: "editor", editorOrigin: "https://office.example.com" });
    expect(directive(editor, "frame-src")).toContain("https://office.example.com");
    expect(directive(editor, "form-action")).toBe("form-action 'self' https://office.example.com");
    const m365 = contentSecurityPolicy({ ...base, kind: "editor", editorOrigin: "https://onenote.officeapps.live.com" });
    expect(directive(m365, "frame-src")).toContain("https://*.officeapps.live.com");
    expect(directive(m365, "form-action")).toBe("form-action 'self' https://*.officeapps.live.com");
    const app = contentSecurityPolicy({ ...base, kind: "app", editorOrigin: "https://office.example.com" });
    expect(app).not.toContain("office.example.com");
  });

  it("lets listed origins frame /sl pages, and only those", () => {
    const sl = contentSecurityPolicy({ ...base, kind: "shortlink", shortlinkFrameAncestors: ["https://blog.example.com"] });
    expect(directive(sl, "frame-ancestors")).toBe("frame-ancestors https://blog.example.com");
    const app = contentSecurityPolicy({ ...base, kind: "app", shortlinkFrameAncestors: ["https://blog.example.com"] });
    expect(directive(app, "frame-ancestors")).toBe("frame-ancestors 'none'");
  });
});

describe("page and base headers", () => {
  it("an embeddable /sl page drops X-Frame-Options (it cannot name origins); others deny", () => {
    const sl = new Headers();
    applyPageHeaders(sl, new URL("https://mam.test/sl/x"), { ...base, kind: "shortlink", shortlinkFrameAncestors: ["https://blog.example.com"] });
    expect(sl.get("x-frame-options")).toBeNull();
    const app = new Headers();
    applyPageHeaders(app, new URL("http://mam.test/mam"), { ...base, kind: "app" });
    expect(app.get("x-frame-options")).toBe("DENY");
    expect(app.get("strict-transport-security")).toBeNull();
  });

  it("keeps a framing rule an answer already set", () => {
    const headers = new Headers({ "X-Frame-Options": "DENY" });
    applyBaseHeaders(headers, new URL("https://mam.test/api/x"), "SAMEORIGIN");
    expect(headers.get("x-frame-options")).toBe("DENY");
    expect(headers.get("strict-transport-security")).toMatch(/max-age=31536000/);
  });
});

describe("isCrossSiteRequest", () => {
  const req = (headers: Record<string, string>) => new Request("https://mam.test/mam", { method: "POST", headers });
  it("trusts same-origin and header-less requests", () => {
    expect(isCrossSiteRequest(req({ origin: "https://mam.test", "sec-fetch-site": "same-origin" }))).toBe(false);
    expect(isCrossSiteRequest(req({}))).toBe(false);
    expect(isCrossSiteRequest(req({ "sec-fetch-site": "none" }))).toBe(false);
  });
  it("refuses other sites, sibling subdomains and opaque origins", () => {
    expect(isCrossSiteRequest(req({ "sec-fetch-site": "cross-site" }))).toBe(true);
    expect(isCrossSiteRequest(req({ "sec-fetch-site": "same-site" }))).toBe(true);
    expect(isCrossSiteRequest(req({ origin: "https://evil.example" }))).toBe(true);
    expect(isCrossSiteRequest(req({ origin: "null" }))).toBe(true);
    expect(isCrossSiteRequest(req({ origin: "http://mam.test" }))).toBe(true);
  });
});

describe("helpers", () => {
  it("originOf keeps http(s) origins only", () => {
    expect(originOf("https://office.example.com/hosting/discovery")).toBe("https://office.example.com");
    expect(originOf("javascript:alert(1)")).toBeUndefined();
    expect(originOf("not a url")).toBeUndefined();
    expect(originOf(undefined)).toBeUndefined();
  });
  it("pageKind", () => {
    expect(pageKind("/editor/abc")).toBe("editor");
    expect(pageKind("/sl/abc")).toBe("shortlink");
    expect(pageKind("/mam")).toBe("app");
  });
});
