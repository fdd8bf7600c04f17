/**
 * The sign-in page's proof that it asked for a sign-in itself. Before sending the browser to single sign-on it keeps a
 * random nonce in this tab's sessionStorage and passes it along (`n`); the SSO callback hands it back beside the
 * one-time token. A `/login?token=` whose `n` matches is traded at once; any other token (a link someone sent, a page
 * on another site) is traded only after the visitor confirms «Войти как …?» — so a link cannot sign a visitor into
 * somebody else's account without a word (login CSRF).
 */
const KEY = "mam_sign_in_nonce";

/** A new nonce, kept for this tab; the previous one is replaced. */
export function startSignInNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const nonce = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  try {
    sessionStorage.setItem(KEY, nonce);
  } catch {
    // storage refused (private mode quotas): the sign-in still works, it asks for confirmation on return
  }
  return nonce;
}

/** Whether `nonce` is the one this tab started; the stored one is spent either way, so it works once. */
export function takeSignInNonce(nonce: string | null): boolean {
  let stored: string | null = null;
  try {
    stored = sessionStorage.getItem(KEY);
    sessionStorage.removeItem(KEY);
  } catch {
    return false;
  }
  return nonce !== null && stored !== null && stored.length >= 16 && stored === nonce;
}
