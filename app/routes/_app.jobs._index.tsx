import type { MetaFunction } from "@remix-run/cloudflare";
import { UpcomingSection } from "../components/upcoming-section";
import { ru } from "../i18n/ru";

export const meta: MetaFunction = () => [{ title: `${ru.screens.jobs} — ${ru.app.name}` }];

export default function Screen() {
  return <UpcomingSection title={ru.screens.jobs} icon="jobs" />;
}
