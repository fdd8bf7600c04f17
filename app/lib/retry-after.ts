import { ru } from "../i18n/ru";

/**
 * When a refused call may be tried again, from its Retry-After header (RFC 9110: delay-seconds or an HTTP date),
 * as epoch milliseconds; null when the header is absent or unreadable.
 */
export function retryAt(header: string | null, now: number): number | null {
  if (!header) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return now + Number(value) * 1000;
  // An HTTP date always ends in GMT; anything else ("-5", "soon") is unreadable, not a year.
  if (!/GMT$/.test(value)) return null;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(date, now);
}

/** A wait as the login form counts it down: «42 с» under a minute, then «1 мин 05 с». */
export function formatWait(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return ru.login.wait(minutes, seconds);
}
