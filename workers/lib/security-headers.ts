/**
 * The browser-side policy of every HTML answer (pages, error pages, 404s, the API reference) and the framing and
 * sniffing guards of every other answer. Pure: the Worker entry and the API app call it with what they know.
 * See docs/security.md for what each header defends.
 */

/** Where a page's policy differs from the app's default. */
export type PageKind = "app" | "editor" | "shortlink" | "api-docs";

export interface PagePolicyOptions {
  /** a fresh per-response nonce for inline scripts (Remix's hydration data, the API reference's boot script) */
  nonce: string;
  kind: PageKind;
  /** origins of the configured upload/download servers and any other endpoint the page may fetch from */
  connectOrigins?: readonly string[];
  /** the local disk helper on the user's computer (http://127.0.0.1:18981): the folder action calls it (connect-src only) */
  diskHelperOrigin?: string;
  /** the configured Sentry DSN's origin: the browser SDK sends events there (connect-src only) */
  errorTrackingOrigin?: string;
  /** the configured WOPI editor's origin: the /editor page may frame it and post its form to it */
  editorOrigin?: string;
  /** origins that may frame /sl pages (SL_FRAME_ANCESTORS); none by default */
  shortlinkFrameAncestors?: readonly string[];
  /** where browsers send violation reports */
  reportUri: string;
}

/** The path browsers post CSP violation reports to (logged by the Worker). */
export const CSP_REPORT_PATH = "/api/csp-report";

/** 128 random bits, base64: a nonce no injected markup can guess. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/** The origin of a URL, or undefined when it is not an absolute http(s) URL. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Microsoft 365 for the web publishes discovery on one host and edits on others (word-edit., excel., …). */
const M365_EDITOR_DOMAIN = "officeapps.live.com";

/** Where the /editor page may frame and post: the editor's origin, or every M365 editing host for M365. */
function editorFrameSources(editorOrigin: string): string[] {
  const host = new URL(editorOrigin).hostname;
  return host === M365_EDITOR_DOMAIN || host.endsWith(`.${M365_EDITOR_DOMAIN}`) ? [`https://*.${M365_EDITOR_DOMAIN}`] : [editorOrigin];
}

/**
 * The Content-Security-Policy of an HTML page. Scripts run only from our origin or with this response's nonce
 * (no 'unsafe-inline', no 'unsafe-eval'); styles allow inline attributes because React renders `style=` props
 * and Uppy injects its own (a style cannot run code); nothing may frame the app.
 */
export function contentSecurityPolicy(options: PagePolicyOptions): string {
  const { nonce, kind, editorOrigin } = options;
  const connect = [
    "'self'",
    ...(options.connectOrigins ?? []),
    ...(options.errorTrackingOrigin ? [options.errorTrackingOrigin] : []),
    ...(kind === "app" && options.diskHelperOrigin ? [options.diskHelperOrigin] : []),
  ];
  const media = ["'self'", "blob:", "data:", ...(options.connectOrigins ?? [])];
  const frameAncestors = kind === "shortlink" && options.shortlinkFrameAncestors?.length ? options.shortlinkFrameAncestors : ["'none'"];
  const editorFrame = kind === "editor" && editorOrigin ? editorFrameSources(editorOrigin) : [];
  const directives: [string, string[]][] = [
    ["default-src", ["'self'"]],
    ["script-src", ["'self'", `'nonce-${nonce}'`]],
    ["style-src", ["'self'", "'unsafe-inline'"]],
    ["img-src", media],
    ["media-src", media],
    ["font-src", ["'self'", "data:"]],
    ["connect-src", connect],
    ["worker-src", ["'self'", "blob:"]],
    // PDFs and text previews open in same-origin frames; the editor adds its office server
    ["frame-src", ["'self'", "blob:", ...editorFrame]],
    ["frame-ancestors", [...frameAncestors]],
    ["form-action", ["'self'", ...editorFrame]],
    ["object-src", ["'none'"]],
    ["base-uri", ["'none'"]],
    ["manifest-src", ["'self'"]],
    ["report-uri", [options.reportUri]],
    ["report-to", ["csp"]],
  ];
  return directives.map(([name, values]) => `${name} ${values.join(" ")}`).join("; ");
}

/** Features no screen uses are switched off for the page and anything it frames. */
export const PERMISSIONS_POLICY = [
  "accelerometer=()",
  "camera=()",
  "geolocation=()",
  "gyroscope=()",
  "magnetometer=()",
  "microphone=()",
  "payment=()",
  "usb=()",
  "interest-cohort=()",
  "fullscreen=(self)",
  "clipboard-write=(self)",
].join(", ");

/** HSTS for a year, only when the request came over https (a plain-http local run must stay reachable). */
export const HSTS = "max-age=31536000; includeSubDomains";

/**
 * Headers every answer carries: no MIME sniffing, no referrer path to other sites, HSTS over https, and a framing
 * rule (pages: DENY; API answers: SAMEORIGIN, because the viewer frames a PDF's play link).
 */
export function applyBaseHeaders(headers: Headers, requestUrl: URL, framing: "DENY" | "SAMEORIGIN" = "DENY"): void {
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  if (!headers.has("X-Frame-Options")) headers.set("X-Frame-Options", framing);
  if (requestUrl.protocol === "https:") headers.set("Strict-Transport-Security", HSTS);
}

/** The whole set for an HTML page: CSP with its nonce, framing, isolation, permissions, reporting. */
export function applyPageHeaders(headers: Headers, requestUrl: URL, options: PagePolicyOptions): void {
  headers.set("Content-Security-Policy", contentSecurityPolicy(options));
  // an embeddable /sl page relies on frame-ancestors alone: X-Frame-Options cannot name other origins
  const embeddable = options.kind === "shortlink" && (options.shortlinkFrameAncestors?.length ?? 0) > 0;
  headers.delete("X-Frame-Options");
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Permissions-Policy", PERMISSIONS_POLICY);
  headers.set("Reporting-Endpoints", `csp="${options.reportUri}"`);
  applyBaseHeaders(headers, requestUrl);
  if (embeddable) headers.delete("X-Frame-Options");
}

/** Which policy a page path gets. */
export function pageKind(pathname: string): PageKind {
  if (pathname.startsWith("/editor/")) return "editor";
  if (pathname.startsWith("/sl/")) return "shortlink";
  if (pathname === "/api/docs" || pathname === "/api/docs/") return "api-docs";
  return "app";
}

/**
 * A browser request that comes from another site, by the Fetch Metadata or Origin headers it sends. Requests
 * without either (curl, robots, old browsers without Sec-Fetch-Site sending no Origin on GET) are not cross-site.
 */
export function isCrossSiteRequest(request: Request): boolean {
  const fetchSite = request.headers.get("sec-fetch-site");
  if (fetchSite === "cross-site" || fetchSite === "same-site") return true;
  const origin = request.headers.get("origin");
  if (!origin) return false;
  return origin === "null" || origin !== new URL(request.url).origin;
}
