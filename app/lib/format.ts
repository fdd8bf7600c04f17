import { ru } from "../i18n/ru";

const dateTime = new Intl.DateTimeFormat("ru-RU", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/** An ISO date-time for lists, in Russian; a dash when missing. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return ru.common.dash;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? ru.common.dash : dateTime.format(date);
}
