import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startDevServer } from "../../scripts/dev-server.mjs";
import { SSO_ACCOUNT, SSO_PROVIDER_NAME, startLocalProvider } from "./sso-provider";

declare module "vitest" {
  /** What tests/e2e/global-setup.ts hands to the tests (read with `inject`, or the `server` fixture). */
  export interface ProvidedContext {
    /** e.g. http://127.0.0.1:8799, no trailing slash */
    baseUrl: string;
    /** the bootstrapped administrator (ADMIN_LOGIN / ADMIN_PASSWORD of the dev server) */
    adminLogin: string;
    adminPassword: string;
    /** the local OpenID provider's button label and its one account (tests/e2e/sso-provider.ts) */
    ssoProviderName: string;
    ssoLogin: string;
    /** where the pages look for the local disk helper (DISK_HELPER_URL): a test port, never the user's 18981 */
    diskHelperPort: number;
  }
}

/**
 * Optional seed data: when tests/e2e/seed.ts exists and exports `seedSql(): string`, that SQL runs against the
 * fresh database once the administrator has been bootstrapped (see scripts/dev-server.mjs).
 */
async function loadSeedSql(): Promise<string | undefined> {
  const seedModule = new URL("./seed.ts", import.meta.url);
  if (!existsSync(seedModule)) return undefined;
  const { seedSql } = (await import(/* @vite-ignore */ seedModule.href)) as { seedSql?: () => string };
  return typeof seedSql === "function" ? seedSql() : undefined;
}

/**
 * Starts the built product once for the whole e2e run: `wrangler dev` on 127.0.0.1:8799 (E2E_PORT to change it)
 * with a fresh state directory, so every run starts from an empty database with the administrator plus the
 * optional seed. Does not build: scripts/e2e.mjs runs `npm run build` first. Set E2E_KEEP_STATE=1 to keep the state
 * and the wrangler log.
 */
export default async function setup(project: TestProject) {
  const port = Number(process.env.E2E_PORT ?? 8799);
  const persistDir = await mkdtemp(join(tmpdir(), "mam-e2e-"));
  // A real OpenID provider for the SSO test, known to the product through SSO_PROVIDERS.
  const sso = await startLocalProvider(`http://127.0.0.1:${port}`);
  // The disk helper test (disk-helper.e2e.ts) starts its helper here; a helper the developer runs on 18981 is untouched.
  const diskHelperPort = Number(process.env.E2E_HELPER_PORT ?? 18995);
  const server = await startDevServer({
    port,
    persistDir,
    seedSql: await loadSeedSql(),
    vars: {
      SSO_PROVIDERS: sso.ssoProvidersVar,
      DISK_HELPER_URL: `http://127.0.0.1:${diskHelperPort}`,
      // The storages test (storages.e2e.ts) runs its fake S3 endpoint on 127.0.0.1.
      STORAGE_ALLOW_LOOPBACK: "true",
    },
  }).catch(async (error) => {
    await sso.stop();
    throw error;
  });
  console.log(`e2e: ${server.url} ready in ${Math.round(server.coldStartMs)} ms (state and log in ${persistDir})`);

  project.provide("baseUrl", server.url);
  project.provide("adminLogin", server.adminLogin);
  project.provide("adminPassword", server.adminPassword);
  project.provide("ssoProviderName", SSO_PROVIDER_NAME);
  project.provide("ssoLogin", SSO_ACCOUNT.login);
  project.provide("diskHelperPort", diskHelperPort);

  return async () => {
    await server.stop();
    await sso.stop();
    if (process.env.E2E_KEEP_STATE === "1") return;
    await rm(persistDir, { recursive: true, force: true, maxRetries: 3 });
  };
}
