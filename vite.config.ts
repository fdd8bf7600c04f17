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

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [
    ...(isSsrBuild ? [] : [uploadWorker()]),
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
      // The server build in two modules, the libraries apart from our code: the integration tests load it through
      // the test pool's WebSocket, whose messages are limited to 1 MiB (workerd), and one file had outgrown that.
      ...(isSsrBuild
        ? { output: { inlineDynamicImports: false, manualChunks: (id: string) => (id.includes("/node_modules/") ? "vendor" : undefined) } }
        : {}),
    },
  },
}));
