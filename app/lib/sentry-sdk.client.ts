/**
 * The browser SDK, loaded on demand. A `.client` module is left out of the server build, where the SDK's dynamic
 * import would be inlined (half a megabyte the server never runs).
 */
export const loadSentrySdk = () => import("@sentry/react");
