/** localStorage keys of the access token (SPEC §9). */
export const ACCESS_TOKEN_KEY = "accessToken";
export const EXPIRE_TOKEN_KEY = "expireToken";
/** Refresh this long before expiry (SPEC §9: 2 minutes). */
export const REFRESH_THRESHOLD_MS = 2 * 60_000;

export interface Tokens {
  bearer: string;
  expire: string;
}

/** True when the token is missing, unreadable, expired or within the refresh threshold of expiry. */
export function needsRefresh(expire: string | null, now = Date.now()): boolean {
  if (!expire) return true;
  const at = Date.parse(expire);
  return Number.isNaN(at) || at - now <= REFRESH_THRESHOLD_MS;
}

export function readTokens(): { bearer: string | null; expire: string | null } {
  if (typeof localStorage === "undefined") return { bearer: null, expire: null };
  return { bearer: localStorage.getItem(ACCESS_TOKEN_KEY), expire: localStorage.getItem(EXPIRE_TOKEN_KEY) };
}

export function storeTokens(tokens: Tokens): void {
  localStorage.setItem(ACCESS_TOKEN_KEY, tokens.bearer);
  localStorage.setItem(EXPIRE_TOKEN_KEY, tokens.expire);
}

export function clearTokens(): void {
  localStorage.removeItem(ACCESS_TOKEN_KEY);
  localStorage.removeItem(EXPIRE_TOKEN_KEY);
}

/** The `exp` of a JWT as ISO 8601, read without verification (the server verifies); null when unreadable. */
export function jwtExpiry(token: string): string | null {
  const payload = token.split(".")[1];
  if (!payload) return null;
  try {
    const json = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: unknown };
    return typeof json.exp === "number" ? new Date(json.exp * 1000).toISOString() : null;
  } catch {
    return null;
  }
}
