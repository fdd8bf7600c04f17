import type { RequestOptions } from "../api-client";
import { createEngineBus, type EngineBus } from "./bus";
import type { EngineCredentials } from "./engine";
import type { EngineCommand, EngineEvent } from "./messages";
import { QueueReporter } from "./queue-reporter";
import type { ReportResult } from "./queue-api";
import { KEEPALIVE_INTERVAL_MS, shouldReportProgress } from "./queue-rules";
import type { UploadItem, UploadPatch } from "./types";
import { endedItem, isEngineCommand } from "./worker-protocol";

/** What the host needs from the Service Worker around it (injected, so the routing is unit-tested in Node). */
export interface WorkerHostDeps {
  /** starts the engine (./engine.ts) on the bus; `stop()` interrupts its uploads and keeps their stored parts */
  startEngine(bus: EngineBus): { stop(): void };
  /** the worker's API client (./worker-api.ts) */
  api: {
    setCredentials(next: Partial<EngineCredentials>): void;
    request<T>(path: string, options?: RequestOptions): Promise<T>;
  };
  /** posts an event to every open tab of the app */
  broadcast(event: EngineEvent): void;
  /** the Web Locks the tabs read to know an item is being uploaded (./tab-locks.ts) */
  locks: { take(id: string): void; release(id: string): void; releaseAll(): void };
  now?(): number;
}

/**
 * The upload engine hosted in the Service Worker: one engine for every tab of the browser. It takes SPEC §7's
 * commands from any tab and sends every event to all of them, and does what the uploading tab's controller does for
 * the in-page engine: holds the item's Web Lock while it runs (so no tab starts it again or asks for its file), reports
 * the events to the server's queue, and keeps the queue's keep-alive of its items. A tab that reloads or navigates
 * leaves the upload running here; only when every tab is gone does the browser end the worker (the keep-alive
 * `notClose` stops, the locks fall and the queue's rules treat the items as interrupted).
 */
export class UploadWorkerHost {
  #bus: EngineBus | null = null;
  #engine: { stop(): void } | null = null;
  readonly #running = new Set<string>();
  readonly #lastReport = new Map<string, { at: number; progress: number }>();
  #lastKeepAlive = 0;
  readonly #reporter: QueueReporter;

  constructor(private readonly deps: WorkerHostDeps) {
    this.#reporter = new QueueReporter({
      onAnswer: () => undefined,
      // Removed from the queue (another tab dismissed it): stop its bytes.
      onGone: (id) => this.#running.has(id) && this.#toEngine({ type: "addCancelId", id }),
      isRunning: (id) => this.#running.has(id),
      send: async (reports) =>
        (await this.deps.api.request<{ results: ReportResult[] }>("/api/uploads/report", { method: "POST", body: { reports }, toast: false }))
          .results,
    });
  }

  /** Items the engine is uploading now. */
  get running(): ReadonlySet<string> {
    return this.#running;
  }

  /** A `message` from a tab: anything but a protocol command is ignored. */
  receive(data: unknown): void {
    if (!isEngineCommand(data)) return;
    const command = data;
    switch (command.type) {
      case "init":
        this.deps.api.setCredentials({ bearer: command.bearer, serverId: command.serverId });
        break;
      case "token":
        this.deps.api.setCredentials({ bearer: command.bearer });
        // Signed out: the uploads stop and keep their stored parts; they resume after the next sign-in.
        if (command.bearer === null) return this.#stopEngine();
        break;
      case "idServer":
        this.deps.api.setCredentials({ serverId: command.serverId });
        break;
      case "uploadFile":
        // Another tab (or a second click) asking for what already runs: one engine, one upload.
        if (this.#running.has(command.item.id)) return;
        this.#startRunning(command.item.id);
        break;
      case "resumeUploadFile":
        this.#startRunning(command.item.id);
        break;
      case "notClose":
        this.#keepQueueAlive();
        break;
      case "addCancelId":
        break;
    }
    this.#toEngine(command);
  }

  #toEngine(command: EngineCommand) {
    if (!this.#bus) {
      this.#bus = createEngineBus();
      this.#bus.fromEngine.subscribe((event) => this.#onEvent(event));
      this.#engine = this.deps.startEngine(this.#bus);
    }
    this.#bus.toEngine.post(command);
  }

  #startRunning(id: string) {
    this.#running.add(id);
    this.deps.locks.take(id);
  }

  #onEvent(event: EngineEvent) {
    const id = event.id;
    switch (event.type) {
      case "changeStatus": {
        const patch: UploadPatch = { status: event.status };
        if (event.assetId) patch.assetId = event.assetId;
        if (event.variantId) patch.variantId = event.variantId;
        if (event.uploadId) patch.uploadId = event.uploadId;
        if (this.#running.has(id)) void this.#reporter.report(id, patch);
        break;
      }
      case "updateProgress": {
        const now = this.#now();
        if (this.#running.has(id) && shouldReportProgress(this.#lastReport.get(id), now, event.progress)) {
          this.#lastReport.set(id, { at: now, progress: event.progress });
          this.#reporter.reportProgress(id, { progress: event.progress, ...(event.speed != null ? { speed: event.speed } : {}) });
        }
        break;
      }
      case "uploadError":
        if (this.#running.has(id))
          void this.#reporter.report(id, { status: "error", ...(event.message ? { error: event.message.slice(0, 1000) } : {}) });
        break;
      case "uploadCompleted":
        void this.#reporter.report(id, { status: "completed" });
        break;
      case "resumeUpload":
      case "cancelUpload":
        break;
    }
    const ended = endedItem(event);
    if (ended) {
      this.#running.delete(ended);
      this.#lastReport.delete(ended);
      this.deps.locks.release(ended);
    }
    this.deps.broadcast(event);
  }

  /** The queue's keep-alive for the items uploading here, at most once per SPEC §9 interval however many tabs tick. */
  #keepQueueAlive() {
    const now = this.#now();
    if (this.#running.size === 0 || now - this.#lastKeepAlive < KEEPALIVE_INTERVAL_MS - 500) return;
    this.#lastKeepAlive = now;
    void this.deps.api
      .request("/api/uploads/keepalive", { method: "POST", body: { ids: [...this.#running] }, toast: false })
      .catch(() => undefined);
  }

  #stopEngine() {
    this.#engine?.stop();
    this.#engine = null;
    this.#bus = null;
    this.#running.clear();
    this.#lastReport.clear();
    this.deps.locks.releaseAll();
  }

  #now() {
    return this.deps.now ? this.deps.now() : Date.now();
  }
}
