import { ru } from "../../../../shared/i18n/ru";

/**
 * A file crossed one of the parser limits (limits.ts) or is too broken to parse safely. Retrying meets the same
 * wall, so the task runner ends the task at once (never retried); interactive calls answer 413/422. `reason` is the
 * Russian sentence for the log and the viewer, `status` the HTTP status an interactive call answers.
 */
export class ParseLimitError extends Error {
  readonly reason: string;
  readonly status: 413 | 422;
  constructor(why: string, status: 413 | 422 = 422) {
    const reason = ru.parse.tooComplex(why);
    super(reason);
    this.name = "ParseLimitError";
    this.reason = reason;
    this.status = status;
  }
}

/** Bytes as whole MiB for the messages. */
export const mib = (bytes: number) => Math.round(bytes / (1024 * 1024));
