import { ru } from "../../shared/i18n/ru";
import { AppError, isLibraryHeld, type ErrorCode } from "../lib/errors";
import { metered, type RoundTripMeter } from "./round-trips";

/**
 * The boundary of a call to a library shard (decision 043). Workers RPC carries an exception's message but not its
 * class or fields, so an `AppError` thrown by a service inside the shard would reach the caller as a bare Error — a
 * 500 where the service meant a 404 or a 409. Inside the shard an operation's refusal therefore becomes part of the
 * answer, and the caller turns it back into the same `AppError`. What is left are real failures: a fault in the
 * shard's code (the runtime marks it `remote`) stays a 500 with its cause logged; the shard not answering at all
 * (reset, overloaded, unreachable) is a 503 naming the library, and every other library keeps working.
 */

export type ShardAnswer<T> = { ok: true; value: T } | { ok: false; code: ErrorCode; message: string; headers: Record<string, string> };

/** A shard's answer with its value made into another; a refusal as it is. */
export function mapAnswer<T, U>(answer: ShardAnswer<T>, f: (value: T) => U): ShardAnswer<U> {
  return answer.ok ? { ok: true, value: f(answer.value) } : answer;
}

/** Inside the shard: runs the operation; a refusal (`AppError`) is answered, anything else thrown. */
export async function answerFromShard<T>(operation: () => Promise<T>): Promise<ShardAnswer<T>> {
  try {
    return { ok: true, value: await operation() };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, code: error.code, message: error.message, headers: error.headers };
    // Held by a change across libraries (decision 046): a refusal for seconds, not a fault.
    if (isLibraryHeld(error))
      return { ok: false, code: "SERVICE_UNAVAILABLE", message: ru.groups.libraryHeld, headers: { "Retry-After": "5" } };
    throw error;
  }
}

/** In the caller: the shard's value, its refusal as the same `AppError`, or 503 when the shard gave no answer. */
export async function callShard<T>(library: string, call: () => Promise<ShardAnswer<T>>, meter?: RoundTripMeter): Promise<T> {
  let answer: ShardAnswer<T>;
  try {
    answer = await metered(meter, 1, call);
  } catch (error) {
    if ((error as { remote?: boolean } | null)?.remote) throw error;
    console.error(JSON.stringify({ level: "error", op: "library-shard", library, message: String(error) }));
    throw new AppError("SERVICE_UNAVAILABLE", ru.groups.libraryDown(library), { "Retry-After": "5" });
  }
  if (!answer.ok) throw new AppError(answer.code, answer.message, answer.headers);
  return answer.value;
}
