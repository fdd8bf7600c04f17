import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useNavigate, useSearchParams } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { ApiError } from "../lib/api-error";
import { safeReturnPath } from "../lib/guard";
import { formatWait, retryAt } from "../lib/retry-after";
import { startSignInNonce, takeSignInNonce } from "../lib/sign-in-nonce";
import { dismissAllToasts } from "../lib/toast";
import { storeTokens, type Tokens } from "../lib/tokens";

export const meta: MetaFunction = () => [{ title: `${ru.login.submit} — ${ru.app.name}` }];

/** SSO providers come from configuration; the guard in root already sent signed-in users to /mam. */
export function loader({ context }: LoaderFunctionArgs) {
  return { providers: context.rc.config.SSO_PROVIDERS.map(({ id, name }) => ({ id, name })) };
}

/**
 * `?token=` sign-in (SPEC §2 guard rule 6): the token (a one-time token, or an access token a robot or an
 * integration hands over) is exchanged for a real session: the server sets the refresh cookie the page guard trusts,
 * so the next navigation stays signed in. Nothing is stored unless the exchange succeeds. The user is then loaded
 * with whoami before going on.
 */
async function signInWithToken(token: string): Promise<void> {
  storeTokens(await apiRequest<Tokens>("/api/auth/exchange-token", { method: "POST", body: { token }, toast: false }));
  await apiRequest("/api/auth/whoami", { toast: false });
}

/** The account a token would open, asked before trading a token this page did not request (nothing is spent). */
function tokenOwner(token: string): Promise<{ name: string }> {
  return apiRequest<{ name: string }>("/api/auth/token-owner", { method: "POST", body: { token }, toast: false });
}

