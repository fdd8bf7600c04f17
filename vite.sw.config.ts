import { defineConfig } from "vite";

/**
 * The upload Service Worker (app/upload-worker/upload-sw.ts) as one classic script at build/client/upload-sw.js:
 * served from the site root by the assets binding (a `.js` file, so JavaScript's content type), its default scope
 * is the whole app, and the pages' CSP allows it (`worker-src 'self'`). Runs after the Remix browser build,
 * which has emptied build/client (the `mam-upload-worker` plugin of vite.config.ts starts it).
 */
export default defineConfig({
  resolve: {
    alias: [
      { find: /^~/, replacement: new URL("./app", import.meta.url).pathname },
      { find: /^@transloadit\/prettier-bytes$/, replacement: new URL("./app/lib/uppy-bytes.ts", import.meta.url).pathname },
    ],
  },
  publicDir: false,
  build: {
    outDir: "build/client",
    emptyOutDir: false,
    minify: true,
    copyPublicDir: false,
    lib: {
      entry: new URL("./app/upload-worker/upload-sw.ts", import.meta.url).pathname,
      formats: ["iife"],
      name: "mamUploadWorker",
      fileName: () => "upload-sw.js",
    },
    rollupOptions: {
      onwarn(warning, warn) {
        if (warning.code === "INVALID_ANNOTATION") return;
        warn(warning);
      },
    },
  },
});
