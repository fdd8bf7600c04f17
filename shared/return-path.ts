/**
 * Where people land and where a sign-in may send them back to. Shared by the UI's navigation guard (app/lib/guard.ts)
 * and the Worker's SSO callback, so both refuse the same off-site targets.
 */
export const ROOT_ROUTE = "/mam";
export const LOGIN_ROUTE = "/login";

/**
 * A safe post-login target: only same-site absolute paths (never `//host` or a URL), so `?to=` cannot redirect
 * off-site.
 */
export function safeReturnPath(to: string | null | undefined): string {
  if (!to || !to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\") || to.startsWith(LOGIN_ROUTE)) return ROOT_ROUTE;
  return to;
}
