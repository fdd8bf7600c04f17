import type { MetaFunction } from "@remix-run/cloudflare";
import { UserList } from "../components/admin/user-list";
import { ru } from "../i18n/ru";

export const meta: MetaFunction = () => [{ title: `${ru.screens.inactiveUsers} — ${ru.app.name}` }];

/** /admin/inactive-users: disabled accounts, which alone can be deleted. */
export default function Screen() {
  return <UserList enabled={false} />;
}
