import { ru } from "../i18n/ru";

/** An API answer that was not OK, carrying the parsed body (SPEC §8). */
export class ApiError extends Error {
  /** `headers`: the failed answer's headers (Retry-After of a 429). */
  constructor(readonly status: number, readonly body: unknown, message: string, readonly headers: Headers = new Headers()) {
    super(message);
    this.name = "ApiError";
  }
}

/**
 * The text a toast shows for a failed call: the body's `message` when there is one, otherwise the SPEC §8
 * fallbacks ('HTTP {code}: {message}', 'Ошибка на сервере', 'Неизвестная ошибка').
 */
export function errorMessage(status: number, body: unknown, statusText = ""): string {
  if (body && typeof body === "object" && "message" in body && typeof body.message === "string" && body.message) {
    return body.message;
  }
  if (typeof body === "string" && body.trim()) return ru.errors.http(status, body.trim().slice(0, 300));
  if (status >= 500) return ru.errors.server;
  if (status > 0) return ru.errors.http(status, statusText || ru.errors.unknown);
  return ru.errors.unknown;
}

/** A message for anything thrown, for toasts and logs. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message || ru.errors.unknown;
  try {
    return typeof error === "string" ? error : JSON.stringify(error) ?? ru.errors.unknown;
  } catch {
    return ru.errors.serialize;
  }
}
