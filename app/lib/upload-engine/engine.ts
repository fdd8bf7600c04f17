import AwsS3 from "@uppy/aws-s3";
import Uppy from "@uppy/core";
import type { RequestOptions } from "../api-client";
import type { EngineBus } from "./bus";
import type { EngineCommand, EngineEvent, UploadTarget } from "./messages";
import { partSizeFor } from "../../../workers/services/storage/pure";
import type { UploadStatus as VariantStatus } from "../../../workers/services/uploads";
import { makeSignRequest, UPLOAD_META, startVersionUpload, uppyS3Options, type UploadTarget as S3Target } from "../s3-signer";
import { BatchFailed, SmallFileBatcher, type BatchDone } from "./batcher";
import { isBatchable, LARGE_UPLOAD_BYTES, MAX_PARALLEL_UPLOADS, percentOf, SpeedMeter, STALL_TIMEOUT_MS } from "./queue-rules";

/**
 * The upload engine: the part that moves bytes (SPEC §7 'Background upload worker messages'). It only listens to
 * `EngineCommand`s and answers with `EngineEvent`s; the queue rules and the server queue live in the page's
 * controller (./controller.ts). Each upload runs in its own Uppy instance with @uppy/aws-s3 and our signer
 * (../s3-signer.ts): multipart through our S3-compatible endpoints above its `MULTIPART_MIN_BYTES` (resumable from the
 * parts already stored), one signed PUT for smaller files.
 */
/** How often the engine asks whether the server has committed the bytes, and for how long at most. */
const STATUS_POLL_MS = 400;
const STATUS_TIMEOUT_MS = 15 * 60_000;
/** When the page is visible again, a transfer without progress for this long is restarted from its stored parts. */
const RESUME_IDLE_MS = 10_000;
/** Progress messages at most this often per item (the panel animates between them). */
const PROGRESS_EVENT_MS = 200;

/** Credentials the host passes on: a Web Worker host needs them; in the page the API client reads the same storage. */
export interface EngineCredentials {
  bearer: string | null;
  serverId: string | null;
}

/** What the engine needs from where it runs. */
export interface EngineHost {
  /** the API call (adds the bearer, `x-api-version` and `prefer-uldl-server`) */
  api<T>(path: string, options: RequestOptions, credentials: EngineCredentials): Promise<T>;
  /** stores a browser-made thumbnail for the new asset (failures only cost the thumbnail) */
  uploadPreview(assetId: string, file: File): Promise<void>;
}

type VariantState = VariantStatus["state"];

/**
 * The object key of a variant's bytes: the server's `assets/<asset>/<variant>` (what create-version answers as
 * `key`). After a reload the queue item still has both ids, so the key, and with it the open upload, is known again.
 */
const objectKeyOf = (assetId: string, variantId: string) => `assets/${assetId}/${variantId}`;

