import { NavLink, Outlet } from "@remix-run/react";
import { useLevelTitles } from "../components/access/level-checks";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";

const TABS = [
  { to: "/admin/active-users", label: ru.screens.activeUsers },
  { to: "/admin/inactive-users", label: ru.screens.inactiveUsers },
  { to: "/admin/groups", label: ru.screens.userGroups },
  { to: "/admin/audit", label: ru.admin.audit },
  { to: "/admin/storages", label: ru.storages.tab },
  { to: "/admin/libraries", label: ru.libraries.tab },
  { to: "/admin/shortlinks", label: ru.sharing.adminTitle },
  { to: "/admin/orders", label: ru.shop.adminTitle },
  { to: "/admin/metadata", label: ru.screens.metadata },
  { to: "/admin/survey", label: ru.survey.adminTitle },
  { to: "/admin/duplicates", label: ru.duplicates.title },
];

/**
 * Administration layout. The root guard (SPEC §2 rule 3) already sends non-administrators to /mam before this
 * renders, and every call these screens make is refused to them by the API as well.
 */
export default function AdminLayout() {
  // Fetched once here, so the rules tables below have the levels' Russian titles by the time their data arrives.
  useLevelTitles();
  return (
    <>
      <PageHeader title={ru.screens.admin} subtitle={ru.screens.adminHint} />
      <nav className="tabs" aria-label={ru.screens.admin}>
        {TABS.map((tab) => (
          <NavLink key={tab.to} to={tab.to} className={({ isActive }) => `tab${isActive ? " active" : ""}`}>
            {tab.label}
          </NavLink>
        ))}
      </nav>
      <Outlet />
    </>
  );
}
