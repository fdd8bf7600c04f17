import { ru } from "../../i18n/ru";
import type { User } from "./admin-api";

const t = ru.admin.roles;

/** What kind of account this is: administrator, robot, confined to groups, made by single sign-on. */
export function UserBadges({ user }: { user: User }) {
  return (
    <span className="adm-badges">
      {user.is_admin && <span className="adm-badge adm-badge-accent">{t.admin}</span>}
      {user.is_robot && <span className="adm-badge adm-badge-robot">{t.robot}</span>}
      {!user.is_admin && !user.is_robot && <span className="adm-badge">{t.user}</span>}
      {user.chroot_groups.length > 0 && <span className="adm-badge adm-badge-warn">{t.chroot}</span>}
      {!user.has_password && !user.is_robot && <span className="adm-badge">{t.sso}</span>}
    </span>
  );
}