class CancelledError extends Error {
  constructor() {
    super("cancelled");
    this.name = "AbortError";
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mimeOf = (file: File) => file.type || "application/octet-stream";

/** Uppy's own log: warnings only (an aborted request is not a page error). */
const quietLogger = {
  debug: () => undefined,
  warn: (...args: unknown[]) => console.warn(...args),
  error: (...args: unknown[]) => console.warn(...args),
};

/** One upload of one item, from the asset to the committed version. */
class Job {
  readonly meter = new SpeedMeter();
  uppy: Uppy | null = null;
  #fileId: string | null = null;
  cancelled = false;
  phase: "preparing" | "uploading" | "finishing" = "preparing";
  lastActivity = Date.now();
  #lastProgressEvent = 0;
  /** set while a resumed upload has not reported yet: its first report counts the bytes already stored */
  #resuming: boolean;
  /** where the bytes go: the create-version answer, or (resuming) what the queue item tells */
  #s3: S3Target | null = null;
  /** the one-request upload in flight (small files) */
  #abort: AbortController | null = null;
  /** gives the file's place in a batch up (batched small files) */
  #withdraw: (() => void) | null = null;

  constructor(readonly target: UploadTarget, readonly file: File | null, private readonly engine: UploadEngine, resume: boolean) {
    this.#resuming = resume;
  }

  get id() {
    return this.target.id;
  }

  async run(): Promise<void> {
    const t = this.target;
    try {
      if ((t.status === "uploaded" || t.status === "saving") && t.variantId && t.assetId) {
        // Every byte was sent before the interruption: only the server's commit is left to wait for.
        await this.#finish(t.assetId, t.variantId);
        return;
      }
      if (!this.file) throw new Error("no file");
      if (isBatchable(t)) {
        await this.#sendBatched(this.file);
        return;
      }
      if (t.variantId === null && this.file.size < LARGE_UPLOAD_BYTES && (!t.assetId || t.versionOf)) {
        await this.#sendInOneRequest(this.file);
        return;
      }
      if (t.status !== "busy" && t.status !== "uploading") this.#emit({ type: "changeStatus", id: t.id, status: "busy" });
      const assetId = t.assetId ?? (await this.#createAsset(this.file));
      const s3 = await this.#prepareUpload(assetId, this.file);
      if (s3 === null) {
        await this.#finish(assetId, t.variantId!);
        return;
      }
      this.phase = "uploading";
      this.#emit({ type: "changeStatus", id: t.id, status: "uploading", assetId, variantId: s3.variant_id });
      await this.#transfer(s3, this.file);
      await this.#finish(assetId, s3.variant_id);
    } catch (error) {
      if (this.cancelled) return;
      this.engine.jobEnded(this);
      this.#emit({ type: "uploadError", id: t.id, message: error instanceof Error ? error.message : String(error) });
    } finally {
      // After success or an error the uploader has let go of the upload, so this aborts nothing on the server.
      if (!this.cancelled) this.uppy?.destroy();
    }
  }

  /**
   * Cancel: stops the bytes, then aborts the multipart upload on the server (its parts are dropped) and resolves
   * once that is done, so the asset can be deleted after it. (Uppy's own cancel aborts without waiting, and would
   * race the asset's deletion.)
   */
  async cancel(): Promise<void> {
    this.cancelled = true;
    this.#abort?.abort();
    this.#withdraw?.();
    // pauseAll stops the request in flight without Uppy's own abort; the paused instance is left to the collector.
    this.uppy?.pauseAll();
    this.uppy = null;
    const s3 = this.#s3;
    const uploadId = this.target.uploadId;
    if (s3?.mode !== "multipart" || !uploadId) return;
    try {
      const sign = makeSignRequest({ request: (path, options) => this.engine.api(path, options ?? {}) });
      const signed = await sign({ method: "DELETE", key: s3.key, uploadId });
      await fetch(signed.url, { method: "DELETE", headers: signed.headers });
    } catch (error) {
      // Not fatal: the server aborts uploads left without parts for a day.
      console.warn("multipart upload not aborted", error);
    }
  }

  /** Stops the bytes but keeps the stored parts (sign-out), so the item resumes later. */
  interrupt(): void {
    this.cancelled = true;
    this.#abort?.abort();
    this.#withdraw?.();
    // pauseAll aborts the request in flight; destroy() would also abort the multipart upload on the server.
    this.uppy?.pauseAll();
    this.uppy = null;
  }

  /**
   * Restarts a stalled or interrupted transfer in place: Uppy lists the parts the server already has and sends
   * only the missing ones.
   */
  restart(): boolean {
    if (this.phase !== "uploading" || !this.uppy) return false;
    this.#resuming = this.target.uploadId !== null;
    this.lastActivity = Date.now();
    this.uppy.pauseAll();
    this.uppy.resumeAll();
    return true;
  }

  #emit(event: EngineEvent) {
    if (!this.cancelled) this.engine.emit(event);
  }

  #check() {
    if (this.cancelled) throw new CancelledError();
  }

  /**
   * A new small file travels in a batch with others (POST /api/asset/upload-batch, ./batcher.ts). Should its batch
   * fail as a whole (nothing of it is committed then), the file goes again on its own, which names its own error.
   */
  async #sendBatched(file: File): Promise<void> {
    const t = this.target;
    this.phase = "uploading";
    if (t.status !== "uploading") this.#emit({ type: "changeStatus", id: t.id, status: "uploading" });
    const ticket = this.engine.batcher.add(t.groupId!, file);
    this.#withdraw = ticket.withdraw;
    let done: BatchDone;
    try {
      done = await ticket.done;
    } catch (error) {
      this.#check();
      if (!(error instanceof BatchFailed)) throw error;
      done = await this.#postOne(file);
    } finally {
      this.#withdraw = null;
    }
    await this.#landed(done, file);
  }

