import { afterEach, describe, expect, it, vi } from "vitest";
import type { EngineBus } from "../../app/lib/upload-engine/bus";
import type { EngineCommand, EngineEvent, UploadTarget } from "../../app/lib/upload-engine/messages";
import { EngineSession, everyKeepAlive } from "../../app/lib/upload-engine/engine-session";
import { KEEPALIVE_INTERVAL_MS } from "../../app/lib/upload-engine/queue-rules";
import { WorkerApi } from "../../app/lib/upload-engine/worker-api";
import { UploadWorkerHost } from "../../app/lib/upload-engine/worker-host";
import { connectEngine } from "../../app/lib/upload-engine/worker-link";
import { COMMAND_TYPES, EVENT_TYPES, isEngineCommand, isEngineEvent, NO_REGISTRATION } from "../../app/lib/upload-engine/worker-protocol";

// The upload Service Worker's message routing (SPEC §7 names, §8 missing registration, §9 keep-alive 3 s): which
// messages cross postMessage, what the worker's host does with each (one upload per item for every tab, locks,
// queue reports, keep-alive), the worker's token handling, and the page's fallback to its own engine.

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
/** Waits past the reporter's gathering pause (reports made within 50 ms travel together). */
const gathered = () => new Promise((resolve) => setTimeout(resolve, 120));
const file = () => new File([new Uint8Array(10)], "clip.mp4", { type: "video/mp4" });
const target = (id: string): UploadTarget => ({
  id,
  fileName: "clip.mp4",
  size: 10,
  groupId: "g".repeat(32),
  assetId: null,
  versionOf: undefined,
  variantId: null,
  uploadId: null,
  status: "waiting",
});

