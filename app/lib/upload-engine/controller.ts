import { ru } from "../../i18n/ru";
import { apiRequest, ensureFreshAccessToken, ULDL_SERVER_KEY } from "../api-client";
import { ApiError } from "../api-error";
import { uploadClientPreview } from "../client-preview";
import { mediaKind } from "../media-kind";
import { showToast } from "../toast";
import { readTokens } from "../tokens";
import { createEngineBus, type EngineBus } from "./bus";
import type { UploadEngine } from "./engine";
import { EngineSession, everyKeepAlive } from "./engine-session";
import { createFolders } from "./folders";
import type { EngineEvent, UploadTarget } from "./messages";
import { watchPageLifecycle } from "./page-lifecycle";
import type { PickedFile } from "./pick";
import * as queueApi from "./queue-api";
import { QueueReporter } from "./queue-reporter";
import {
  cancelPlan,
  inQueueOrder,
  isFinal,
  MAX_PARALLEL_UPLOADS,
  matchPickedFile,
  needsFile,
  nextToStart,
  shouldReportProgress,
  shownProgress,
  summarize,
  type LiveProgress,
  type QueueSummary,
} from "./queue-rules";
import { TabLocks } from "./tab-locks";
import { ACTIVE_STATUSES, newUploadId, type UploadItem, type UploadPatch } from "./types";
import { connectEngine, type EngineHome } from "./worker-link";

/** One row of the status panel. */
export interface UploadView {
  item: UploadItem;
  /** name of the target folder, when known */
  groupName: string | null;
  progress: number;
  speed: number | null;
  /** this tab's engine is uploading it */
  drivenHere: boolean;
  /** another tab of this browser is uploading it */
  drivenElsewhere: boolean;
  /** this tab holds the file's bytes */
  hasFile: boolean;
  /** it waits for the user to pick the file again (after a reload) */
  needsFile: boolean;
  cancelling: boolean;
  /** bytes the server already had when the upload resumed */
  resumedFrom: number | null;
}

export interface UploadsSnapshot {
  views: UploadView[];
  summary: QueueSummary;
  /** the live WebSocket is up (otherwise the list is polled) */
  live: boolean;
}

const EMPTY: UploadsSnapshot = { views: [], summary: summarize([]), live: false };
/** While the WebSocket is down the queue is read this often. */
const POLL_MS = 5_000;
/** Files per POST /api/uploads (the queue takes at most this many at once). */
const ADD_BATCH = 500;
/** The panel is re-rendered at most this often (see `#emit`). */
const PUBLISH_INTERVAL_MS = 100;

/** The version of an item's state, to drop answers that arrive after a newer one. */
const versionOf = (item: UploadItem) => Math.max(item.mtime, item.lastSeen ?? 0);

function targetOf(item: UploadItem): UploadTarget {
  const { id, fileName, size, groupId, assetId, versionOf, variantId, uploadId, status } = item;
  return { id, fileName, size, groupId, assetId, versionOf, variantId, uploadId, status };
}

/**
 * The page side of uploads: applies the SPEC §4 queue rules to the server's queue, feeds the engine through its
 * message protocol, keeps the keep-alive, resumes uploads when the page is visible again and after a reload, and
 * guards leaving the page. One per page (`uploadController()`).
 *
 * The engine runs in the upload Service Worker when the browser has one (./worker-link.ts): one engine for every
 * tab, which holds the items' locks and reports to the server's queue itself (./worker-host.ts), so uploads go on
 * across navigations and reloads and every tab shows the same progress. Without a registration (SPEC §8) the engine
 * runs in this page as before, and this controller holds the locks and reports.
 */
