import type { Plugin } from "vite";

/** The product's one import of mediabunny for the media Worker, and the call in it. */
const LOADER = /[\\/]workers[\\/]services[\\/]media[\\/]load-mediabunny\.ts$/;
const LITERAL = 'import("mediabunny")';

/**
 * Keeps mediabunny out of the module graph Vite builds for the integration tier, while the product imports it with
 * a literal `import("mediabunny")` (workers/services/media/load-mediabunny.ts) that wrangler's esbuild bundles.
 *
 * A fresh test worker asks once for every already-transformed module reachable from its test file and the setup
 * files (vitest's `fetchWarmModules`), and the Cloudflare pool sends all their code in ONE WebSocket message. Vite
 * links a literal dynamic import like a static one, so once any file had loaded mediabunny (~2.8 MiB transformed)
 * every later file's message carried it, and the product's ~31 MiB went past workerd's 32 MiB message limit: workerd
 * closed the socket (1009 «Message is too large») and the file's worker exited. A specifier Vite cannot read is
 * resolved when the call runs (vitest resolves it through the same plugins, so mediabunny-node-stub.ts still
 * applies) and links no module into the graph; tests/setup/load-mediabunny.ts then loads it in every file's setup.
 */
export function mediabunnyOnDemand(): Plugin {
  return {
    name: "mediabunny-on-demand",
    // No `enforce`: this runs after esbuild has stripped the types (the loader's return type names the module too)
    // and before Vite's import analysis reads the code.
    transform(code, id) {
      if (!LOADER.test(id)) return null;
      // A changed loader must fail loudly here, not quietly put mediabunny back into every worker's message.
      if (!code.includes(LITERAL)) this.error(`${id} no longer holds ${LITERAL}: update tests/setup/mediabunny-on-demand.ts`);
      return { code: code.replace(LITERAL, 'import(/* @vite-ignore */ String("mediabunny"))'), map: null };
    },
  };
}
