import { z } from "zod";

/**
 * Carrying a request's D1 bookmark to the next one (decision 030). Browsers keep it in an HttpOnly cookie; API
 * clients get it in the `x-d1-bookmark` answer header and may send it back in the same request header; it is
 * honoured only where it can make reads fresher, never where it would let rights be read from an older replica. A bookmark
 * that is not of D1's shape is ignored — never an error: a cookie is not something the user can fix.
 */
export const BOOKMARK_COOKIE = "mam_d1b";
export const BOOKMARK_HEADER = "x-d1-bookmark";

/**
 * D1 bookmarks are dash-separated hex fields (e.g. `00000001-00000002-00004e5e-<32 hex>`); the exact layout is the
 * database's business, so only the alphabet and a sane length are checked here. One that passes but is stale or from
 * another database is refused by the runtime and the session starts again without it (workers/db/session.ts).
 */
export const BookmarkSchema = z
  .string()
  .min(16)
  .max(160)
  .regex(/^[0-9a-f]{8}(?:-[0-9a-f]{4,64}){1,7}$/i);

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A browser's request with the refresh cookie (plain or `__Host-` on https). */
function isSignedInBrowser(request: Request): boolean {
  return /(?:^|;\s*)(?:__Host-)?mam_refresh=/.test(request.headers.get("cookie") ?? "");
}

/** A request with credentials: a bearer, or the browser's refresh cookie. */
function isSignedIn(request: Request): boolean {
  return request.headers.has("authorization") || isSignedInBrowser(request);
}

export interface SessionStart {
  bookmark: string | null;
  constraint: D1SessionConstraint;
}

/**
 * Where a request's session starts. A signed-in caller (bearer or refresh cookie) or any write starts
 * `first-primary`, whatever bookmark it carries: its first read — the session, user, token and the caller's access
 * rows, which every such request reads first — sees every committed write, so a logout, a revoked token or a removed
 * rule is never read from a replica that predates it; the reads after follow from there (a session never goes back),
 * which is at least as fresh as any bookmark the client could send, so read-your-writes holds without it. A client
 * bookmark only ever tightens a session that could start anywhere: an anonymous GET/HEAD (the shared-link page, the
 * login page) starts at the bookmark when it carries a valid one (header first, then cookie), else
 * `first-unconstrained` (any replica may answer; nobody is writing after reading).
 */
export function sessionStartOf(request: Request): SessionStart {
  const readOnly = request.method === "GET" || request.method === "HEAD";
  if (!readOnly || isSignedIn(request)) return { bookmark: null, constraint: "first-primary" };
  const candidate = request.headers.get(BOOKMARK_HEADER) ?? cookieValue(request, BOOKMARK_COOKIE);
  // Most requests carry none: the parse is skipped for them.
  const parsed = candidate ? BookmarkSchema.safeParse(candidate) : null;
  return { bookmark: parsed?.success ? parsed.data : null, constraint: "first-unconstrained" };
}

/**
 * Hands the session's latest bookmark back to a signed-in caller — never to an anonymous one: a bookmark shows how
 * far the whole library's writes have gone, and a visitor reads anywhere anyway (`first-unconstrained`). To a
 * signed-in caller it goes as the `x-d1-bookmark` header always, and as the cookie when the caller is a
 * browser and the bookmark moved. A browser is a caller without a bearer, or one that carries our cookies: the UI's
 * API calls come with a bearer *and* the refresh cookie, and the page it loads next must see what they wrote. A
 * response a shared cache may keep never gets the cookie.
 */
export function applyBookmark(request: Request, headers: Headers, bookmark: string | null): void {
  if (!bookmark || !isSignedIn(request)) return;
  headers.set(BOOKMARK_HEADER, bookmark);
  const carried = cookieValue(request, BOOKMARK_COOKIE);
  const browser = !request.headers.has("authorization") || carried !== undefined || isSignedInBrowser(request);
  if (!browser || carried === bookmark) return;
  if (/\bpublic\b|\bimmutable\b/i.test(headers.get("cache-control") ?? "")) return;
  const secure = new URL(request.url).protocol === "https:" ? "; Secure" : "";
  headers.append("Set-Cookie", `${BOOKMARK_COOKIE}=${bookmark}; Path=/; HttpOnly; SameSite=Lax${secure}`);
}
