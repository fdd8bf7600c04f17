import { Link, useLocation, useNavigate } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { ru } from "../i18n/ru";
import { apiRequest, ensureFreshAccessToken } from "../lib/api-client";
import { activeNavTarget } from "../lib/nav-active";
import { clearTokens } from "../lib/tokens";
import { useFocusTrap } from "../lib/use-focus-trap";
import { useUploadsRunning } from "../lib/upload-engine/index";
import { chooseUploadServer, ULDL_UPDATE_INTERVAL_MS } from "../lib/upload-servers";
import { Icon, type IconName } from "./icons";
import { FavouritesNav } from "./favourites-nav";
import { CollectionsNav } from "./collections/collections-nav";
import { SearchBox } from "./search/search-box";
import { NameClashHost } from "./name-clash-dialog";
import { DuplicateHost } from "./duplicate-dialog";
import { SurveyModal } from "./survey-modal";
import { UploadPanel } from "./upload-panel";
import { NotificationBell } from "./comments/notification-bell";

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

/** Where the sidebar becomes a drawer (the same width as the `max-width: 900px` rules in app.css). */
const DRAWER_QUERY = "(max-width: 900px)";

/**
 * The navigation drawer of narrow screens: open/closed state that closes on navigation, on Escape, on the overlay and
 * when the window grows past the drawer breakpoint; focus stays inside while it is open and the page behind does not
 * scroll.
 */
function useNavDrawer() {
  const [open, setOpen] = useState(false);
  const drawer = useRef<HTMLElement>(null);
  const location = useLocation();
  useEffect(() => setOpen(false), [location.pathname, location.search]);
  useEffect(() => {
    const query = window.matchMedia(DRAWER_QUERY);
    const onChange = () => !query.matches && setOpen(false);
    query.addEventListener("change", onChange);
    return () => query.removeEventListener("change", onChange);
  }, []);
  useEffect(() => {
    if (!open) return;
    const overflow = document.body.style.overflow;
    document.body.style.overflow = "hidden";
    return () => {
      document.body.style.overflow = overflow;
    };
  }, [open]);
  useFocusTrap(drawer, open, () => setOpen(false));
  return { open, setOpen, drawer };
}

/** The application shell: navigation, the signed-in user and 'Выйти', around every main screen. */
export function AppShell({ user, children }: { user: ShellUser; children: React.ReactNode }) {
  const navigate = useNavigate();
  const stopChores = useSignedInChores();
  const stopUploads = useUploadsRunning();
  const nav = useNavDrawer();
  // One highlighted item: NavLink alone would light «Файлы» (/mam) inside «Корзина» (/mam/trash) too.
  const activeNav = activeNavTarget(useLocation().pathname, NAV_TARGETS);

  async function logout() {
    stopChores();
    stopUploads({ signOut: true });
    await apiRequest("/api/auth/logout", { toast: false }).catch(() => undefined);
    clearTokens();
    navigate("/login", { replace: true });
  }

  return (
    <div className={`shell${nav.open ? " nav-open" : ""}`}>
      <aside
        id="app-sidebar"
        className="sidebar"
        ref={nav.drawer}
        {...(nav.open ? { role: "dialog", "aria-modal": true, "aria-label": ru.nav.mainMenu } : {})}
      >
        <div className="sidebar-brand">
          <span className="logo">
            <Icon name="logo" size={20} />
          </span>
          {ru.app.name}
          <button type="button" className="icon-btn drawer-close" aria-label={ru.nav.closeMenu} onClick={() => nav.setOpen(false)}>
            <span aria-hidden="true">×</span>
          </button>
        </div>
        <nav className="nav" aria-label={ru.nav.mainMenu}>
          {NAV.filter((item) => !item.adminOnly || user.isAdmin).map((item) => (
            <Link
              key={item.to}
              to={item.to}
              className={`nav-link${item.to === activeNav ? " active" : ""}`}
              aria-current={item.to === activeNav ? "page" : undefined}
              onClick={() => nav.setOpen(false)}
            >
              <Icon name={item.icon} />
              {item.label}
            </Link>
          ))}
        </nav>
        <CollectionsNav onNavigate={() => nav.setOpen(false)} />
        <FavouritesNav onNavigate={() => nav.setOpen(false)} />
        <div className="sidebar-footer">
          <a className="nav-link" href="/api/docs" target="_blank" rel="noreferrer">
            <Icon name="docs" />
            {ru.nav.apiDocs}
          </a>
        </div>
      </aside>
      {nav.open && <div className="nav-overlay" aria-hidden="true" onClick={() => nav.setOpen(false)} />}
      <div className="main">
        <header className="topbar">
          <button
            type="button"
            className="icon-btn menu-btn"
            aria-label={ru.nav.openMenu}
            aria-controls="app-sidebar"
            aria-expanded={nav.open}
            onClick={() => nav.setOpen(true)}
          >
            <Icon name="menu" size={20} />
          </button>
          <SearchBox />
          <NotificationBell />
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
      <DuplicateHost />
      <SurveyModal />
    </div>
  );
}
