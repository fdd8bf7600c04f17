import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useNavigate, useSearchParams } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { ApiError } from "../lib/api-error";
import { safeReturnPath } from "../lib/guard";
import { formatWait, retryAt } from "../lib/retry-after";
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
  // `?sso_error=<reason>` from the SSO calls: a known code only, so a crafted link cannot put its own words here.
  const ssoError = ssoErrorMessage(params.get("sso_error"));

  useEffect(() => {
    if (!token || tokenHandled.current) return;
    tokenHandled.current = true;
    setBusy(true);
    signInWithToken(token)
      .then(() => navigate(to, { replace: true }))
      .catch(() => navigate(`/login?to=${encodeURIComponent(to)}&sso_error=token_invalid`, { replace: true }))
      .finally(() => setBusy(false));
  }, [token, to, navigate]);

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
        <p className="auth-subtitle">{token && busy ? ru.login.tokenSignIn : ru.login.subtitle}</p>
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
        <form method="post" onSubmit={onSubmit} noValidate>
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
        {providers.length > 0 && (
          <>
            <div className="auth-divider">{ru.login.ssoDivider}</div>
            <div className="auth-sso">
              {providers.map((p) => (
                <a key={p.id} className="btn btn-block" href={`/api/auth/sso/${p.id}?to=${encodeURIComponent(to)}`}>
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
