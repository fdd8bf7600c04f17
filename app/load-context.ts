import type { RequestContext } from "../workers/services/access";

declare module "@remix-run/cloudflare" {
  interface AppLoadContext {
    /** The same per-request context the API uses: loaders call services with it. */
    rc: RequestContext;
    /** this response's Content-Security-Policy nonce: every inline script the page renders carries it */
    cspNonce: string;
    /** hands an error the page could not recover from to error tracking (a no-op without SENTRY_DSN) */
    reportError?: (error: unknown) => void;
  }
}

export {};
