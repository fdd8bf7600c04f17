/**
 * Date pickers speak the browser's local time (`<input type="datetime-local">` and `type="date"` have no zone);
 * the API stores instants. These convert between the two, so a link «до 18:00» set at UTC+5 is 13:00Z on the
 * server and «18:00» again in the picker.
 */

const pad = (n: number) => String(n).padStart(2, "0");

/** An ISO instant as a `datetime-local` value in the browser's zone («2026-12-02T18:00»); "" when unreadable. */
export function localInputOf(iso: string | null | undefined): string {
  const date = iso ? new Date(iso) : null;
  if (!date || Number.isNaN(date.getTime())) return "";
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A `datetime-local` (or `date` with `time`) value read as the browser's local time, as an ISO instant; null when empty or unreadable. */
export function instantOfLocal(local: string, time = ""): string | null {
  if (!local) return null;
  // «YYYY-MM-DDTHH:mm» without a zone is local time to Date (ECMAScript date-time forms).
  const ms = new Date(time ? `${local}T${time}` : local).getTime();
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
