import type { Plugin } from "vite";

/** The product's literal dynamic imports of large libraries it loads only when a file needs them. */
const ON_DEMAND = [
  // mediabunny (~2.8 MiB transformed), for audio and video in the media Worker
  { loader: /[\\/]workers[\\/]services[\\/]media[\\/]load-mediabunny\.ts$/, literal: 'import("mediabunny")', module: "mediabunny" },
  // unpdf, a serverless build of PDF.js (~7 MiB transformed), for a PDF's text
  { loader: /[\\/]workers[\\/]services[\\/]media[\\/]extract[\\/]pdf\.ts$/, literal: 'import("unpdf")', module: "unpdf" },
];

/**
 * Keeps large libraries out of the module graph Vite builds for the integration tier, while the product imports
 * them with a literal `import("…")` that wrangler's esbuild bundles.
 *
 * A fresh test worker asks once for every already-transformed module reachable from its test file and the setup
 * files (vitest's `fetchWarmModules`), and the Cloudflare pool sends all their code in ONE WebSocket message. Vite
 * links a literal dynamic import like a static one, so once any file had loaded such a library every later file's
 * message carried it, and the product's code went past workerd's message limit: workerd closed the socket (1009
 * «Message is too large») and the file's worker exited («Worker exited unexpectedly», seen for mediabunny, then on
 * 7 December 2026 for unpdf: five of eight groups, no test failed). A specifier Vite cannot read is resolved when the
 * call runs (vitest resolves it through the same plugins, so mediabunny-node-stub.ts still applies) and links no
 * module into the graph; tests/setup/load-heavy-modules.ts then loads them in every file's setup.
 */
export function heavyModulesOnDemand(): Plugin {
  return {
    name: "heavy-modules-on-demand",
    // No `enforce`: this runs after esbuild has stripped the types (a loader's return type names the module too)
    // and before Vite's import analysis reads the code.
    transform(code, id) {
      const found = ON_DEMAND.find((m) => m.loader.test(id));
      if (!found) return null;
      // A changed loader must fail loudly here, not quietly put the library back into every worker's message.
      if (!code.includes(found.literal))
        this.error(`${id} no longer holds ${found.literal}: update tests/setup/heavy-modules-on-demand.ts`);
      return { code: code.replace(found.literal, `import(/* @vite-ignore */ String(${JSON.stringify(found.module)}))`), map: null };
    },
  };
}