export class UploadController {
  #bus: EngineBus = createEngineBus();
  #closeLink: () => void = () => undefined;
  #home: Promise<EngineHome> = Promise.resolve("page");
  /** the engine is the shared Service Worker's (known once its registration answered) */
  #remote = false;
  #engine: UploadEngine | null = null;
  #engineLoading: Promise<void> | null = null;
  readonly #items = new Map<string, UploadItem>();
  readonly #files = new Map<string, File>();
  readonly #live = new Map<string, LiveProgress>();
  readonly #running = new Set<string>();
  readonly #locks = new TabLocks();
  readonly #cancelling = new Set<string>();
  readonly #cancelWaiters = new Map<string, (assetId: string | null) => void>();
  readonly #resumedFrom = new Map<string, number>();
  readonly #endedHere = new Map<string, { status: "completed" | "error"; error: string | null }>();
  readonly #groupNames = new Map<string, string | null>();
  readonly #reporter = new QueueReporter({
    onAnswer: (item) => {
      if (item) this.#upsert(item);
      this.#afterChange();
    },
    onGone: (id) => this.#forget(id),
    isRunning: (id) => this.#running.has(id),
  });
  readonly #lastReport = new Map<string, { at: number; progress: number }>();
  readonly #listeners = new Set<() => void>();
  #publishPending = false;
  #lastPublish = 0;
  readonly #eventListeners = new Set<(event: EngineEvent) => void>();
  #snapshot: UploadsSnapshot = EMPTY;
  #socket: queueApi.QueueSocket | null = null;
  #socketUp = false;
  #users = 0;
  #cleanup: (() => void)[] = [];
  readonly #session = new EngineSession(
    (command) => this.#bus.toEngine.post(command),
    () => ({ bearer: readTokens().bearer, serverId: localStorage.getItem(ULDL_SERVER_KEY) }),
  );
  #generation = 0;
  /** the page is being unloaded (pagehide) */
  #leaving = false;

  // ---- lifecycle ----

  /**
   * Starts uploads for the signed-in user (the shell calls it); answers the matching stop, told `signOut` when the
   * user signs out (the shared worker's uploads stop then, not when a page merely leaves). Counted, so nestable.
   */
  start(): (options?: { signOut?: boolean }) => void {
    this.#users += 1;
    if (this.#users === 1) this.#begin();
    let stopped = false;
    return (options = {}) => {
      if (stopped) return;
      stopped = true;
      this.#users -= 1;
      if (this.#users === 0) this.#end(options.signOut === true);
    };
  }

  #begin() {
    const generation = ++this.#generation;
    const link = connectEngine();
    this.#bus = link;
    this.#closeLink = () => link.close();
    this.#home = link.home;
    this.#remote = false;
    void link.home.then((home) => {
      if (generation !== this.#generation) return;
      this.#remote = home === "worker";
      this.#afterChange();
    });
    const offEvents = this.#bus.fromEngine.subscribe((event) => this.#onEngineEvent(event));
    this.#session.init(MAX_PARALLEL_UPLOADS);

    // The queue is read once the screen's own first requests are out (it is not needed for the first paint); the
    // socket reads it first (that call also refreshes a stale token), then listens for changes.
    const connect = () => {
      if (generation !== this.#generation) return;
      this.#socket = queueApi.openQueueSocket(
        (message) => this.#onSocket(message),
        (live) => {
          this.#socketUp = live;
          this.#emit();
        },
        () => this.#reload(),
      );
    };
    const idle = typeof requestIdleCallback === "function" ? requestIdleCallback(connect, { timeout: 1_500 }) : null;
    const later = idle === null ? setTimeout(connect, 300) : undefined;
    const stopKeepAlive = everyKeepAlive(() => this.#keepAlive());
    const poll = setInterval(() => !this.#socketUp && void this.#reload(), POLL_MS);
    const stopWatchingPage = watchPageLifecycle({
      onVisible: () => this.#resumeAfterHidden(),
      hasUnsavedWork: () => this.hasUnsavedWork(),
      onLeaving: (leaving) => (this.#leaving = leaving),
    });
    this.#cleanup = [
      offEvents,
      () => (idle !== null ? cancelIdleCallback(idle) : clearTimeout(later)),
      stopKeepAlive,
      () => clearInterval(poll),
      stopWatchingPage,
    ];
  }

  #end(signOut = false) {
    this.#generation += 1;
    for (const fn of this.#cleanup) fn();
    this.#cleanup = [];
    this.#engine?.stop();
    this.#engine = null;
    this.#engineLoading = null;
    // The shared engine outlives this page; a sign-out sends it the null token, which stops its uploads (their
    // parts stay, they resume after the next sign-in). Other tabs forward the cleared token on their next tick too.
    if (this.#remote && signOut) this.#bus.toEngine.post({ type: "token", bearer: null });
    this.#remote = false;
    // Once the command above has gone out (the channel delivers on a microtask).
    setTimeout(this.#closeLink, 0);
    this.#socket?.close();
    this.#socket = null;
    this.#locks.releaseAll();
    this.#items.clear();
    this.#files.clear();
    this.#live.clear();
    this.#running.clear();
    this.#socketUp = false;
    this.#emit();
  }

  /** Whether leaving the page now would lose bytes: an upload runs here, or files picked here still wait. */
  hasUnsavedWork(): boolean {
    // The shared engine holds the bytes of what it uploads; only files still waiting here would be lost.
    if (this.#running.size > 0 && !this.#remote) return true;
    return [...this.#files.keys()].some((id) => this.#items.get(id)?.status === "waiting");
  }

  // ---- React ----

  subscribe = (listener: () => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  getSnapshot = () => this.#snapshot;

  /** Engine messages (MamGroup listens for uploadCompleted). */
  onEngineEvent(listener: (event: EngineEvent) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  /**
   * Publishes the panel's state at most once per `PUBLISH_INTERVAL_MS`: a batch of hundreds of small files changes
   * several times per file, and rebuilding and rendering every row on each change made the page the bottleneck.
   */
  #emit() {
    if (this.#publishPending) return;
    const wait = this.#lastPublish + PUBLISH_INTERVAL_MS - Date.now();
    // The first change after a quiet spell shows at once (a batch is seen waiting); the rest wait for the interval.
    if (wait <= 0) return this.#publish();
    this.#publishPending = true;
    setTimeout(() => {
      this.#publishPending = false;
      this.#publish();
    }, wait);
  }

  #publish() {
    this.#lastPublish = Date.now();
    const items = inQueueOrder([...this.#items.values()]);
    const views = items.map((item): UploadView => {
      const drivenHere = this.#engineRuns(item.id);
      const live = drivenHere ? this.#live.get(item.id) : undefined;
      const shown = shownProgress(item, live);
      const hasFile = this.#files.has(item.id);
      const drivenElsewhere = !drivenHere && this.#locks.heldElsewhere(item.id);
      if (item.groupId && !this.#groupNames.has(item.groupId)) this.#lookUpGroupName(item.groupId);
      return {
        item,
        groupName: item.groupId ? this.#groupNames.get(item.groupId) ?? null : null,
        progress: shown.progress,
        speed: shown.speed,
        drivenHere,
        drivenElsewhere,
        hasFile,
        needsFile: !drivenHere && needsFile(item, { hasFile, drivenElsewhere }),
        cancelling: this.#cancelling.has(item.id) || item.cancelled,
        resumedFrom: this.#resumedFrom.get(item.id) ?? null,
      };
    });
    const live = new Map([...this.#live].filter(([id]) => this.#engineRuns(id)));
    // An interrupted item keeps the speed it was last reported with: it does not count.
    const stalled = new Set(views.filter((v) => v.needsFile).map((v) => v.item.id));
    const counted = items.map((i) => (stalled.has(i.id) ? { ...i, speed: 0 } : i));
    this.#snapshot = { views, summary: summarize(counted, live), live: this.#socketUp };
    for (const listener of this.#listeners) listener();
  }

  #lookUpGroupName(groupId: string) {
    this.#groupNames.set(groupId, null);
    apiRequest<{ group_name: string }>(`/api/group/get/${groupId}`, { toast: false }).then(
      (g) => {
        this.#groupNames.set(groupId, g.group_name);
        this.#emit();
      },
      () => undefined,
    );
  }

  /**
   * Whether the engine this page talks to uploads the item: this page's own engine, or the shared worker's (which
   * holds the item's lock, whichever tab asked it).
   */
  #engineRuns(id: string): boolean {
    return this.#running.has(id) || (this.#remote && this.#locks.heldElsewhere(id));
  }

  // ---- the server's queue ----

  /** Reads the whole queue; answers whether that worked. */
  async #reload(): Promise<boolean> {
    try {
      const listing = await queueApi.listUploads();
      if (this.#users > 0) this.#replaceAll(listing.items);
      return true;
    } catch (error) {
      console.warn("upload queue not read", error);
      return false;
    }
  }

  #replaceAll(items: UploadItem[]) {
    const ids = new Set(items.map((i) => i.id));
    for (const id of [...this.#items.keys()]) if (!ids.has(id)) this.#forget(id);
    for (const item of items) this.#upsert(item, true);
    void this.#locks.refresh().then(() => this.#afterChange());
  }

  /** Takes the queue's copy of an item, unless an answer already applied here is newer (`whole`: a full listing). */
  #upsert(incoming: UploadItem, whole = false) {
    const current = this.#items.get(incoming.id);
    if (!whole && current && versionOf(current) > versionOf(incoming)) return;
    const ended = this.#endedHere.get(incoming.id);
    let item = incoming;
    if (ended && !isFinal(incoming.status)) {
      // An echo of a report sent before the end this tab already knows about: keep the end.
      item = {
        ...incoming,
        status: ended.status,
        progress: ended.status === "completed" ? 100 : incoming.progress,
        error: ended.error,
        speed: 0,
      };
    } else if (ended) {
      this.#endedHere.delete(incoming.id);
    }
    this.#items.set(item.id, item);
  }

  /** An item left the queue (removed here or in another tab). */
  #forget(id: string) {
    this.#items.delete(id);
    if (this.#running.has(id) && !this.#cancelling.has(id)) {
      // Removed elsewhere while this tab uploads it: stop the bytes (the remover deleted the asset).
      this.#bus.toEngine.post({ type: "addCancelId", id });
      this.#stopRunning(id);
    }
    this.#files.delete(id);
    this.#live.delete(id);
    this.#resumedFrom.delete(id);
    this.#lastReport.delete(id);
    this.#endedHere.delete(id);
  }

  #onSocket(message: queueApi.QueueSocketMessage) {
    if (message.type === "snapshot") return this.#replaceAll(message.items);
    if (message.type === "removed") this.#forget(message.id);
    else this.#upsert(message.item);
    this.#afterChange();
  }

  /**
   * An end (completed, error) known here before the queue confirms it: echoes of earlier reports still on their way
   * must not bring the old status back (the rules would act on it) until the queue reports the end itself.
   */
  #endLocally(id: string, status: "completed" | "error", error: string | null = null) {
    this.#endedHere.set(id, { status, error });
    const item = this.#items.get(id);
    if (item) this.#upsert({ ...item });
  }

  // ---- the rules ----

  #afterChange() {
    const items = [...this.#items.values()];
    if (this.#remote) {
      // The worker's end event can miss a tab (frozen in the background): the queue's end frees the slot anyway.
      for (const item of items) if (isFinal(item.status) && this.#running.has(item.id) && !this.#cancelling.has(item.id)) this.#stopRunning(item.id);
    }
    for (const item of nextToStart(items, { running: this.#running, hasFile: (id) => this.#files.has(id) })) {
      this.#run(item, "uploadFile");
    }
    for (const item of items) {
      const here = this.#running.has(item.id);
      // Cancelled in another tab: the engine that holds the file finishes the cancel.
      if (item.cancelled && here && !this.#cancelling.has(item.id)) void this.cancel(item.id);
      // Every byte was sent by a page that is gone: only the server's commit is left to wait for.
      const sent = item.status === "uploaded" || item.status === "saving";
      const orphaned = !here && !item.cancelled && !this.#endedHere.has(item.id) && !this.#locks.heldElsewhere(item.id);
      if (sent && orphaned && item.assetId && item.variantId) {
        this.#run(item, "resumeUploadFile");
      }
    }
    this.#emit();
  }

  /** Loads the engine (and Uppy with it) when there is work for it; commands posted meanwhile wait on the bus. */
  #ensureEngine() {
    if (this.#engineLoading) return;
    const generation = this.#generation;
    const bus = this.#bus;
    this.#engineLoading = this.#home.then(async (home) => {
      // The worker's engine is already there; the page's own one is loaded only when there is no worker.
      if (home === "worker") return;
      const { startUploadEngine } = await import("./engine");
      if (generation !== this.#generation || this.#users === 0) return;
      this.#engine = startUploadEngine(bus, {
        api: (path, options) => apiRequest(path, options),
        uploadPreview: uploadClientPreview,
      });
    });
  }

  #run(item: UploadItem, how: "uploadFile" | "resumeUploadFile") {
    this.#ensureEngine();
    const file = this.#files.get(item.id) ?? null;
    this.#running.add(item.id);
    // The shared worker takes the item's lock itself (it outlives this page).
    if (!this.#remote) this.#locks.take(item.id);
    if (how === "uploadFile" && file) this.#bus.toEngine.post({ type: "uploadFile", item: targetOf(item), file });
    else this.#bus.toEngine.post({ type: "resumeUploadFile", item: targetOf(item), file });
  }

  #stopRunning(id: string) {
    this.#running.delete(id);
    this.#live.delete(id);
    this.#locks.release(id);
  }

  #onEngineEvent(event: EngineEvent) {
    if (this.#leaving) return;
    if (this.#remote) return this.#onWorkerEvent(event);
    const id = event.id;
    switch (event.type) {
      case "changeStatus": {
        if (!this.#running.has(id)) break;
        const patch: UploadPatch = { status: event.status };
        if (event.assetId) patch.assetId = event.assetId;
        if (event.variantId) patch.variantId = event.variantId;
        if (event.uploadId) patch.uploadId = event.uploadId;
        void this.#reporter.report(id, patch);
        break;
      }
      case "updateProgress": {
        if (!this.#running.has(id)) break;
        this.#live.set(id, { loaded: event.loaded, speed: event.speed });
        const now = Date.now();
        if (shouldReportProgress(this.#lastReport.get(id), now, event.progress)) {
          this.#lastReport.set(id, { at: now, progress: event.progress });
          this.#reporter.reportProgress(id, { progress: event.progress, ...(event.speed != null ? { speed: event.speed } : {}) });
        }
        this.#emit();
        break;
      }
      case "resumeUpload":
        this.#resumedFrom.set(id, event.stored);
        this.#emit();
        break;
      case "uploadError":
        if (!this.#running.has(id)) break;
        this.#stopRunning(id);
        this.#endLocally(id, "error", event.message || ru.uploads.failed);
        void this.#reporter.report(id, { status: "error", ...(event.message ? { error: event.message.slice(0, 1000) } : {}) });
        break;
      case "uploadCompleted":
        this.#stopRunning(id);
        this.#files.delete(id);
        this.#endLocally(id, "completed");
        void this.#reporter.report(id, { status: "completed" });
        break;
      case "cancelUpload":
        this.#cancelWaiters.get(id)?.(event.assetId);
        break;
    }
    for (const listener of this.#eventListeners) listener(event);
    this.#afterChange();
  }

  /**
   * An event of the shared worker, for every item it uploads (whichever tab asked): the worker has reported it to the
   * queue already, so this page only shows it, and ends what it started itself.
   */
  #onWorkerEvent(event: EngineEvent) {
    const id = event.id;
    switch (event.type) {
      case "updateProgress":
        this.#live.set(id, { loaded: event.loaded, speed: event.speed });
        break;
      case "resumeUpload":
        this.#resumedFrom.set(id, event.stored);
        break;
      case "uploadError":
        this.#stopRunning(id);
        this.#endLocally(id, "error", event.message || ru.uploads.failed);
        break;
      case "uploadCompleted": {
        // A video's poster frame needs a <video> element, which the worker lacks: the tab holding the file makes it.
        const file = this.#files.get(id);
        if (file && mediaKind(file.type) === "video") void uploadClientPreview(event.assetId, file);
        this.#stopRunning(id);
        this.#files.delete(id);
        this.#endLocally(id, "completed");
        break;
      }
      case "cancelUpload":
        this.#cancelWaiters.get(id)?.(event.assetId);
        break;
      case "changeStatus":
        break;
    }
    for (const listener of this.#eventListeners) listener(event);
    this.#afterChange();
  }

  /** The 3-second keep-alive: tells the engine the page is alive and the queue which items this tab holds. */
  #keepAlive() {
    // notClose, and the token and server when they changed (a refresh here or in another tab).
    this.#session.tick(this.#engineLoading !== null || this.#remote);
    // The worker cannot refresh the token itself: while it uploads, this page refreshes before expiry (SPEC §9) and
    // the next tick sends it the new one.
    if (this.#remote && [...this.#items.values()].some((i) => ACTIVE_STATUSES.has(i.status))) void ensureFreshAccessToken();
    // Items waiting for their file to be picked again are held by this tab too: the user is here.
    const held = [
      // The shared worker keeps its own items alive in the queue.
      ...(this.#remote ? [] : this.#running),
      ...this.#snapshot.views.filter((v) => v.needsFile && v.item.status !== "waiting").map((v) => v.item.id),
    ];
    if (held.length > 0) void queueApi.keepAliveUploads([...new Set(held)]).catch(() => undefined);
    void this.#locks.refresh().then(() => this.#emit());
  }

  /** When the page is visible again: uploads that stopped continue from their stored parts (SPEC §4). */
  #resumeAfterHidden() {
    if (this.#engineLoading || this.#remote) this.#bus.toEngine.post({ type: "notClose" });
    for (const item of this.#items.values()) {
      if (!this.#files.has(item.id) || item.status === "waiting" || isFinal(item.status)) continue;
      this.#run(item, "resumeUploadFile");
    }
    void this.#reload();
  }

  // ---- actions ----

  /**
   * Queues picked or dropped files into `groupId`: folders they came from are created first (an existing folder of
   * the same name is reused), then the files are added to the server's queue and start in order.
   */
  async enqueue(groupId: string | null, picked: PickedFile[], groupName?: string): Promise<void> {
    if (picked.length === 0) return;
    if (groupId && groupName) this.#groupNames.set(groupId, groupName);
    const folderIds = !groupId ? new Map<string, string>() : await createFolders(groupId, picked, (id, name) => this.#groupNames.set(id, name));
    const items = picked.map((p) => {
      const id = newUploadId();
      this.#files.set(id, p.file);
      const target = { id, fileName: p.file.name, size: p.file.size, groupId: folderIds.get(p.folders.join("/")) ?? groupId };
      return p.versionOf ? { ...target, versionOf: p.versionOf } : target;
    });
    try {
      for (let i = 0; i < items.length; i += ADD_BATCH) {
        const answer = await queueApi.addUploads(items.slice(i, i + ADD_BATCH));
        for (const item of Array.isArray(answer) ? answer : answer.items) this.#upsert(item);
      }
    } catch (error) {
      for (const item of items) if (!this.#items.has(item.id)) this.#files.delete(item.id);
      throw error;
    } finally {
      this.#afterChange();
    }
  }

  /**
   * Cancels an item (SPEC §4): a waiting one only leaves the queue; another is cancelled in the engine, its asset is
   * deleted and it is removed; if that fails the item becomes error. An item another tab uploads is marked
   * cancelled on the server, and that tab finishes the job.
   */
  async cancel(id: string): Promise<void> {
    const item = this.#items.get(id);
    if (!item || this.#cancelling.has(id)) return;
    const drivenHere = this.#engineRuns(id);
    if (!drivenHere && this.#locks.heldElsewhere(id) && !isFinal(item.status)) {
      await apiRequest(`/api/uploads/${encodeURIComponent(id)}/cancel`, { method: "POST", toast: false }).catch((error) =>
        showToast({ title: ru.errors.title, message: error instanceof Error ? error.message : ru.uploads.cancelFailed }),
      );
      return;
    }
    this.#cancelling.add(id);
    this.#emit();
    const plan = cancelPlan(item, drivenHere);
    try {
      let assetId = item.assetId;
      if (plan.cancelInEngine) {
        const answered = new Promise<string | null>((resolve) => this.#cancelWaiters.set(id, resolve));
        this.#bus.toEngine.post({ type: "addCancelId", id });
        assetId = (await answered) ?? assetId;
        this.#stopRunning(id);
      }
      // A new version's asset existed before the upload: only the unfinished version goes (its multipart upload
      // was aborted by the engine; the empty version create-version made is removed, issue 29).
      if (item.versionOf && item.variantId && item.status !== "completed") {
        await apiRequest(`/api/asset/drop-empty-version/${item.versionOf}`, { method: "POST", body: { variant_id: item.variantId }, toast: false }).catch(
          () => undefined, // gone already, committed meanwhile, or its multipart upload holds parts (aborted by the engine)
        );
      }
      if (assetId && item.status !== "completed" && !item.versionOf) {
        await apiRequest(`/api/asset/${assetId}`, { method: "DELETE", toast: false }).catch((error) => {
          if (!(error instanceof ApiError && error.status === 404)) throw error;
        });
      }
      await queueApi.removeUpload(id).catch((error) => {
        if (!(error instanceof ApiError && error.status === 404)) throw error;
      });
      this.#forget(id);
    } catch (error) {
      console.warn("cancel failed", error);
      await this.#reporter.report(id, { status: "error", error: ru.uploads.cancelFailed });
    } finally {
      this.#cancelWaiters.delete(id);
      this.#cancelling.delete(id);
      this.#afterChange();
    }
  }

  /**
   * Tries a failed item again, continuing from the parts already stored. Answers false when this tab does not have
   * the file (the panel then asks the user to pick it).
   */
  async retry(id: string): Promise<boolean> {
    const item = this.#items.get(id);
    if (!item || item.status !== "error") return true;
    if (!this.#files.has(id)) return false;
    this.#endedHere.delete(id);
    await this.#reporter.report(id, { status: "waiting" });
    this.#afterChange();
    return true;
  }

  /**
   * The user picked a file again for an interrupted item (after a reload the browser no longer has it): it must
   * have the same name and size. The upload continues from the parts already stored. `id` names the item when the
   * user picked for a particular row; without it the file is matched to any item waiting for one.
   */
  async provideFile(file: File, id?: string): Promise<boolean> {
    const candidates = this.#snapshot.views.filter((v) => v.needsFile || (v.item.status === "error" && !v.hasFile)).map((v) => v.item);
    const item = matchPickedFile(id ? candidates.filter((c) => c.id === id) : candidates, file);
    if (!item) {
      showToast({ title: ru.uploads.title, message: ru.uploads.wrongFile(file.name), kind: "info" });
      return false;
    }
    this.#files.set(item.id, file);
    if (item.status === "error") await this.retry(item.id);
    else if (item.status === "waiting") this.#afterChange();
    else {
      this.#run(item, "resumeUploadFile");
      this.#emit();
    }
    return true;
  }

  /** Removes completed items from the list (their files stay in the library). */
  async clearCompleted(): Promise<void> {
    await queueApi.clearUploads();
    await this.#reload();
  }

  /** Removes a finished item from the list: a completed one keeps its file; a failed one loses its asset. */
  dismiss(id: string): Promise<void> {
    return this.cancel(id);
  }
}

let controller: UploadController | null = null;

/** The page's upload controller (created on first use, in the browser only). */
export function uploadController(): UploadController {
  controller ??= new UploadController();
  return controller;
}

/** For server rendering: nothing uploads there. */
export const EMPTY_UPLOADS = EMPTY;
