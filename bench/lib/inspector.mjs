// The Worker's V8 isolate seen through the inspector that `wrangler dev --inspector-port` exposes (Chrome DevTools
// Protocol over a WebSocket): its JS heap size, a forced garbage collection and heap snapshots. Benchmarks read it
// beside workerd's RSS to tell our objects (the JS heap) from the runtime's and the local simulators' memory
// (decision record 028). Needs a global WebSocket (Node 22+; `npm run` puts Node 24 from node_modules first).
import { createWriteStream } from "node:fs";

/**
 * Connects to the Worker's isolate behind `inspectorPort`; answers { heapUsage, snapshot, close }.
 * @example const isolate = await connectInspector(server.inspectorPort); console.log(await isolate.heapUsage());
 */
export async function connectInspector(inspectorPort, timeoutMs = 60_000) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`, { signal: AbortSignal.timeout(timeoutMs) })).json();
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`the inspector on port ${inspectorPort} lists no target`);
  // The inspector proxy refuses an upgrade without an Origin it knows (DevTools sends one; Node's client does not).
  const socket = new WebSocket(url, { headers: { origin: "http://localhost" } });
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", () => reject(new Error(`cannot open ${url}`)), { once: true });
  });

  let nextId = 1;
  const waiting = new Map();
  const listeners = new Map();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data));
    if (message.id !== undefined) {
      const pending = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error) pending?.reject(new Error(`${pending.method}: ${message.error.message}`));
      else pending?.resolve(message.result);
    } else {
      listeners.get(message.method)?.(message.params);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`${method} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      waiting.set(id, {
        method,
        resolve: (value) => (clearTimeout(timer), resolve(value)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      socket.send(JSON.stringify({ id, method, params }));
    });

  return {
    /** { usedSize, totalSize } of the isolate's JS heap in bytes. */
    heapUsage: () => send("Runtime.getHeapUsage"),
    /**
     * Writes a .heapsnapshot (open it in Chrome DevTools → Memory). V8 collects garbage fully before it takes one, so
     * `heapUsage()` right after is what something still holds (workerd's inspector does not answer
     * HeapProfiler.collectGarbage, so this is the way to a collected heap).
     */
    async snapshot(file) {
      const out = createWriteStream(file);
      listeners.set("HeapProfiler.addHeapSnapshotChunk", ({ chunk }) => out.write(chunk));
      try {
        await send("HeapProfiler.takeHeapSnapshot", { reportProgress: false, captureNumericValue: false });
      } finally {
        listeners.delete("HeapProfiler.addHeapSnapshotChunk");
        await new Promise((resolve) => out.end(resolve));
      }
    },
    close: () => socket.close(),
  };
}
