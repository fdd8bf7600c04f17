// The landing and login paths and the safe post-login target are shared with the Worker's SSO callback.
import { LOGIN_ROUTE, ROOT_ROUTE, safeReturnPath } from "../../shared/return-path";

export { LOGIN_ROUTE, ROOT_ROUTE, safeReturnPath };

/** Where the navigation guard (SPEC §2) sends a request, or null to let it through. Pure, shared by all loaders. */
export interface GuardInput {
  pathname: string;
  search: string;
  user: { isAdmin: boolean } | null;
}

export function isAdminPath(pathname: string): boolean {
  return pathname === "/admin" || pathname.startsWith("/admin/");
}

/** `/login?to=<wanted path>` for a path that needs sign-in. */
export function loginRedirect(pathname: string, search = ""): string {
  return `${LOGIN_ROUTE}?to=${encodeURIComponent(pathname + search)}`;
}

/**
 * The guard's rules in order: short links always pass; the login screen sends signed-in users to Mam (unless it
 * carries a `token` to sign in with); everything else needs a session, and /admin needs is_admin.
 */
export function guardRedirect({ pathname, search, user }: GuardInput): string | null {
  if (pathname.startsWith("/sl/")) return null;
  if (pathname === LOGIN_ROUTE) {
    return user && !new URLSearchParams(search).has("token") ? ROOT_ROUTE : null;
  }
  if (!user) return loginRedirect(pathname, search);
  if (isAdminPath(pathname) && !user.isAdmin) return ROOT_ROUTE;
  return null;
}
