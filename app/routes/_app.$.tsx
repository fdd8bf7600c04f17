import type { MetaFunction } from "@remix-run/cloudflare";
import { ru } from "../i18n/ru";

/**
 * Any address no screen answers (inside the app: the shell stays, with the way back). Without it an address that
 * only partly matches a screen's layout (/admin/foo) rendered the root's page on the server while the browser,
 * discovering the layout's routes, hydrated another tree: React threw hydration errors on every such 404.
 */
export function loader(): never {
  throw new Response(ru.screens.notFound, { status: 404 });
}

export const meta: MetaFunction = () => [{ title: `${ru.screens.notFound} — ${ru.app.name}` }];

export default function NotFound() {
  return null;
}
