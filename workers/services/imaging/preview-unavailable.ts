/**
 * A maker could not make a picture of this file: it is broken, lies about its type, is past a limit, or is of a kind
 * no maker here reads. `reason` is the Russian sentence the preview stage shows («Превью недоступно: <reason>»).
 * Never retried: the same bytes meet the same wall.
 */
export class PreviewUnavailable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "PreviewUnavailable";
  }
}
