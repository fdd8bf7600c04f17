/**
 * No import cycle between the service domains (decision record 025), checked by `npm run check:deps` after
 * .dependency-cruiser.cjs. Only workers/services/ is cruised, so a domain is one node and its files' imports are its
 * edges: two domains may depend on each other one way only, directly or through other domains. Events flow through
 * the outbox (decision 024) instead of a call back into the domain that made them. (The whole Worker is not one
 * graph here on purpose: the database layer, the queue and the Durable Objects sit below and beside every domain,
 * and folding them in would report their folders, not the domains.)
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-domain-cycle",
      severity: "error",
      comment:
        "An import cycle between service domains. Make one domain depend on the other only: record an event " +
        "(the outbox delivers it), pass the function in as a parameter, or move the shared piece to the lower domain.",
      scope: "folder",
      from: { path: "^workers/services/[^/]+" },
      to: { path: "^workers/services/[^/]+", circular: true },
    },
  ],
  options: {
    includeOnly: "^workers/services/",
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs"] },
  },
};
