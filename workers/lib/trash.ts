/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;

/**
 * How long trashed groups and assets stay restorable. After that the `purge-trash` operation (queued by the cron
 * trigger) deletes them for good; restore answers "expired" from then on.
 */
export const TRASH_RETENTION_DAYS = 30;

/** `TRASH_RETENTION_DAYS` in milliseconds: compare it with `deleted_at` values. */
export const TRASH_RETENTION_MS = TRASH_RETENTION_DAYS * DAY_MS;
