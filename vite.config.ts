import { vitePlugin as remix } from "@remix-run/dev";
import { build, defineConfig, type LogLevel, type Plugin } from "vite";

declare module "@remix-run/cloudflare" {
  interface Future {
    v3_singleFetch: true;
  }
}

/**
 * After the browser build has written build/client, builds the upload Service Worker into it (vite.sw.config.ts):
 * a separate, classic script at /upload-sw.js, so every way of building (npm run build, start, bench, e2e) has it.
 */
function uploadWorker(): Plugin {
  let logLevel: LogLevel | undefined;
  return {
    name: "mam-upload-worker",
    apply: "build",
    configResolved(config) {
      logLevel = config.logLevel;
    },
    async closeBundle() {
      await build({ configFile: new URL("./vite.sw.config.ts", import.meta.url).pathname, logLevel });
    },
  };
}

/**
 * The integration tests' pool loads each module of the server build as one WebSocket message, limited to 1 MiB by
 * workerd; a module past it ends the run of every test file that loads it («Worker exited unexpectedly»), and the
 * message is larger than the file (an 821 kB module was refused, a 765 kB one was not).
 */
const SERVER_MODULE_MAX_BYTES = 700_000;

/** Fails the server build when one of its modules outgrows `SERVER_MODULE_MAX_BYTES`, naming it. */
function serverModulesWithinLimit(): Plugin {
  return {
    name: "mam-server-modules-within-limit",
    apply: "build",
    generateBundle(_options, bundle) {
      for (const file of Object.values(bundle)) {
        if (file.type !== "chunk") continue;
        const bytes = Buffer.byteLength(file.code);
        if (bytes <= SERVER_MODULE_MAX_BYTES) continue;
        const largest = Object.entries(file.modules)
          .sort(([, a], [, b]) => b.renderedLength - a.renderedLength)
          .slice(0, 5)
          .map(([id, m]) => `${id.replace(/^.*\/node_modules\//, "")} (${m.renderedLength})`);
        this.error(
          `server module ${file.fileName} is ${bytes} bytes, over ${SERVER_MODULE_MAX_BYTES}: the test pool could not load it. ` +
            `Split it in serverChunk (vite.config.ts); its largest parts: ${largest.join(", ")}`,
        );
      }
    },
  };
}

/** Which module of the server build a source file goes into (see `manualChunks` below). */
function serverChunk(id: string): string | undefined {
  // libraries that import no other: apart from the rest without a cycle between the two modules
  if (/\/node_modules\/(zod|saxes|xmlchars|drizzle-orm)\//.test(id)) return "vendor-leaves";
  if (id.includes("/node_modules/")) return "vendor";
  if (id.includes("/workers/services/")) return "services";
  return undefined;
}

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [
    ...(isSsrBuild ? [serverModulesWithinLimit()] : [uploadWorker()]),
    remix({
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
  ],
  resolve: {
    alias: [
      { find: /^~/, replacement: new URL("./app", import.meta.url).pathname },
      // Uppy's sizes in Russian units: its byte formatter is English-only and not configurable.
      { find: /^@transloadit\/prettier-bytes$/, replacement: new URL("./app/lib/uppy-bytes.ts", import.meta.url).pathname },
    ],
  },
  ssr: {
    target: "webworker",
    noExternal: true,
    resolve: { conditions: ["workerd", "worker", "browser"], externalConditions: ["workerd", "worker"] },
  },
  // Codec wasm reached from services (image processing) stays an import: wrangler compiles it (CompiledWasm rule).
  // Runtime modules of workerd (`cloudflare:email` for the optional send_email binding, and the `node:` modules of
  // nodejs_compat such as node:zlib's CRC-32 for ZIPs) are left to wrangler too.
  build: {
    minify: true,
    // The only browser chunks above Vite's 500 kB default are loaded on demand: pdf.js's worker (1.4 MB, when a PDF
    // is opened) and the video proxy maker (0.6 MB, when a browser heals a video); a warning about them is noise.
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      external: [/\.wasm$/, /^cloudflare:/, /^node:/],
      // zod's own comments that Rollup cannot place, and resource routes without client code: noise in every build.
      onwarn(warning, warn) {
        if (warning.code === "INVALID_ANNOTATION" || warning.code === "EMPTY_BUNDLE") return;
        warn(warning);
      },
      // The server build in several modules, each within SERVER_MODULE_MAX_BYTES: libraries that import no other, the
      // other libraries, the Worker's services, and the rest of our code (the pages, and what they read of the Worker).
      ...(isSsrBuild ? { output: { inlineDynamicImports: false, manualChunks: serverChunk } } : {}),
    },
  },
}));
