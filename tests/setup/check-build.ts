import { existsSync } from "node:fs";

/**
 * Global setup of the integration tier (runs once, in Node): the Worker imports the Remix server build and the
 * generated build info, both written by `npm run build`. Fail early with the fix instead of an import error.
 */
export default function checkBuild(): void {
  const missing = ["build/server/index.js", "shared/generated/build-info.ts"].filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(`Missing ${missing.join(", ")}: run \`npm run build\` before \`npm run test:workers\`.`);
  }
}
