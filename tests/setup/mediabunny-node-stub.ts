import type { Plugin } from "vite";

/**
 * mediabunny's `node.js` re-exports `node:fs/promises` for its file-path sources and targets, which the product never
 * uses. Deployed, wrangler bundles it against workerd's `node:fs`; the test runner's module loader cannot resolve
 * that re-export inside workerd, so the tests load an empty stand-in for that one file.
 */
export function mediabunnyNodeStub(): Plugin {
  const STUB = "\0mediabunny-node-stub";
  return {
    name: "mediabunny-node-stub",
    enforce: "pre",
    resolveId(source, importer) {
      if (source === "./node.js" && importer && /[\\/]mediabunny[\\/]dist[\\/]modules[\\/]src[\\/]/.test(importer)) return STUB;
      return null;
    },
    load(id) {
      return id === STUB ? "export const fs = undefined;" : null;
    },
  };
}
