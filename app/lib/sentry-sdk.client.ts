/**
 * The browser SDK, loaded on demand. A `.client` module is left out of the server build: inlined there, the SDK's
 * dynamic import added half a megabyte to the Worker's Remix bundle, which also broke the test runner's module
 * transfer (its messages have a size limit).
 */
export const loadSentrySdk = () => import("@sentry/react");
