import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { ru } from "../i18n/ru";

export const meta: MetaFunction = () => [{ title: `${ru.screens.admin} — ${ru.app.name}` }];

const SECTIONS = [
  { to: "/admin/active-users", title: ru.screens.activeUsers, hint: ru.screens.activeUsersHint },
  { to: "/admin/inactive-users", title: ru.screens.inactiveUsers, hint: ru.screens.inactiveUsersHint },
  { to: "/admin/groups", title: ru.screens.userGroups, hint: ru.screens.userGroupsHint },
  { to: "/admin/audit", title: ru.admin.audit, hint: ru.admin.auditHint },
  { to: "/admin/shortlinks", title: ru.sharing.adminTitle, hint: ru.sharing.adminHint },
  { to: "/admin/metadata", title: ru.screens.metadata, hint: ru.screens.metadataHint },
  { to: "/admin/survey", title: ru.survey.adminTitle, hint: ru.survey.adminHint },
];

export default function AdminIndex() {
  return (
    <div className="card-grid">
      {SECTIONS.map((s) => (
        <Link key={s.to} to={s.to} className="card">
          <strong>{s.title}</strong>
          <span className="card-hint">{s.hint}</span>
        </Link>
      ))}
    </div>
  );
}
