// The Remix server build (build/server/index.js), aliased as `remix-server-build` for wrangler and vitest.
import type { ServerBuild } from "@remix-run/cloudflare";
declare const build: ServerBuild;
export = build;
