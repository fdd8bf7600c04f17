import { homedir } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";

/** SPEC §9: the helper's port. */
export const DEFAULT_PORT = 18981;

const ConfigSchema = z.object({
  root: z.string().min(1),
  port: z.coerce.number().int().min(1).max(65535),
  /** the app's origin: the only one whose pages may call the helper; also the API's address unless --api says */
  origin: z.url().transform((u) => new URL(u).origin),
  api: z.url().optional(),
  /** seconds between passes over every mount (remote changes are polled) */
  interval: z.coerce.number().min(1).max(3600),
});

export type HelperConfig = { root: string; port: number; origin: string; api: string; intervalMs: number };

/**
 * Flags first, then environment, then defaults:
 * `--root` / MAM_HELPER_ROOT (~/MAM), `--port` / MAM_HELPER_PORT (18981), `--origin` / MAM_HELPER_ORIGIN
 * (http://localhost:8787), `--api` / MAM_HELPER_API (the origin), `--interval` / MAM_HELPER_INTERVAL (5 s).
 */
export function readConfig(argv: string[], env: Record<string, string | undefined>): HelperConfig {
  const { values } = parseArgs({
    args: argv,
    options: { root: { type: "string" }, port: { type: "string" }, origin: { type: "string" }, api: { type: "string" }, interval: { type: "string" } },
    strict: true,
  });
  const parsed = ConfigSchema.parse({
    root: values.root ?? env.MAM_HELPER_ROOT ?? resolve(homedir(), "MAM"),
    port: values.port ?? env.MAM_HELPER_PORT ?? DEFAULT_PORT,
    origin: values.origin ?? env.MAM_HELPER_ORIGIN ?? "http://localhost:8787",
    api: values.api ?? env.MAM_HELPER_API,
    interval: values.interval ?? env.MAM_HELPER_INTERVAL ?? 5,
  });
  return { root: resolve(parsed.root), port: parsed.port, origin: parsed.origin, api: parsed.api ?? parsed.origin, intervalMs: parsed.interval * 1000 };
}
