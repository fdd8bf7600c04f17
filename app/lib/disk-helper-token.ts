/**
 * The access token lives 15 minutes; a local disk helper this browser mounted a folder with gets every refreshed
 * token too, so its sync keeps going while the app is open (decision 023). Kept apart from disk-helper.ts so the API
 * client can call it without importing the helper's calls.
 */

/** localStorage key: the URL of the helper this browser has mounted a folder with. */
const USED_KEY = "diskHelperUrl";

export function rememberDiskHelper(base: string): void {
  localStorage.setItem(USED_KEY, base);
}

/** Hands a refreshed token to the helper this browser uses, silently (it may not be running). */
export function forwardTokenToHelper(bearer: string): void {
  const base = typeof localStorage === "undefined" ? null : localStorage.getItem(USED_KEY);
  if (!base) return;
  void fetch(`${base}/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: bearer }) }).catch(() => undefined);
}