/** The address without the token and the nonce: the credential leaves the address bar and history at once. */
function withoutToken(): string {
  const url = new URL(window.location.href);
  url.searchParams.delete("token");
  url.searchParams.delete("n");
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The clock, ticking each second while `running` (the throttle countdown). */
function useNow(running: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return now;
}

const formatTime = (ms: number) => new Date(ms).toLocaleTimeString("ru-RU", { hour: "2-digit", minute: "2-digit", second: "2-digit" });

function ssoErrorMessage(code: string | null): string | null {
  if (!code) return null;
  const messages: Record<string, string> = ru.sso.errors;
  return Object.hasOwn(messages, code) ? messages[code] : ru.sso.errors.provider_error;
}

export default function LoginRoute() {
  const { providers } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const to = safeReturnPath(params.get("to"));
  const token = params.get("token");
  const tokenHandled = useRef(false);
  // a token this page did not ask for: whose it is, until the visitor confirms or cancels
  const [confirming, setConfirming] = useState<{ token: string; name: string } | null>(null);
  // `?sso_error=<reason>` from the SSO calls: a known code only, so a crafted link cannot put its own words here.
  const ssoError = ssoErrorMessage(params.get("sso_error"));

  const failToken = () => navigate(`/login?to=${encodeURIComponent(to)}&sso_error=token_invalid`, { replace: true });

  useEffect(() => {
    if (!token || tokenHandled.current) return;
    tokenHandled.current = true;
    window.history.replaceState(window.history.state, "", withoutToken());
    setBusy(true);
    if (takeSignInNonce(params.get("n"))) {
      signInWithToken(token)
        .then(() => navigate(to, { replace: true }))
        .catch(failToken)
        .finally(() => setBusy(false));
      return;
    }
    tokenOwner(token)
      .then(({ name }) => setConfirming({ token, name }))
      .catch(failToken)
      .finally(() => setBusy(false));
    // `params` and `failToken` change exactly when `token` and `to` do
  }, [token, to, navigate]);

  function confirmToken() {
    if (!confirming) return;
    setBusy(true);
    signInWithToken(confirming.token)
      .then(() => navigate(to, { replace: true }))
      .catch(() => {
        setConfirming(null);
        failToken();
      })
      .finally(() => setBusy(false));
  }

  function cancelToken() {
    setConfirming(null);
    navigate(`/login?to=${encodeURIComponent(to)}`, { replace: true });
  }

  /** SSO starts from this page: the nonce it keeps marks the token that comes back as requested. */
  function startSso(event: React.MouseEvent<HTMLAnchorElement>) {
    event.preventDefault();
    const href = new URL(event.currentTarget.href);
    href.searchParams.set("n", startSignInNonce());
    window.location.assign(href.toString());
  }

  // Empty fields are answered on the form (no browser bubble); the server's refusals come as the 'Ошибка' toast
  // (SPEC §8), and a throttled sign-in also counts down on the form until the next attempt is allowed.
  const [error, setError] = useState<string | null>(null);
  const [throttledUntil, setThrottledUntil] = useState<number | null>(null);
  const now = useNow(throttledUntil !== null);
  const throttled = throttledUntil !== null && now < throttledUntil;

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const user = String(form.get("user") ?? "").trim();
    const passwd = String(form.get("passwd") ?? "");
    if (!user || !passwd) {
      setError(ru.login.required);
      return;
    }
    setBusy(true);
    setError(null);
    setThrottledUntil(null);
    try {
      const tokens = await apiRequest<Tokens>("/api/auth/login", { method: "POST", body: { user, passwd } });
      storeTokens(tokens);
      await apiRequest("/api/auth/whoami");
      // «Неверный логин или пароль» from an earlier attempt must not greet the user in the library.
      dismissAllToasts();
      navigate(to, { replace: true });
    } catch (failure) {
      // apiRequest already showed the 'Ошибка' toast with the server's message.
      setBusy(false);
      if (failure instanceof ApiError && failure.status === 429) setThrottledUntil(retryAt(failure.headers.get("retry-after"), Date.now()));
    }
  }

  return (
    <main className="auth-page">
      <div className="auth-card">
        <div className="auth-brand">
          <span className="logo">
            <Icon name="logo" size={20} />
          </span>
          <div>
            <div className="auth-brand-name">{ru.app.name}</div>
            <div className="auth-brand-tagline">{ru.app.tagline}</div>
          </div>
        </div>
        <h1 className="auth-title">{ru.login.title}</h1>
        <p className="auth-subtitle">{token && busy ? (confirming ? ru.login.tokenSignIn : ru.login.tokenChecking) : ru.login.subtitle}</p>
        {confirming && (
          <section className="auth-confirm" role="alertdialog" aria-labelledby="token-confirm-title" data-testid="token-confirm">
            <h2 id="token-confirm-title" className="auth-confirm-title">
              {ru.login.tokenConfirmTitle(confirming.name)}
            </h2>
            <p className="muted">{ru.login.tokenConfirmHint}</p>
            <div className="auth-confirm-actions">
              <button type="button" className="btn btn-primary" onClick={confirmToken} disabled={busy} autoFocus>
                {ru.login.tokenConfirm}
              </button>
              <button type="button" className="btn" onClick={cancelToken} disabled={busy}>
                {ru.login.tokenCancel}
              </button>
            </div>
          </section>
        )}
        {ssoError && !busy && (
          <p className="auth-error" role="alert">
            {ssoError}
          </p>
        )}
        {throttledUntil !== null && (
          <p className="auth-error" role="alert" data-testid="login-error">
            {throttled
              ? ru.login.throttled(formatWait(throttledUntil - now), formatTime(throttledUntil))
              : ru.login.throttledOver}
          </p>
        )}
        {error && (
          <p className="auth-error" role="alert" data-testid="login-error">
            {error}
          </p>
        )}
        <form method="post" onSubmit={onSubmit} noValidate hidden={confirming !== null}>
          <div className="field">
            <label htmlFor="login-user">{ru.login.user}</label>
            <input id="login-user" className="input" name="user" autoComplete="username" required maxLength={256} autoFocus />
          </div>
          <div className="field">
            <label htmlFor="login-passwd">{ru.login.password}</label>
            <input
              id="login-passwd"
              className="input"
              name="passwd"
              type="password"
              autoComplete="current-password"
              required
              maxLength={1024}
            />
          </div>
          <button type="submit" className="btn btn-primary btn-block" disabled={busy || throttled}>
            {busy ? ru.login.submitting : ru.login.submit}
          </button>
        </form>
        {providers.length > 0 && !confirming && (
          <>
            <div className="auth-divider">{ru.login.ssoDivider}</div>
            <div className="auth-sso">
              {providers.map((p) => (
                <a key={p.id} className="btn btn-block" href={`/api/auth/sso/${p.id}?to=${encodeURIComponent(to)}`} onClick={startSso}>
                  {ru.login.sso(p.name)}
                </a>
              ))}
            </div>
          </>
        )}
      </div>
    </main>
  );
}
