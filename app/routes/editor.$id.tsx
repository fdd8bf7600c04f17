import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { ru } from "../i18n/ru";

export const meta: MetaFunction = () => [{ title: `${ru.screens.editor} — ${ru.app.name}` }];

/** Document editor: outside the main layout, behind sign-in like every non-public route. */
export default function EditorRoute() {
  return (
    <main className="auth-page">
      <div className="auth-card" style={{ textAlign: "center" }}>
        <h1 className="auth-title">{ru.screens.editor}</h1>
        <p className="auth-subtitle">{ru.screens.pending}</p>
        <Link className="btn" to="/mam">
          {ru.screens.backToFiles}
        </Link>
      </div>
    </main>
  );
}
