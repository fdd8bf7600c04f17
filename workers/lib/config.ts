import { z } from "zod";

const UldlServerSchema = z.object({ id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/), url: z.string().url() });
/**
 * One OpenID Connect provider of `SSO_PROVIDERS`. Without `client_secret` the client is public (PKCE only);
 * `claim` names the ID token / userinfo claim that holds the login (default: `preferred_username`, then `email`);
 * `provision: false` signs in only users that already exist.
 */
const SsoProviderSchema = z.object({
  id: z.string().regex(/^[a-z0-9-]{1,32}$/),
  name: z.string().min(1).max(100),
  issuer: z.string().url(),
  client_id: z.string().min(1),
  client_secret: z.string().min(1).optional(),
  claim: z.string().min(1).max(100).optional(),
  provision: z.boolean().default(true),
  /** extra scopes besides `openid profile email` */
  scope: z.string().max(500).optional(),
});

/** Parses a JSON-array variable with the given item schema; an empty or missing variable is an empty list. */
function jsonList<T extends z.ZodType>(item: T, name: string) {
  return z
    .string()
    .optional()
    .transform((v, ctx): z.infer<T>[] => {
      if (!v) return [];
      try {
        return z.array(item).parse(JSON.parse(v));
      } catch {
        ctx.addIssue({ code: "custom", message: `${name} must be a JSON array of valid entries` });
        return z.NEVER;
      }
    });
}

/** Vars and secrets, validated once at the edge of the program (wrangler.toml [vars], .dev.vars, `wrangler secret`). */
const ConfigSchema = z.object({
  ADMIN_LOGIN: z.string().min(1).default("admin"),
  ADMIN_PASSWORD: z.string().optional(),
  JWT_SECRET: z.string().min(32, "JWT_SECRET must be at least 32 characters"),
  JWT_ISSUER: z.string().min(1).default("edge-mam"),
  JWT_AUDIENCE: z.string().min(1).default("edge-mam-api"),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(900),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(300).default(2_592_000),
  METRICS_TOKEN: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  ULDL_SERVERS: jsonList(UldlServerSchema, "ULDL_SERVERS"),
  SSO_PROVIDERS: jsonList(SsoProviderSchema, "SSO_PROVIDERS"),
  /**
   * The office editor's `/hosting/discovery` URL (Collabora Online, OnlyOffice, Microsoft 365 for the web). Empty: no
   * office editor; /editor/{id} views documents and edits text files by itself.
   */
  WOPI_DISCOVERY_URL: z
    .string()
    .optional()
    .transform((v) => v || undefined)
    .pipe(z.string().url("WOPI_DISCOVERY_URL must be a URL").optional()),
  /** largest file an upload may declare, in bytes (default 50 GiB; at most 5 TiB, S3's object limit) */
  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(5 * 1024 ** 4)
    .default(50 * 1024 ** 3),
  /** space-separated origins that may frame /sl pages (for embedding shared media in another site); none by default */
  SL_FRAME_ANCESTORS: z
    .string()
    .optional()
    .transform((v) => (v ?? "").split(/\s+/).filter(Boolean))
    .pipe(z.array(z.string().regex(/^https?:\/\/[^\s/]+$/, "SL_FRAME_ANCESTORS must list origins like https://example.com"))),
  /**
   * Sentry DSN (`https://<public key>@<host>/<project id>`): error tracking in the Worker and the browser, with SPEC
   * §9's sample rates. Empty: off, and nothing is sent anywhere (decision 015).
   */
  SENTRY_DSN: z
    .string()
    .optional()
    .transform((v) => v?.trim() || undefined)
    .pipe(
      z
        .string()
        .regex(/^https?:\/\/[^@/\s]+@[^/\s]+\/(.+\/)?\d+$/, "SENTRY_DSN must look like https://<public key>@<host>/<project id>")
        .optional(),
    ),
  /**
   * Stripe secret key (`sk_live_…`/`sk_test_…`): the shop's checkout goes through Stripe's hosted Checkout. Empty:
   * orders wait for an administrator's approval (invoice flow, decision 022).
   */
  STRIPE_SECRET_KEY: z
    .string()
    .optional()
    .transform((v) => v?.trim() || undefined),
  /** Signing secret of the Stripe webhook endpoint (`whsec_…`) that POST /api/shop/stripe/webhook verifies. */
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .optional()
    .transform((v) => v?.trim() || undefined),
  /**
   * Where the local disk helper listens on the user's computer (helper/, decision 023): always a loopback http
   * origin. Pages call it from the browser, so it is in their connect-src; tests move it to a port of their own.
   */
  DISK_HELPER_URL: z
    .string()
    .optional()
    .transform((v) => v?.trim() || "http://127.0.0.1:18981")
    .pipe(z.string().regex(/^http:\/\/(127\.0\.0\.1|localhost):\d{2,5}$/, "DISK_HELPER_URL must be http://127.0.0.1:<port>")),
  /**
   * The map view's tile server, an https URL template with {z}, {x} and {y} (e.g. an OpenStreetMap-compatible
   * server). Unset or not such a template: the map draws its offline base layer of country outlines. Its origin is
   * added to the pages' img-src.
   */
  MAP_TILE_URL: z
    .string()
    .optional()
    .transform((v) => {
      const value = v?.trim();
      if (!value || !URL.canParse(value) || new URL(value).protocol !== "https:") return undefined;
      return ["{z}", "{x}", "{y}"].every((part) => value.includes(part)) ? value : undefined;
    }),
  /** "off" switches the per-user and per-IP limits of expensive calls off (benchmarks only) */
  RATE_LIMITS: z.enum(["on", "off"]).default("on"),
  /**
   * Where a library made from now on lives (decision 045): "catalog" (the default: in the catalog D1 until an
   * administrator moves it) or "shard" (moved into a shard of its own as it is made, so libraries grow apart).
   */
  NEW_LIBRARIES: z.enum(["catalog", "shard"]).default("catalog"),
});

export type Config = z.infer<typeof ConfigSchema>;
export type UldlServer = z.infer<typeof UldlServerSchema>;
export type SsoProvider = z.infer<typeof SsoProviderSchema>;

const cache = new WeakMap<object, Config>();

/** Parses the Worker's environment into typed configuration (memoised per env object). Throws on invalid config. */
export function getConfig(env: Env): Config {
  let config = cache.get(env);
  if (!config) {
    config = ConfigSchema.parse(env);
    cache.set(env, config);
  }
  return config;
}
