/**
 * The import boundaries of the Worker (decision record 025), checked by `npm run check:deps` (part of `npm test`)
 * together with .dependency-cruiser.domains.cjs (no import cycle between the service domains).
 *
 * - Service domains are the folders of workers/services/ (library, uploads, access, …).
 * - Code outside a domain imports it only through its index.ts (its public face) or its pure.ts (constants, types
 *   and validation the browser and the database schema may bundle). A domain whose code parses files' bytes keeps
 *   that part behind a face of its own that only the media Worker imports (decision 032): decode.ts (media, shop),
 *   runner.ts (tasks); tests/unit/api-worker-graph.test.ts checks the API Worker never reaches them. Inside a domain,
 *   files import their siblings directly. Tests, benchmarks and scripts may reach into a domain to test its parts.
 * - Nothing in workers/ or durable-objects/ imports app/: text and helpers both sides use live in shared/.
 */
const DOMAIN = "^workers/services/([^/]+)/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "domain-through-index",
      severity: "error",
      comment:
        "Code outside a service domain imports the domain through its index.ts (or pure.ts, decode.ts, runner.ts), not a file inside it. " +
        "Export what you need from the index.",
      from: { path: "^(workers|durable-objects|app|shared)/", pathNot: DOMAIN },
      to: { path: DOMAIN, pathNot: "^workers/services/[^/]+/(index|pure|decode|runner)\\.ts$" },
    },
    {
      name: "domain-through-index-from-another-domain",
      severity: "error",
      comment:
        "A service domain imports another domain through that domain's index.ts (or pure.ts), not a file inside it. " +
        "Export what you need from the index.",
      from: { path: DOMAIN },
      to: { path: "^workers/services/", pathNot: ["^workers/services/$1/", "^workers/services/[^/]+/(index|pure|decode|runner)\\.ts$"] },
    },
    {
      name: "no-app-in-worker",
      severity: "error",
      comment:
        "The Worker and the Durable Objects do not import the UI (app/). Move text both need to shared/i18n/ru.ts " +
        "and helpers both need to shared/.",
      from: { path: "^(workers|durable-objects|shared)/" },
      to: { path: "^app/" },
    },
  ],
  options: {
    includeOnly: "^(workers|durable-objects|app|shared)/",
    exclude: { path: "^shared/generated/" },
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    // Type-only imports count too: a type from a domain's inside is part of its inside.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
