import { ru } from "../i18n/ru";
import { ApiError, errorMessage } from "./api-error";
import { encodeBody } from "./request-body";
import { showToast } from "./toast";
import { forwardTokenToHelper } from "./disk-helper-token";
import { clearTokens, needsRefresh, readTokens, storeTokens, type Tokens } from "./tokens";

/** API description version sent with every call (SPEC §9). */
export const API_VERSION = "1.0";
/** localStorage key of the chosen upload/download server id. */
export const ULDL_SERVER_KEY = "uldlServer";

/** Paths whose failures are not toasted (SPEC §8). */
const SILENT_PATHS = new Set(["/api/auth/whoami", "/api/auth/refresh"]);
/** Paths whose 401 must not trigger a token refresh (the refresh itself, and calls made without a session). */
const NO_REFRESH_PATHS = new Set(["/api/auth/refresh", "/api/auth/login", "/api/auth/logout", "/api/auth/exchange-token", "/api/auth/token-owner"]);
/**
 * Calls SPEC §7 says carry no bearer (sign-in, refresh, sign-out): the refresh cookie or the body is their credential,
 * so a stored (perhaps stale, perhaps another user's) access token is never sent along.
 */
const BEARERLESS_PATHS = new Set(["/api/auth/login", "/api/auth/refresh", "/api/auth/logout", "/api/auth/exchange-token", "/api/auth/token-owner"]);

export interface RequestOptions {
  method?: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** JSON-serialised, except a Blob, which is sent as it is with its own type */
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
  /** false to handle the error without a toast */
  toast?: boolean;
  /** an explicit bearer instead of the stored one (sign-in by `?token=`) */
  bearer?: string;
  /** sent even if the page is being left (a small body: the browser caps keepalive bodies at 64 KB) */
  keepalive?: boolean;
}

function headers(options: RequestOptions, contentType: string | null = null): Headers {
  const h = new Headers({ "x-api-version": API_VERSION, accept: "application/json" });
  const bearer = options.bearer ?? readTokens().bearer;
  if (bearer) h.set("authorization", `Bearer ${bearer}`);
  const server = typeof localStorage === "undefined" ? null : localStorage.getItem(ULDL_SERVER_KEY);
  if (server) h.set("prefer-uldl-server", server);
  if (contentType) h.set("content-type", contentType);
  return h;
}

function send(path: string, options: RequestOptions): Promise<Response> {
  const url = new URL(path, window.location.origin);
  if (BEARERLESS_PATHS.has(url.pathname) && options.bearer === undefined) options = { ...options, bearer: "" };
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const { body, contentType } = encodeBody(options.body);
  return fetch(url, {
    method: options.method ?? "GET",
    headers: headers(options, contentType),
    body,
    credentials: "same-origin",
    signal: options.signal,
    keepalive: options.keepalive,
  });
}

async function parseBody(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text();
  if (!type.includes("json")) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

let refreshing: Promise<boolean> | null = null;

/**
 * Trades the refresh cookie for a new access token. One refresh at a time in this tab, and across tabs through a
 * Web Lock: two tabs presenting the same refresh token would look like theft and end the session.
 */
export function refreshAccessToken(): Promise<boolean> {
  refreshing ??= (async () => {
    const before = readTokens().bearer;
    const run = async () => {
      const now = readTokens();
      // Another tab refreshed while this one waited for the lock.
      if (now.bearer && now.bearer !== before && !needsRefresh(now.expire)) return true;
      const response = await fetch("/api/auth/refresh", { headers: headers({ bearer: "" }), credentials: "same-origin" });
      if (!response.ok) {
        clearTokens();
        return false;
      }
      const tokens = (await response.json()) as Tokens;
      storeTokens(tokens);
      forwardTokenToHelper(tokens.bearer);
      return true;
    };
    try {
      return navigator.locks ? await navigator.locks.request("mam-token-refresh", run) : await run();
    } catch {
      clearTokens();
      return false;
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** Refreshes the access token when it is missing, expired or within 2 minutes of expiry (before each navigation). */
export async function ensureFreshAccessToken(): Promise<boolean> {
  return needsRefresh(readTokens().expire) ? refreshAccessToken() : true;
}

/**
 * The one way the browser calls the API: adds Authorization, `x-api-version` and `prefer-uldl-server`; on 401
 * clears the tokens and retries once after a refresh (never for the refresh itself); any other failure throws
 * ApiError and, except for whoami and refresh, shows an 'Ошибка' toast with the server's message.
 * Answers the parsed body and the response headers (paging cursors travel in headers).
 */
export async function apiCall<T>(path: string, options: RequestOptions = {}): Promise<{ data: T; headers: Headers }> {
  const sentBearer = options.bearer ?? readTokens().bearer;
  let response = await send(path, options);
  if (response.status === 401 && !NO_REFRESH_PATHS.has(path) && options.bearer === undefined) {
    // Another call may have refreshed while this one was under way: its new token must not be cleared.
    const current = readTokens().bearer;
    const refreshed = current !== null && current !== sentBearer ? true : (clearTokens(), await refreshAccessToken());
    if (refreshed) response = await send(path, options);
  }
  const body = await parseBody(response);
  if (!response.ok) {
    const message = errorMessage(response.status, body, response.statusText);
    if (options.toast !== false && !SILENT_PATHS.has(path)) showToast({ title: ru.errors.title, message });
    throw new ApiError(response.status, body, message, response.headers);
  }
  return { data: body as T, headers: response.headers };
}

/** `apiCall` for callers that only need the body. */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await apiCall<T>(path, options)).data;
}

/** A GET of a protected binary with the bearer (refreshed once on 401), as the raw response. */
export async function apiResponse(path: string, signal?: AbortSignal, cache?: RequestCache): Promise<Response> {
  let response = await fetch(path, { headers: headers({}), credentials: "same-origin", signal, cache });
  if (response.status === 401) {
    if (await refreshAccessToken()) response = await fetch(path, { headers: headers({}), credentials: "same-origin", signal, cache });
  }
  return response;
}

/** Fetches a protected binary (a preview image) with the bearer and answers an object URL for `<img src>`. */
export async function apiBlobUrl(path: string, signal?: AbortSignal): Promise<string | null> {
  const response = await apiResponse(path, signal);
  if (!response.ok) return null;
  return URL.createObjectURL(await response.blob());
}
