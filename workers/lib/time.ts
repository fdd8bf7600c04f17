/** Epoch milliseconds to an ISO 8601 string for API answers; null stays null. */
export function toIso(ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(ms).toISOString();
}
