import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { createDb } from "../../workers/db/client";
import { users } from "../../workers/db/schema/index";
import { newId } from "../../workers/lib/ids";
import { hashPassword } from "../../workers/lib/password";
import { refreshCookieName } from "../../workers/services/access/auth.service";

/** Origin every test request goes to; same-origin checks compare against it. */
export const ORIGIN = "https://mam.test";

/** The refresh cookie's name at ORIGIN (https: `__Host-mam_refresh`). */
export const REFRESH_COOKIE = refreshCookieName(ORIGIN);

/** Password of users made by `createUser` unless a test gives its own. */
export const DEFAULT_PASSWORD = "correct horse battery staple";

export interface CallOptions {
  method?: string;
  /** JSON body; sets `content-type: application/json` */
  json?: unknown;
  /** raw body, sent as is */
  body?: BodyInit;
  bearer?: string;
  /** value of the `mam_refresh` cookie */
  refresh?: string;
  headers?: Record<string, string>;
}

/**
 * One request through the Worker's fetch handler (the same path as production: API, metrics or Remix pages).
 * @example const res = await call("/api/auth/whoami", { bearer })
 */
export function call(path: string, options: CallOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  let body = options.body;
  if (options.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(options.json);
  }
  if (options.bearer) headers.set("authorization", `Bearer ${options.bearer}`);
  if (options.refresh) headers.set("cookie", `${REFRESH_COOKIE}=${options.refresh}`);
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { method: options.method ?? "GET", headers, body, redirect: "manual" }));
}

/** The JSON error body every API error answers with. */
export interface ErrorJson {
  statusCode: number;
  message: string;
  error: string;
  requestId?: string;
}

/** Asserts an error answer of the one error model and returns its body. */
export async function expectError(res: Response, status: number): Promise<ErrorJson> {
  const body = (await res.json()) as ErrorJson;
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(body).toMatchObject({ statusCode: status, message: expect.any(String), error: expect.any(String) });
  expect(body.requestId).toMatch(/^[\w-]{1,64}$/);
  return body;
}

/** All `Set-Cookie` lines of an answer. */
export function setCookies(res: Response): string[] {
  return res.headers.getSetCookie();
}

/** The new refresh token an answer sets, or undefined when it sets none (a deletion is not a token). */
export function refreshTokenFrom(res: Response): string | undefined {
  const line = setCookies(res).find((c) => c.startsWith(`${REFRESH_COOKIE}=`));
  const value = line?.slice(REFRESH_COOKIE.length + 1).split(";")[0];
  return value ? value : undefined;
}

export interface TestUser {
  id: string;
  login: string;
  name: string;
  password: string;
  isAdmin: boolean;
}

export interface Session {
  bearer: string;
  expire: string;
  /** the refresh token (the `mam_refresh` cookie value) */
  refresh: string;
}

// Hashing costs 100,000 PBKDF2 rounds: users with the default password share one hash.
let defaultHash: Promise<string> | undefined;
let bootstrapped: Promise<unknown> | undefined;

/**
 * The administrator is created by the first request that finds the users table empty; a factory inserting users
 * first would prevent that, so factories let one request through before they write.
 */
export function ensureBootstrapped(): Promise<unknown> {
  bootstrapped ??= call("/api/ping").then((res) => res.text());
  return bootstrapped;
}

/**
 * Inserts a user straight into D1 with a real password hash; the login is unique per call.
 * @example const user = await createUser({ isAdmin: true })
 */
export async function createUser(
  overrides: Partial<{ login: string; name: string; password: string; isAdmin: boolean; isRobot: boolean; enabled: boolean }> = {},
): Promise<TestUser> {
  await ensureBootstrapped();
  const id = newId();
  const login = overrides.login ?? `user-${id.slice(-12)}`;
  const password = overrides.password ?? DEFAULT_PASSWORD;
  const passwordHash =
    overrides.password === undefined ? await (defaultHash ??= hashPassword(DEFAULT_PASSWORD)) : await hashPassword(password);
  const now = Date.now();
  const name = overrides.name ?? `Тестовый ${login}`;
  await createDb(env.DB)
    .insert(users)
    .values({
      id,
      login,
      name,
      passwordHash,
      isAdmin: overrides.isAdmin ?? false,
      isRobot: overrides.isRobot ?? false,
      enabled: overrides.enabled ?? true,
      ctime: now,
      mtime: now,
    })
    .run();
  return { id, login, name, password, isAdmin: overrides.isAdmin ?? false };
}

/** Signs in through POST /api/auth/login and returns the tokens; fails the test unless the answer is 200. */
export async function login(user: string, passwd: string, headers?: Record<string, string>): Promise<Session> {
  const res = await call("/api/auth/login", { method: "POST", json: { user, passwd }, headers });
  const body = (await res.json()) as { bearer: string; expire: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  const refresh = refreshTokenFrom(res);
  expect(refresh).toBeTruthy();
  return { bearer: body.bearer, expire: body.expire, refresh: refresh! };
}

/** Creates a user and signs in as that user. */
export async function signIn(overrides: Parameters<typeof createUser>[0] = {}): Promise<TestUser & Session> {
  const user = await createUser(overrides);
  return { ...user, ...(await login(user.login, user.password)) };
}

/** Signs in as the administrator the first request bootstraps from ADMIN_LOGIN / ADMIN_PASSWORD. */
export async function signInAdmin(): Promise<Session> {
  return login(env.ADMIN_LOGIN, env.ADMIN_PASSWORD);
}

/**
 * A signature made wrong for sure: its first character changed (which carries six bits of the MAC). Changing its
 * tail to "AA" left it valid whenever it already ended so — a test that failed once in a few thousand runs.
 */
export function tamperedSig(sig: string): string {
  return `${sig.startsWith("A") ? "B" : "A"}${sig.slice(1)}`;
}
