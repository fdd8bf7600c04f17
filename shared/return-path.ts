/**
 * Where people land and where a sign-in may send them back to. Shared by the UI's navigation guard (app/lib/guard.ts)
 * and the Worker's SSO callback, so both refuse the same off-site targets.
 */
export const ROOT_ROUTE = "/mam";
export const LOGIN_ROUTE = "/login";

/** A base no real address has: a target that resolves elsewhere against it leaves the site. */
const PROBE_BASE = "https://return-path.invalid";

/**
 * A safe post-login target: only same-site absolute paths (never `//host` or a URL), so `?to=` cannot redirect
 * off-site. Decided on how a browser reads the path, not on its first characters: URL parsing drops tabs and line
 * breaks and reads `\` as `/`, so `/<TAB>/evil.example` would open evil.example; anything holding a control
 * character or a backslash, or resolving to another origin, goes to the root instead.
 */
export function safeReturnPath(to: string | null | undefined): string {
  if (!to || !to.startsWith("/") || to.startsWith("//") || to.startsWith(LOGIN_ROUTE)) return ROOT_ROUTE;
  for (let i = 0; i < to.length; i++) {
    const code = to.charCodeAt(i);
    if (code < 0x20 || code === 0x7f || code === 0x5c) return ROOT_ROUTE;
  }
  try {
    if (new URL(to, PROBE_BASE).origin !== PROBE_BASE) return ROOT_ROUTE;
  } catch {
    return ROOT_ROUTE;
  }
  return to;
}