  /**
   * A small file goes in one request (POST /api/asset/upload): the asset or its new version, the bytes and the commit
   * together, answered once everything is stored. Three round trips and the wait for the commit are saved per file.
   * No progress is reported: the completion says it all.
   */
  async #sendInOneRequest(file: File): Promise<void> {
    const t = this.target;
    this.phase = "uploading";
    // Nothing to prepare: the item goes from waiting straight to uploading.
    if (t.status !== "uploading") this.#emit({ type: "changeStatus", id: t.id, status: "uploading" });
    await this.#landed(await this.#postOne(file), file);
  }

  async #postOne(file: File): Promise<BatchDone> {
    const t = this.target;
    const abort = new AbortController();
    this.#abort = abort;
    return this.engine.api<BatchDone>("/api/asset/upload", {
      method: "POST",
      query: t.versionOf
        ? { asset_id: t.versionOf, name: file.name, mime: mimeOf(file) }
        : { in_group: t.groupId ?? undefined, name: file.name, mime: mimeOf(file) },
      body: file,
      signal: abort.signal,
      toast: false,
    });
  }

  /** After the server stored and committed the file in one request: the preview, then the completion. */
  async #landed(done: BatchDone, file: File): Promise<void> {
    const t = this.target;
    // Cancelled after the server stored it: a new asset goes again (a new version stays, as after any completed upload).
    if (this.cancelled) {
      if (!t.versionOf) void this.engine.api(`/api/asset/${done.asset_id}`, { method: "DELETE", toast: false }).catch(() => undefined);
      throw new CancelledError();
    }
    t.assetId = done.asset_id;
    t.variantId = done.asset_variant_id;
    this.phase = "finishing";
    await this.engine.host.uploadPreview(done.asset_id, file);
    this.#check();
    this.engine.jobEnded(this);
    this.#emit({ type: "uploadCompleted", id: t.id, assetId: done.asset_id, groupId: t.groupId, variantId: done.asset_variant_id });
  }

  async #createAsset(file: File): Promise<string> {
    const { asset_id } = await this.engine.api<{ asset_id: string }>("/api/asset/create", {
      method: "POST",
      body: { asset_name: file.name, asset_mime: mimeOf(file), in_group: this.target.groupId ?? undefined },
    });
    // Cancelled while the asset was being made: nobody else knows its id, so it goes here.
    if (this.cancelled) void this.engine.api(`/api/asset/${asset_id}`, { method: "DELETE", toast: false }).catch(() => undefined);
    this.#check();
    this.target.assetId = asset_id;
    this.#emit({ type: "changeStatus", id: this.id, status: "busy", assetId: asset_id });
    return asset_id;
  }

  /**
   * Continues the open multipart upload of the item, or starts a new version: answers where the bytes go, or null
   * when they turn out to be complete already.
   */
  async #prepareUpload(assetId: string, file: File): Promise<S3Target | null> {
    const t = this.target;
    if (t.variantId && t.uploadId) {
      const state = await this.#variantState(assetId, t.variantId);
      this.#check();
      if (state === "pending") {
        this.#resuming = true;
        const partSize = partSizeFor(file.size) ?? 0;
        return { mode: "multipart", variant_id: t.variantId, key: objectKeyOf(assetId, t.variantId), part_size: partSize };
      }
      if (state === "saving" || state === "ready") return null;
      // Aborted (the queue gave the upload up while nobody held it): its parts are gone, start a new version.
    }
    const info = await startVersionUpload(assetId, file, {
      // A new version of an existing asset stays where the asset is listed (no create right on a folder needed).
      toGroup: t.versionOf ? null : t.groupId,
      request: (path, options) => this.engine.api(path, options ?? {}),
    });
    this.#check();
    t.variantId = info.variant_id;
    t.uploadId = null;
    this.#resuming = false;
    return info.mode === "multipart"
      ? { mode: info.mode, variant_id: info.variant_id, key: info.key, part_size: info.part_size }
      : { mode: info.mode, variant_id: info.variant_id, key: info.key };
  }

  /** Sends the bytes with Uppy; resolves when the last byte is stored (and the multipart upload completed). */
  async #transfer(s3: S3Target, file: File): Promise<void> {
    const uppy = new Uppy({ id: `mam-upload-${this.id}`, autoProceed: false, allowMultipleUploadBatches: true, logger: quietLogger });
    this.uppy = uppy;
    this.#s3 = s3;
    uppy.use(AwsS3, { id: "AwsS3", ...uppyS3Options({ limit: 1, request: (path, options) => this.engine.api(path, options ?? {}) }) });
    const fileId = uppy.addFile({ name: file.name, type: mimeOf(file), data: file, source: "mam-upload-engine", isRemote: false });
    this.#fileId = fileId;
    uppy.setFileMeta(fileId, { [UPLOAD_META]: s3 });
    if (this.target.uploadId) uppy.setFileState(fileId, { s3Multipart: { uploadId: this.target.uploadId, key: s3.key } });

    let failure: unknown = null;
    uppy.on("upload-progress", (_file, progress) => this.#progress(progress.bytesUploaded, progress.bytesTotal ?? file.size));
    uppy.on("upload-error", (_file, error) => {
      failure = error;
    });
    // The multipart upload id goes to the server queue as soon as it exists: a reload resumes from it.
    uppy.on("state-update", () => {
      const uploadId = this.#fileId ? uppy.getFile(this.#fileId)?.s3Multipart?.uploadId : undefined;
      if (!uploadId || uploadId === this.target.uploadId) return;
      this.target.uploadId = uploadId;
      this.#emit({ type: "changeStatus", id: this.id, status: "uploading", uploadId });
    });
    this.meter.add(Date.now(), 0);
    await uppy.upload();
    this.#check();
    if (failure) throw failure;
    this.#progress(file.size, file.size, true);
  }

  #progress(loaded: number, total: number, force = false) {
    const now = Date.now();
    this.lastActivity = now;
    if (this.#resuming) {
      this.#resuming = false;
      this.meter.reset();
      this.#emit({ type: "resumeUpload", id: this.id, stored: loaded });
      force = true;
    }
    this.meter.add(now, loaded);
    if (!force && now - this.#lastProgressEvent < PROGRESS_EVENT_MS) return;
    this.#lastProgressEvent = now;
    this.#emit({ type: "updateProgress", id: this.id, loaded, total, progress: percentOf(loaded, total), speed: this.meter.speed() });
  }

  /** The upload's state, read where its file's library lives. */
  async #variantState(assetId: string, variantId: string): Promise<VariantState> {
    const { state } = await this.engine.api<{ state: VariantState }>(`/api/upload/status/${variantId}`, { query: { a: assetId }, toast: false });
    return state;
  }

  /** Waits until the server has checked and committed the bytes, then makes the preview and reports completion. */
  async #finish(assetId: string, variantId: string): Promise<void> {
    this.phase = "finishing";
    if (this.target.status !== "saving") this.#emit({ type: "changeStatus", id: this.id, status: "uploaded" });
    const started = Date.now();
    let saving = this.target.status === "saving";
    for (;;) {
      this.#check();
      const state = await this.#variantState(assetId, variantId);
      this.lastActivity = Date.now();
      if (state === "aborted") throw new Error("aborted");
      if (!saving && (state === "saving" || state === "ready")) {
        saving = true;
        this.#emit({ type: "changeStatus", id: this.id, status: "saving" });
      }
      if (state === "ready") break;
      if (Date.now() - started > STATUS_TIMEOUT_MS) throw new Error("timeout");
      await sleep(STATUS_POLL_MS);
    }
    if (this.file) await this.engine.host.uploadPreview(assetId, this.file);
    this.#check();
    this.engine.jobEnded(this);
    this.#emit({ type: "uploadCompleted", id: this.id, assetId, groupId: this.target.groupId, variantId });
  }
}

