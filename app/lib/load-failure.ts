import { ApiError } from "./api-error";

/**
 * Why a screen's main object could not be loaded. "unavailable": the server answered that it does not exist or
 * that the caller may not see it (404/403 — answered alike, so a page never tells which); "failed": anything
 * else (a network error, a 5xx), which may pass on a retry.
 */
export type LoadFailure = "unavailable" | "failed";

export function loadFailure(error: unknown): LoadFailure {
  return error instanceof ApiError && (error.status === 403 || error.status === 404 || error.status === 400) ? "unavailable" : "failed";
}
