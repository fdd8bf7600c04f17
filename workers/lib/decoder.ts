import { ru } from "../../shared/i18n/ru";
import type { DecoderEntrypoint } from "../media/decoder-entrypoint";
import { AppError, type ErrorCode } from "./errors";

/**
 * What a DecoderEntrypoint method answers. A refusal (a corrupt or hostile file, a missing object) is a value, not a
 * thrown error: Workers RPC hands the caller only an error's message, and the route must answer the same status and
 * Russian message as when the parser ran in the request.
 */
export type DecoderAnswer<T> = { ok: true; value: T } | { ok: false; code: ErrorCode; message: string };

/**
 * The longest the API Worker waits for the media Worker. Every parser's work budget (decision 027) ends a hostile
 * file in a few seconds; this is the wall behind them, so a request never hangs on a decoder.
 */
export const DECODER_TIMEOUT_MS = 30_000;

/**
 * Calls the media Worker's decoding entrypoint (the DECODER service binding, decision 032): the API Worker parses no
 * file's bytes itself and links no decoder. A refusal becomes the AppError the parser's own check would have thrown;
 * an exception in the media Worker (a bug, a run the platform ended) reaches the caller as an exception, as it did
 * in the request (500); no answer within DECODER_TIMEOUT_MS is a 503.
 */
export async function decode<T>(env: Env, call: (decoder: Service<DecoderEntrypoint>) => Promise<DecoderAnswer<T>>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError("SERVICE_UNAVAILABLE", ru.parse.decoderTimeout(DECODER_TIMEOUT_MS / 1000))),
      DECODER_TIMEOUT_MS,
    );
  });
  try {
    const answer = await Promise.race([call(env.DECODER), timeout]);
    if (!answer.ok) throw new AppError(answer.code, answer.message);
    return answer.value;
  } finally {
    clearTimeout(timer);
  }
}
