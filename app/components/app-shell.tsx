import { Link, useLocation, useNavigate } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { ru } from "../i18n/ru";
import { apiRequest, ensureFreshAccessToken } from "../lib/api-client";
import { activeNavTarget } from "../lib/nav-active";
import { clearTokens } from "../lib/tokens";
import { useUploadsRunning } from "../lib/upload-engine";
import { chooseUploadServer, ULDL_UPDATE_INTERVAL_MS } from "../lib/upload-servers";
import { Icon, type IconName } from "./icons";
import { SearchBox } from "./search/search-box";
import { NameClashHost } from "./name-clash-dialog";
import { UploadPanel } from "./upload-panel";

interface ShellUser {
  name: string;
  isAdmin: boolean;
}

const NAV: { to: string; label: string; icon: IconName; adminOnly?: boolean }[] = [
  { to: "/mam", label: ru.nav.files, icon: "folder" },
  { to: "/search", label: ru.nav.search, icon: "search" },
  { to: "/jobs", label: ru.nav.jobs, icon: "jobs" },
  { to: "/automations", label: ru.nav.automations, icon: "automations" },
  { to: "/shop", label: ru.nav.shop, icon: "shop" },
  { to: "/mam/trash", label: ru.nav.trash, icon: "trash" },
  { to: "/admin", label: ru.nav.admin, icon: "admin", adminOnly: true },
];
const NAV_TARGETS = NAV.map((item) => item.to);

/**
 * While signed in: keep the access token fresh after a reload, and pick the upload server every 10 minutes.
 * Returns a function that stops this background work (called before signing out, so nothing in flight gets a 401).
 */
function useSignedInChores(): () => void {
  const stop = useRef<() => void>(() => undefined);
  useEffect(() => {
    const controller = new AbortController();
    ensureFreshAccessToken().catch(() => undefined);
    const pick = () =>
      chooseUploadServer(controller.signal).catch((error) => {
        if (!controller.signal.aborted) console.warn("upload server selection failed", error);
      });
    pick();
    const timer = setInterval(pick, ULDL_UPDATE_INTERVAL_MS);
    stop.current = () => {
      clearInterval(timer);
      controller.abort();
    };
    return stop.current;
  }, []);
  return () => stop.current();
}

/** The application shell: navigation, the signed-in user and 'Выйти', around every main screen. */
export function AppShell({ user, children }: { user: ShellUser; children: React.ReactNode }) {
  const navigate = useNavigate();
  const stopChores = useSignedInChores();
  const stopUploads = useUploadsRunning();
  // One highlighted item: NavLink alone would light «Файлы» (/mam) inside «Корзина» (/mam/trash) too.
  const activeNav = activeNavTarget(useLocation().pathname, NAV_TARGETS);

  async function logout() {
    stopChores();
    stopUploads();
    await apiRequest("/api/auth/logout", { toast: false }).catch(() => undefined);
    clearTokens();
    navigate("/login", { replace: true });
  }

  return (
    <div className="shell">
      <aside className="sidebar">
        <div className="sidebar-brand">
          <span className="logo">
            <Icon name="logo" size={20} />
          </span>
          {ru.app.name}
        </div>
        <nav className="nav" aria-label={ru.nav.mainMenu}>
          {NAV.filter((item) => !item.adminOnly || user.isAdmin).map((item) => (
            <Link
              key={item.to}
              to={item.to}
              className={`nav-link${item.to === activeNav ? " active" : ""}`}
              aria-current={item.to === activeNav ? "page" : undefined}
            >
              <Icon name={item.icon} />
              {item.label}
            </Link>
          ))}
        </nav>
        <div className="sidebar-footer">
          <a className="nav-link" href="/api/docs" target="_blank" rel="noreferrer">
            <Icon name="docs" />
            {ru.nav.apiDocs}
          </a>
        </div>
      </aside>
      <div className="main">
        <header className="topbar">
          <SearchBox />
          <div className="user-chip">
            <span className="avatar" aria-hidden="true">
              {user.name.slice(0, 1).toUpperCase()}
            </span>
            <span data-testid="current-user">{user.name}</span>
            <button type="button" className="btn btn-ghost" onClick={logout}>
              <Icon name="logout" />
              {ru.nav.logout}
            </button>
          </div>
        </header>
        <main className="content">{children}</main>
      </div>
      <UploadPanel />
      <NameClashHost />
    </div>
  );
}