/**
 * The engine behind the message line: it listens on `bus.toEngine` and answers on `bus.fromEngine`. It runs whatever it is told to; how many at a time is the controller's rule.
 */
export class UploadEngine {
  readonly #jobs = new Map<string, Job>();
  #credentials: EngineCredentials = { bearer: null, serverId: null };
  #stopped = false;
  readonly #unsubscribe: () => void;
  readonly batcher = new SmallFileBatcher((groupId, files, signal) => this.#sendBatch(groupId, files, signal), MAX_PARALLEL_UPLOADS);

  constructor(private readonly bus: EngineBus, readonly host: EngineHost) {
    this.#unsubscribe = bus.toEngine.subscribe((command) => this.handle(command));
  }

  api<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return this.host.api<T>(path, options, this.#credentials);
  }

  /** One request for the batch: the one-file form when the batch holds one file (no form to encode and split). */
  async #sendBatch(groupId: string, files: File[], signal: AbortSignal): Promise<BatchDone[]> {
    if (files.length === 1) {
      const [file] = files;
      const query = { in_group: groupId, name: file.name, mime: mimeOf(file) };
      return [await this.api<BatchDone>("/api/asset/upload", { method: "POST", query, body: file, signal, toast: false })];
    }
    const form = new FormData();
    for (const file of files) form.append("file", file);
    return this.api<BatchDone[]>("/api/asset/upload-batch", {
      method: "POST",
      query: { in_group: groupId },
      body: form,
      signal,
      toast: false,
    });
  }

