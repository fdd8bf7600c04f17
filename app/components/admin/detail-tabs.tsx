import { NavLink } from "@remix-run/react";

/** The tabs of a user's or a group's page (a second row under the admin tabs). */
export function DetailTabs({ label, tabs }: { label: string; tabs: { to: string; label: string }[] }) {
  return (
    <nav className="adm-subtabs segmented" aria-label={label}>
      {tabs.map((tab) => (
        <NavLink key={tab.to} to={tab.to} className={({ isActive }) => `md-section-tab${isActive ? " active" : ""}`}>
          {tab.label}
        </NavLink>
      ))}
    </nav>
  );
}