describe("protocol", () => {
  it("names exactly SPEC §7's messages in both directions", () => {
    expect([...COMMAND_TYPES].sort()).toEqual(["addCancelId", "idServer", "init", "notClose", "resumeUploadFile", "token", "uploadFile"]);
    expect([...EVENT_TYPES].sort()).toEqual([
      "cancelUpload",
      "changeStatus",
      "resumeUpload",
      "updateProgress",
      "uploadCompleted",
      "uploadError",
    ]);
  });

  it("lets well-formed commands through and drops everything else", () => {
    const good: EngineCommand[] = [
      { type: "init", bearer: "b", serverId: null, maxParallel: 2 },
      { type: "token", bearer: null },
      { type: "idServer", serverId: "s" },
      { type: "uploadFile", item: target("a"), file: file() },
      { type: "resumeUploadFile", item: target("a"), file: null },
      { type: "addCancelId", id: "a" },
      { type: "notClose" },
    ];
    for (const command of good) expect(isEngineCommand(command), command.type).toBe(true);
    for (const bad of [
      null,
      "notClose",
      {},
      { type: "stop" },
      { type: "uploadFile", item: target("a"), file: "bytes" },
      { type: "addCancelId" },
      { type: "token", bearer: 5 },
    ]) {
      expect(isEngineCommand(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it("recognises the worker's events and nothing else", () => {
    expect(isEngineEvent({ type: "updateProgress", id: "a", loaded: 1, total: 2, progress: 50, speed: null })).toBe(true);
    expect(isEngineEvent({ type: "cancelUpload", id: "a", assetId: null })).toBe(true);
    expect(isEngineEvent({ type: "notClose" })).toBe(false);
    expect(isEngineEvent({ type: "uploadCompleted" })).toBe(false);
    expect(isEngineEvent({ source: "react-devtools" })).toBe(false);
  });
});

/** A host with a recording engine, API, tabs and locks. */
function makeHost() {
  let bus: EngineBus | null = null;
  const toEngine: EngineCommand[] = [];
  const stops: number[] = [];
  const requests: { path: string; method?: string; body?: unknown }[] = [];
  const broadcast: EngineEvent[] = [];
  const locks = new Set<string>();
  const credentials: Record<string, unknown> = {};
  let now = 1_000_000;
  const host = new UploadWorkerHost({
    startEngine: (b) => {
      bus = b;
      b.toEngine.subscribe((c) => toEngine.push(c));
      return { stop: () => stops.push(1) };
    },
    api: {
      setCredentials: (next) => Object.assign(credentials, next),
      request: async <T>(path: string, options: { method?: string; body?: unknown } = {}) => {
        requests.push({ path, method: options.method, body: options.body });
        if (path !== "/api/uploads/report") return null as T;
        const { reports } = options.body as { reports: { id: string }[] };
        return { results: reports.map((r) => ({ id: r.id, status: 200, item: null })) } as T;
      },
    },
    broadcast: (event) => broadcast.push(event),
    locks: { take: (id) => locks.add(id), release: (id) => locks.delete(id), releaseAll: () => locks.clear() },
    now: () => now,
  });
  return {
    host,
    toEngine,
    stops,
    requests,
    broadcast,
    locks,
    credentials,
    emit: (event: EngineEvent) => bus!.fromEngine.post(event),
    advance: (ms: number) => (now += ms),
  };
}

describe("the worker's host", () => {
  it("runs an item once however many tabs ask, holding its lock until the engine ends it", async () => {
    const h = makeHost();
    h.host.receive({ type: "uploadFile", item: target("a"), file: file() });
    h.host.receive({ type: "uploadFile", item: target("a"), file: file() });
    await tick();
    expect(h.toEngine.map((c) => c.type)).toEqual(["uploadFile"]);
    expect([...h.locks]).toEqual(["a"]);
    expect([...h.host.running]).toEqual(["a"]);

    h.emit({ type: "uploadCompleted", id: "a", assetId: "x", groupId: null, variantId: "v" });
    await tick();
    expect(h.locks.size).toBe(0);
    expect(h.host.running.size).toBe(0);
    expect(h.broadcast.map((e) => e.type)).toEqual(["uploadCompleted"]);
  });

  it("reports the engine's events to the server's queue and sends every event to every tab", async () => {
    const h = makeHost();
    h.host.receive({ type: "uploadFile", item: target("a"), file: file() });
    await tick();
    h.emit({ type: "changeStatus", id: "a", status: "uploading", assetId: "x", variantId: "v" });
    h.emit({ type: "updateProgress", id: "a", loaded: 5, total: 10, progress: 50, speed: 100 });
    h.emit({ type: "resumeUpload", id: "a", stored: 5 });
    await gathered();
    // (a status report right after would supersede a progress report still waiting: the reporter's rule)
    h.emit({ type: "uploadError", id: "a", message: "сеть" });
    await gathered();
    expect(h.broadcast.map((e) => e.type)).toEqual(["changeStatus", "updateProgress", "resumeUpload", "uploadError"]);
    // Reports travel in batches (POST /api/uploads/report), each item's in the order they were made.
    const batches = h.requests.filter((r) => r.path === "/api/uploads/report");
    expect(batches.length).toBeLessThanOrEqual(3);
    expect(batches.flatMap((r) => (r.body as { reports: unknown[] }).reports)).toEqual([
      { id: "a", patch: { status: "uploading", assetId: "x", variantId: "v" } },
      { id: "a", patch: { progress: 50, speed: 100 } },
      { id: "a", patch: { status: "error", error: "сеть" } },
    ]);
  });

  it("keeps the queue alive for its items once per 3 s however many tabs tick", async () => {
    const h = makeHost();
    h.host.receive({ type: "notClose" });
    expect(h.requests).toEqual([]);
    h.host.receive({ type: "uploadFile", item: target("a"), file: file() });
    h.host.receive({ type: "notClose" });
    h.advance(1_000);
    h.host.receive({ type: "notClose" });
    h.advance(KEEPALIVE_INTERVAL_MS);
    h.host.receive({ type: "notClose" });
    const alive = h.requests.filter((r) => r.path === "/api/uploads/keepalive");
    expect(alive).toHaveLength(2);
    expect(alive[0].body).toEqual({ ids: ["a"] });
    await tick();
    // Every tick still reaches the engine (it restarts transfers that stopped moving).
    expect(h.toEngine.filter((c) => c.type === "notClose")).toHaveLength(4);
  });

  it("takes the tabs' credentials, and a sign-out (null token) stops the engine and frees the items", async () => {
    const h = makeHost();
    h.host.receive({ type: "init", bearer: "b1", serverId: "s1", maxParallel: 2 });
    h.host.receive({ type: "token", bearer: "b2" });
    h.host.receive({ type: "idServer", serverId: "s2" });
    expect(h.credentials).toEqual({ bearer: "b2", serverId: "s2" });
    h.host.receive({ type: "uploadFile", item: target("a"), file: file() });
    h.host.receive({ type: "token", bearer: null });
    expect(h.stops).toHaveLength(1);
    expect(h.locks.size).toBe(0);
    expect(h.host.running.size).toBe(0);
  });

  it("ignores messages that are not the protocol's", async () => {
    const h = makeHost();
    h.host.receive({ type: "stop" });
    h.host.receive("notClose");
    await tick();
    expect(h.toEngine).toEqual([]);
  });
});

describe("the worker's API client", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("sends the tabs' token and server; on 401 waits for the next token and tries once more", async () => {
    const seen: (string | null)[][] = [];
    vi.stubGlobal("fetch", async (_url: URL, init: RequestInit) => {
      const headers = new Headers(init.headers);
      seen.push([headers.get("authorization"), headers.get("prefer-uldl-server"), headers.get("x-api-version")]);
      const ok = headers.get("authorization") === "Bearer fresh";
      return new Response(JSON.stringify(ok ? { state: "ready" } : { message: "expired" }), {
        status: ok ? 200 : 401,
        headers: { "content-type": "application/json" },
      });
    });
    const api = new WorkerApi("https://mam.example", 1_000);
    api.setCredentials({ bearer: "stale", serverId: "s1" });
    const answer = api.request<{ state: string }>("/api/upload/status/v");
    await tick();
    api.setCredentials({ bearer: "fresh" });
    expect(await answer).toEqual({ state: "ready" });
    expect(seen).toEqual([
      ["Bearer stale", "s1", "1.0"],
      ["Bearer fresh", "s1", "1.0"],
    ]);
  });

  it("gives up with the 401 when no new token comes", async () => {
    vi.stubGlobal(
      "fetch",
      async () =>
        new Response(JSON.stringify({ message: "Требуется вход" }), { status: 401, headers: { "content-type": "application/json" } }),
    );
    const api = new WorkerApi("https://mam.example", 20);
    api.setCredentials({ bearer: "stale" });
    await expect(api.request("/api/uploads")).rejects.toMatchObject({ status: 401, message: "Требуется вход" });
  });
});

describe("the page's link to the engine", () => {
  it("without Service Workers the engine stays in the page, and SPEC §8's error is raised once", async () => {
    const warned: string[] = [];
    const first = connectEngine({ serviceWorker: undefined, warn: (e) => warned.push(e.message) });
    const second = connectEngine({ serviceWorker: undefined, warn: (e) => warned.push(e.message) });
    expect(await first.home).toBe("page");
    expect(await second.home).toBe("page");
    expect(warned).toEqual([NO_REGISTRATION]);
  });

  it("a registration refused or blocked falls back to the page too", async () => {
    const blocked = { register: async () => undefined } as unknown as ServiceWorkerContainer;
    const failing = { register: async () => Promise.reject(new Error("SecurityError")) } as unknown as ServiceWorkerContainer;
    expect(await connectEngine({ serviceWorker: blocked, warn: () => undefined }).home).toBe("page");
    expect(await connectEngine({ serviceWorker: failing, warn: () => undefined }).home).toBe("page");
  });

  it("with a worker: commands (also those posted before it was ready) go to it, and only its protocol events come back", async () => {
    const posted: unknown[] = [];
    const listeners: ((event: MessageEvent) => void)[] = [];
    const worker = { postMessage: (m: unknown) => posted.push(m) } as unknown as ServiceWorker;
    const container = {
      register: async () => ({ active: worker }),
      addEventListener: (_type: string, listener: (event: MessageEvent) => void) => listeners.push(listener),
      startMessages: () => undefined,
    } as unknown as ServiceWorkerContainer;
    const link = connectEngine({ serviceWorker: container });
    link.toEngine.post({ type: "notClose" });
    expect(await link.home).toBe("worker");
    await tick();
    expect(posted).toEqual([{ type: "notClose" }]);

    const events: string[] = [];
    link.fromEngine.subscribe((e) => events.push(e.type));
    for (const data of [
      { type: "updateProgress", id: "a", loaded: 1, total: 2, progress: 50, speed: null },
      { type: "somethingElse", id: "a" },
    ]) {
      for (const listener of listeners) listener({ data } as MessageEvent);
    }
    await tick();
    expect(events).toEqual(["updateProgress"]);
  });
});

describe("the page's keep-alive (SPEC §9: 3 s)", () => {
  afterEach(() => vi.useRealTimers());

  it("sends init once, then notClose every 3 s while an engine listens, and a token or server only when it changed", () => {
    vi.useFakeTimers();
    const sent: EngineCommand[] = [];
    let state = { bearer: "t1" as string | null, serverId: "eu-1" as string | null };
    const session = new EngineSession(
      (c) => sent.push(c),
      () => state,
    );
    session.init(6);
    let listens = true;
    const stop = everyKeepAlive(() => session.tick(listens));
    expect(sent).toEqual([{ type: "init", bearer: "t1", serverId: "eu-1", maxParallel: 6 }]);

    vi.advanceTimersByTime(2_999);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sent.slice(1)).toEqual([{ type: "notClose" }]);
    vi.advanceTimersByTime(6_000);
    expect(sent.slice(1).map((c) => c.type)).toEqual(["notClose", "notClose", "notClose"]);

    // A refresh (here or in another tab) and a new server choice reach the engine on the next tick, once.
    sent.length = 0;
    state = { bearer: "t2", serverId: "us-1" };
    vi.advanceTimersByTime(3_000);
    vi.advanceTimersByTime(3_000);
    expect(sent).toEqual([
      { type: "notClose" },
      { type: "token", bearer: "t2" },
      { type: "idServer", serverId: "us-1" },
      { type: "notClose" },
    ]);

    // Signed out in another tab: the cleared token is forwarded even with no engine to keep alive.
    sent.length = 0;
    listens = false;
    state = { bearer: null, serverId: "us-1" };
    vi.advanceTimersByTime(3_000);
    expect(sent).toEqual([{ type: "token", bearer: null }]);
    stop();
    vi.advanceTimersByTime(30_000);
    expect(sent).toHaveLength(1);
  });
});

describe("the page's link, closed", () => {
  it("stops listening to the worker and sending to it", async () => {
    const posted: unknown[] = [];
    const listeners = new Set<(event: MessageEvent) => void>();
    const worker = { postMessage: (m: unknown) => posted.push(m) } as unknown as ServiceWorker;
    const container = {
      register: async () => ({ active: worker }),
      addEventListener: (_type: string, listener: (event: MessageEvent) => void) => listeners.add(listener),
      removeEventListener: (_type: string, listener: (event: MessageEvent) => void) => listeners.delete(listener),
      startMessages: () => undefined,
    } as unknown as ServiceWorkerContainer;
    const link = connectEngine({ serviceWorker: container });
    expect(await link.home).toBe("worker");
    expect(listeners.size).toBe(1);
    link.close();
    expect(listeners.size).toBe(0);
    link.toEngine.post({ type: "notClose" });
    await tick();
    expect(posted).toEqual([]);
  });
});
