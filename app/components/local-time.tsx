import { useSyncExternalStore } from "react";
import { ru } from "../i18n/ru";
import { formatDateTime } from "../lib/format";

const noop = () => () => undefined;

/**
 * False while the server renders and while the browser hydrates that HTML, true on every render after: the
 * server does not know the visitor's time zone, so its HTML (and the hydration pass over it) must show UTC, and the
 * browser's own zone follows in the very next render — never a hydration mismatch, and screens opened later in
 * the session (client navigation) show local times at once.
 */
function useAfterHydration(): boolean {
  return useSyncExternalStore(
    noop,
    () => true,
    () => false,
  );
}

let localFormat: Intl.DateTimeFormat | null = null;

/** The browser's zone: its IANA name with its current offset («Asia/Yekaterinburg, GMT+5»). */
export function browserZone(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const offset = new Intl.DateTimeFormat("en-US", { timeZoneName: "shortOffset" }).formatToParts(new Date()).find((p) => p.type === "timeZoneName")?.value;
  return offset && offset !== zone ? `${zone}, ${offset}` : zone;
}

/** An ISO moment in the browser's zone, in the lists' format (a dash when missing or unreadable). */
export function formatLocalDateTime(iso: string | null | undefined): string {
  if (!iso) return ru.common.dash;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return ru.common.dash;
  localFormat ??= new Intl.DateTimeFormat("ru-RU", { dateStyle: "medium", timeStyle: "short" });
  return localFormat.format(date);
}

/**
 * The formatter of moments for text built around them («с … до …», «Следующий запуск: …»): UTC until the page is
 * hydrated, the browser's zone from then on. Times shown on their own use LocalTime (with the zone in a tooltip).
 */
export function useDateTimeFormat(): (iso: string | null | undefined) => string {
  return useAfterHydration() ? formatLocalDateTime : (iso) => formatDateTime(iso);
}

/**
 * Every moment the app shows: in the browser's own time zone once hydrated (UTC in the server's HTML and during
 * hydration), the zone in the tooltip, the instant in `dateTime`.
 * @example <LocalTime iso={asset.ctime} />
 */
export function LocalTime({ iso, className }: { iso: string | null | undefined; className?: string }) {
  const local = useAfterHydration();
  if (!iso || Number.isNaN(new Date(iso).getTime())) return <>{ru.common.dash}</>;
  return (
    <time dateTime={iso} className={className} title={ru.viewerTypes.timeZone(local ? browserZone() : "UTC")} data-local={local ? "" : undefined}>
      {local ? formatLocalDateTime(iso) : formatDateTime(iso)}
    </time>
  );
}
