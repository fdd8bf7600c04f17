import type { MetaFunction } from "@remix-run/cloudflare";
import { UserList } from "../components/admin/user-list";
import { ru } from "../i18n/ru";

export const meta: MetaFunction = () => [{ title: `${ru.screens.activeUsers} — ${ru.app.name}` }];

/** /admin/active-users: accounts and robots that may sign in. */
export default function Screen() {
  return <UserList enabled={true} />;
}
