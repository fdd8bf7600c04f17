import { statSync } from "node:fs";
import { debuglog } from "node:util";
import type { Plugin } from "vite";
import type { PoolRunnerInitializer, PoolWorker } from "vitest/node";

/**
 * Bounds vitest's «warm modules» reply to a test worker inside workerd.
 *
 * A fresh test worker asks the runner once for every already-transformed module in its test file's import graph
 * (`fetchWarmModules`), and the Cloudflare pool inlines each module's code into that ONE reply on its WebSocket.
 * The integration tier's graph is the whole product (pdf.js, the Remix server build, zod, the codecs…): about 31 MiB
 * of code in one message, a hair under workerd's WebSocket message limit (32 MiB; above it workerd closes the socket
 * with 1009 «Message is too large» and the test file's worker exits). Any module that joins the graph (mediabunny
 * after the first audio/video probe, 2.8 MiB transformed) pushed every later file over it.
 *
 * The reply is only a shortcut (a module missing from it is fetched on its own, one module per message), so it is
 * cut to a budget: the smallest modules first, which saves the most round trips per byte.
 */

/** Bytes of module code one warm-modules reply may carry (half of workerd's 32 MiB WebSocket message). */
export const WARM_REPLY_BUDGET = 16 * 1024 * 1024;

const log = debuglog("warm-modules-budget");

/** One entry of a warm-modules reply: a transformed module on disk (`tmp`), inline `code`, or an externalised id. */
function entrySize(entry: unknown, sizeOfFile: (path: string) => number): number {
  if (typeof entry !== "object" || entry === null) return 0;
  if ("tmp" in entry && typeof entry.tmp === "string") {
    try {
      return sizeOfFile(entry.tmp);
    } catch {
      // the pool drops an entry whose file it cannot read; leaving it out here costs nothing
      return Number.POSITIVE_INFINITY;
    }
  }
  if ("code" in entry && typeof entry.code === "string") return entry.code.length;
  return 0;
}

/**
 * The map of a warm-modules reply cut to `budget` bytes of code: entries kept smallest first; a module listed under
 * both its url and its id (the same entry object) is kept or left out as one; externalised ids (no code) always stay.
 */
export function trimWarmModules(
  modules: Record<string, unknown>,
  budget: number,
  sizeOfFile: (path: string) => number = (path) => statSync(path).size,
): { kept: Record<string, unknown>; keptBytes: number; dropped: number } {
  const sizes = new Map<unknown, number>();
  for (const entry of Object.values(modules)) if (!sizes.has(entry)) sizes.set(entry, entrySize(entry, sizeOfFile));
  const keep = new Set<unknown>();
  let keptBytes = 0;
  for (const [entry, size] of [...sizes].sort((a, b) => a[1] - b[1])) {
    if (keptBytes + size > budget) break;
    keptBytes += size;
    keep.add(entry);
  }
  const kept: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(modules)) if (keep.has(entry)) kept[key] = entry;
  return { kept, keptBytes, dropped: sizes.size - keep.size };
}

/** A birpc request from the worker: `{ t: "q", m: method, i: id }`. */
function warmRequestId(message: unknown): string | null {
  if (typeof message !== "object" || message === null) return null;
  if (!("t" in message) || message.t !== "q" || !("m" in message) || message.m !== "fetchWarmModules") return null;
  return "i" in message && typeof message.i === "string" ? message.i : null;
}

/** The runner's side of one test worker, with its warm-modules replies cut to the budget. */
function budgeted(worker: PoolWorker, budget: number): PoolWorker {
  const pending = new Set<string>();
  const on = worker.on.bind(worker);
  const send = worker.send.bind(worker);
  worker.on = (event, callback) =>
    on(event, event !== "message" ? callback : (message: unknown, ...rest: unknown[]) => {
      const id = warmRequestId(message);
      if (id !== null) pending.add(id);
      callback(message, ...rest);
    });
  worker.send = (message) => {
    // a birpc answer `{ t: "s", i: id, r: result }` to a warm-modules request of this worker
    const reply: object = message;
    if ("t" in reply && reply.t === "s" && "i" in reply && typeof reply.i === "string" && pending.delete(reply.i)) {
      if ("r" in reply && typeof reply.r === "object" && reply.r !== null && !Array.isArray(reply.r)) {
        const { kept, keptBytes, dropped } = trimWarmModules({ ...reply.r }, budget);
        log("warm modules: %d KiB kept, %d left to be fetched one by one", Math.round(keptBytes / 1024), dropped);
        return send(Object.assign({}, message, { r: kept }));
      }
    }
    return send(message);
  };
  return worker;
}

/** A Vitest plugin wrapping the pool set by `cloudflareTest()`: list it AFTER that plugin. */
export function warmModulesBudget(budget = WARM_REPLY_BUDGET): Plugin {
  return {
    name: "warm-modules-budget",
    configureVitest({ project }) {
      const inner: PoolRunnerInitializer | undefined = project.config.poolRunner;
      if (!inner) throw new Error("warmModulesBudget() must come after cloudflareTest() in the plugins list");
      project.config.poolRunner = { name: inner.name, createPoolWorker: (options) => budgeted(inner.createPoolWorker(options), budget) };
    },
  };
}
