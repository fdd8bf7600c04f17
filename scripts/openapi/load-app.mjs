// Loads the API application (workers/api/app.ts) in plain Node, to read its OpenAPI document and its route table
// without starting workerd. The Worker imports WebAssembly modules and `cloudflare:workers` at the top level; none
// of them runs while routes are declared, so they are replaced by empty stand-ins here.
import { existsSync } from "node:fs";
import { createServer } from "vite";

const STAND_IN = "\0openapi-stand-in";
const BUILD_INFO_STAND_IN = "\0openapi-build-info";
// Written by `npm run build`; the document does not depend on it, so a checkout that was never built still works.
const hasBuildInfo = existsSync(new URL("../../shared/generated/build-info.ts", import.meta.url));

/** Vite plugin: `*.wasm` and `cloudflare:*` imports resolve to an empty module (and build-info, before a build). */
const standInsForWorkerOnlyModules = {
  name: "openapi-stand-ins-for-worker-only-modules",
  enforce: "pre",
  resolveId(id) {
    if (id.endsWith(".wasm") || id.startsWith("cloudflare:")) return STAND_IN;
    if (!hasBuildInfo && id.endsWith("/generated/build-info")) return BUILD_INFO_STAND_IN;
    return null;
  },
  load(id) {
    if (id === BUILD_INFO_STAND_IN) return 'export const BUILD_INFO = { version: "unbuilt", builtAt: "" };\n';
    if (id !== STAND_IN) return null;
    return "class Base {}\nexport default {};\nexport const DurableObject = Base;\nexport const WorkflowEntrypoint = Base;\nexport const WorkerEntrypoint = Base;\nexport const env = {};\n";
  },
};

/**
 * Runs `use(appModule, load)` with workers/api/app.ts loaded (`load(path)` loads another module of the same graph);
 * the Vite server is closed afterwards.
 */
export async function withApiApp(use) {
  const server = await createServer({
    configFile: false,
    logLevel: "error",
    root: new URL("../..", import.meta.url).pathname,
    plugins: [standInsForWorkerOnlyModules],
    server: { middlewareMode: true, hmr: false, watch: null },
    optimizeDeps: { noDiscovery: true, include: [] },
    ssr: { noExternal: [/@jsquash/, /@resvg/] },
  });
  try {
    const module = await server.ssrLoadModule("/workers/api/app.ts");
    return await use(module, (path) => server.ssrLoadModule(path));
  } finally {
    await server.close();
  }
}
