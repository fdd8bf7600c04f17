import type { MetaFunction } from "@remix-run/cloudflare";
import { UpcomingSection } from "../components/upcoming-section";
import { ru } from "../i18n/ru";

export const meta: MetaFunction = () => [{ title: `${ru.screens.activeUsers} — ${ru.app.name}` }];

export default function Screen() {
  return <UpcomingSection title={ru.screens.activeUsers} icon="admin" />;
}
