import type { EngineCommand, EngineEvent } from "./messages";

type Listener<T> = (message: T) => void;

/**
 * One direction of the engine's message line. `post` delivers asynchronously and in order, like `postMessage`, so a
 * listener never runs inside the sender's call stack (and the engine behaves the same in the page or in a worker).
 * Like a `MessagePort` before `start()`, messages posted while nobody listens wait for the first listener (the
 * engine's code is loaded lazily).
 *
 * @example
 *   const channel = createChannel<EngineEvent>();
 *   const off = channel.subscribe((m) => m.type === "uploadCompleted" && console.log(m.assetId));
 *   channel.post({ type: "uploadError", id, message: "…" });
 */
export interface Channel<T> {
  post(message: T): void;
  subscribe(listener: Listener<T>): () => void;
}

export function createChannel<T>(): Channel<T> {
  const listeners = new Set<Listener<T>>();
  let queue: T[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (listeners.size === 0) return;
    const batch = queue;
    queue = [];
    for (const message of batch) {
      for (const listener of [...listeners]) {
        try {
          listener(message);
        } catch (error) {
          // One broken listener must not stop the others (nor the engine).
          console.warn("upload message listener failed", error);
        }
      }
    }
  };
  return {
    post(message) {
      queue.push(message);
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(flush);
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      if (queue.length > 0 && !scheduled) {
        scheduled = true;
        queueMicrotask(flush);
      }
      return () => listeners.delete(listener);
    },
  };
}

/** Both directions: commands to the engine, events from it. */
export interface EngineBus {
  toEngine: Channel<EngineCommand>;
  fromEngine: Channel<EngineEvent>;
}

export function createEngineBus(): EngineBus {
  return { toEngine: createChannel<EngineCommand>(), fromEngine: createChannel<EngineEvent>() };
}
