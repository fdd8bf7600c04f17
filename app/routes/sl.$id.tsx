import type { MetaFunction } from "@remix-run/cloudflare";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";

export const meta: MetaFunction = () => [{ title: `${ru.screens.sharedLink} — ${ru.app.name}` }];

/** Short-link preview: reachable without signing in (guard rule 2). */
export default function SharedLinkRoute() {
  return (
    <main className="auth-page">
      <div className="auth-card" style={{ textAlign: "center" }}>
        <div className="auth-brand" style={{ justifyContent: "center" }}>
          <span className="logo">
            <Icon name="logo" size={20} />
          </span>
          <div className="auth-brand-name">{ru.app.name}</div>
        </div>
        <h1 className="auth-title">{ru.screens.sharedLink}</h1>
        <p className="auth-subtitle">{ru.screens.pending}</p>
      </div>
    </main>
  );
}