  emit(event: EngineEvent): void {
    if (!this.#stopped) this.bus.fromEngine.post(event);
  }

  jobEnded(job: Job): void {
    if (this.#jobs.get(job.id) === job) this.#jobs.delete(job.id);
  }

  handle(command: EngineCommand): void {
    if (this.#stopped) return;
    switch (command.type) {
      case "init":
        this.#credentials = { bearer: command.bearer, serverId: command.serverId };
        return;
      case "token":
        this.#credentials = { ...this.#credentials, bearer: command.bearer };
        return;
      case "idServer":
        this.#credentials = { ...this.#credentials, serverId: command.serverId };
        return;
      case "uploadFile":
        this.#start({ ...command.item }, command.file, false);
        return;
      case "resumeUploadFile": {
        const current = this.#jobs.get(command.item.id);
        if (current) {
          // Already under way (the page was hidden, not reloaded): restart the transfer only if it stopped moving.
          if (this.#stalled(current, RESUME_IDLE_MS)) current.restart();
          return;
        }
        this.#start({ ...command.item }, command.file, command.item.uploadId !== null);
        return;
      }
      case "addCancelId": {
        const job = this.#jobs.get(command.id);
        this.#jobs.delete(command.id);
        void (job?.cancel() ?? Promise.resolve()).then(() =>
          this.emit({ type: "cancelUpload", id: command.id, assetId: job?.target.assetId ?? null }),
        );
        return;
      }
      case "notClose":
        // The keep-alive tick: a transfer that stopped moving (a throttled background tab, a dead connection)
        // continues from its stored parts.
        for (const job of this.#jobs.values()) if (this.#stalled(job)) job.restart();
        return;
    }
  }

  #start(target: UploadTarget, file: File | null, resume: boolean) {
    this.#jobs.get(target.id)?.interrupt();
    const job = new Job(target, file, this, resume);
    this.#jobs.set(target.id, job);
    void job.run();
  }

  #stalled(job: Job, idleMs = STALL_TIMEOUT_MS): boolean {
    return job.phase === "uploading" && Date.now() - job.lastActivity > idleMs;
  }

  /** Stops every upload, keeping their stored parts (sign-out: the queue resumes after the next sign-in). */
  stop(): void {
    this.#stopped = true;
    this.#unsubscribe();
    for (const job of this.#jobs.values()) job.interrupt();
    this.#jobs.clear();
  }
}

/** Starts an engine listening on `bus.toEngine`; `stop()` ends it. */
export function startUploadEngine(bus: EngineBus, host: EngineHost): UploadEngine {
  return new UploadEngine(bus, host);
}
