import type { EngineCommand } from "./messages";
import { KEEPALIVE_INTERVAL_MS } from "./queue-rules";

/** What the page tells the engine about the session: the bearer and the chosen upload/download server. */
export interface SessionState {
  bearer: string | null;
  serverId: string | null;
}

/**
 * The page's side of the engine's session (SPEC §7 `init`, `token`, `idServer`, `notClose`; §9 keep-alive 3 s):
 * `init` once, then on every tick `notClose` while an engine listens, and the token and server whenever they
 * changed since they were last sent (a refresh in this tab or another, a new server choice). The engine in a
 * Service Worker has no storage of its own: these messages are how it learns of a refreshed token.
 *
 * @example
 *   const session = new EngineSession((c) => bus.toEngine.post(c), () => ({ bearer: readTokens().bearer, serverId }));
 *   session.init(MAX_PARALLEL_UPLOADS);
 *   const stop = everyKeepAlive(() => session.tick(engineStarted));
 */
export class EngineSession {
  #sent: SessionState = { bearer: null, serverId: null };

  constructor(private readonly post: (command: EngineCommand) => void, private readonly read: () => SessionState) {}

  init(maxParallel: number): void {
    this.#sent = this.read();
    this.post({ type: "init", bearer: this.#sent.bearer, serverId: this.#sent.serverId, maxParallel });
  }

  tick(engineListens: boolean): void {
    if (engineListens) this.post({ type: "notClose" });
    const now = this.read();
    if (now.bearer !== this.#sent.bearer) this.post({ type: "token", bearer: now.bearer });
    if (now.serverId !== this.#sent.serverId) this.post({ type: "idServer", serverId: now.serverId });
    this.#sent = now;
  }
}

/** Runs `tick` every SPEC §9 keep-alive interval (3 s); answers the stop. */
export function everyKeepAlive(tick: () => void): () => void {
  const timer = setInterval(tick, KEEPALIVE_INTERVAL_MS);
  return () => clearInterval(timer);
}
