import { createChannel, type EngineBus } from "./bus";
import type { EngineCommand, EngineEvent } from "./messages";
import { isEngineEvent, NO_REGISTRATION, UPLOAD_WORKER_URL } from "./worker-protocol";

/** Where the page's upload engine runs: the shared Service Worker, or this page (the fallback). */
export type EngineHome = "worker" | "page";

/**
 * The page's line to the upload engine: the same two channels as the in-page bus. Commands posted before it is known
 * where the engine runs wait in `toEngine`; `home` then says which: "worker" (they go to the Service Worker by
 * `postMessage`, and its events to every tab come back on `fromEngine`) or "page" (the caller starts the in-page
 * engine on these channels, as before).
 */
export interface EngineLink extends EngineBus {
  readonly home: Promise<EngineHome>;
  /** stops listening to the worker (sign-out): a later link starts afresh */
  close(): void;
}

/** What the link needs from the browser (injected in the unit tests). */
export interface LinkEnvironment {
  serviceWorker: ServiceWorkerContainer | undefined;
  /** how long to wait for the worker to become active */
  readyTimeoutMs?: number;
  warn?(error: Error): void;
}

let warned = false;

/** SPEC §8: logged once per page, then the page uploads on its own. */
function warnOnce(error: Error, warn: (error: Error) => void) {
  if (warned) return;
  warned = true;
  warn(error);
}

const browserEnvironment = (): LinkEnvironment => ({
  serviceWorker: typeof navigator !== "undefined" && "serviceWorker" in navigator ? navigator.serviceWorker : undefined,
});

/**
 * Registers /upload-sw.js and answers the active worker; throws `No service worker registration` (SPEC §8) when the
 * browser has no Service Workers (old browsers, http on a non-localhost origin, a policy or a test blocking them) or
 * the registration fails.
 */
export async function activeUploadWorker(container: ServiceWorkerContainer | undefined, readyTimeoutMs = 10_000): Promise<ServiceWorker> {
  if (!container) throw new Error(NO_REGISTRATION);
  const registration = await container.register(UPLOAD_WORKER_URL, { scope: "/" }).catch(() => undefined);
  if (!registration) throw new Error(NO_REGISTRATION);
  if (registration.active) return registration.active;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(NO_REGISTRATION)), readyTimeoutMs)));
  try {
    const ready = await Promise.race([container.ready, timeout]);
    if (!ready.active) throw new Error(NO_REGISTRATION);
    return ready.active;
  } finally {
    clearTimeout(timer);
  }
}

export function connectEngine(env: LinkEnvironment = browserEnvironment()): EngineLink {
  const toEngine = createChannel<EngineCommand>();
  const fromEngine = createChannel<EngineEvent>();
  let closed = false;
  let unlink = () => undefined as void;
  const home = activeUploadWorker(env.serviceWorker, env.readyTimeoutMs).then(
    (worker): EngineHome => {
      const container = env.serviceWorker!;
      const onMessage = (event: MessageEvent) => {
        if (isEngineEvent(event.data)) fromEngine.post(event.data);
      };
      if (!closed) {
        container.addEventListener("message", onMessage);
        container.startMessages();
        const off = toEngine.subscribe((command) => worker.postMessage(command));
        unlink = () => {
          container.removeEventListener("message", onMessage);
          off();
        };
      }
      return "worker";
    },
    (error: unknown): EngineHome => {
      warnOnce(error instanceof Error ? error : new Error(NO_REGISTRATION), env.warn ?? ((e) => console.warn(e.message)));
      return "page";
    },
  );
  return {
    toEngine,
    fromEngine,
    home,
    close() {
      closed = true;
      unlink();
    },
  };
}
