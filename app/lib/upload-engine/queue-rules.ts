import { ACTIVE_STATUSES, FINAL_STATUSES, type UploadItem, type UploadStatus } from "./types";

/**
 * The rules of the upload queue (SPEC §4) as pure functions: what starts next, when the queue is finished, what a
 * cancel does, which items need their file picked again, the summary line. No I/O here, so they are unit-tested in
 * Node (tests/unit/upload-engine-*.test.ts).
 */

/**
 * How many items one tab uploads at a time. A small file's time is mostly round trips (create, version, PUT,
 * reports), so six overlap; a large one already sends its parts in parallel, so at most `MAX_PARALLEL_LARGE` of those.
 */
export const MAX_PARALLEL_UPLOADS = 6;
export const MAX_PARALLEL_LARGE = 2;
/** From this size a file counts as large for `MAX_PARALLEL_LARGE` (the multipart threshold's order). */
export const LARGE_UPLOAD_BYTES = 8 * 1024 * 1024;
/**
 * New files up to this size travel together, up to `BATCH_MAX_FILES` in one request (POST /api/asset/upload-batch):
 * a folder of notes or icons is made of round trips, and a batch pays them once for many files.
 */
export const BATCH_FILE_MAX_BYTES = 256 * 1024;
export const BATCH_MAX_FILES = 16;
/** The keep-alive period (SPEC §9 'Worker keep-alive'). */
export const KEEPALIVE_INTERVAL_MS = 3_000;
/** Progress goes to the server queue at most this often per item (other tabs see it through the WebSocket). */
export const PROGRESS_REPORT_INTERVAL_MS = 1_000;
/** An uploading item without progress for this long is restarted from its stored parts. */
export const STALL_TIMEOUT_MS = 45_000;

/**
 * Items in queue order: by arrival time, and within one millisecond in the order given (the sort is stable). A
 * batch shares its arrival time and the ids are random, so breaking ties by id started a batch in random order;
 * the controller keeps items in the order the queue listed them, which is the order they were added.
 */
export function inQueueOrder<T extends Pick<UploadItem, "ctime">>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => a.ctime - b.ctime);
}

export const isFinal = (status: UploadStatus) => FINAL_STATUSES.has(status);
export const isActive = (status: UploadStatus) => ACTIVE_STATUSES.has(status);

/** The queue is finished when every item is completed or error (SPEC §4); an empty queue is finished. */
export function isQueueFinished(items: readonly Pick<UploadItem, "status">[]): boolean {
  return items.every((i) => isFinal(i.status));
}

export interface StartContext {
  /** ids this tab's engine is working on now */
  running: ReadonlySet<string>;
  /** whether this tab holds the item's bytes (a File picked here) */
  hasFile: (id: string) => boolean;
  limit?: number;
}

/** Whether an item can go in a batch: a new file (not a version, nothing started yet) small enough, into a folder. */
export function isBatchable(i: Pick<UploadItem, "size" | "groupId" | "assetId" | "variantId" | "versionOf">): boolean {
  return i.size <= BATCH_FILE_MAX_BYTES && i.groupId !== null && i.assetId === null && i.variantId === null && !i.versionOf;
}

/**
 * While the queue is not finished, the next waiting items start (SPEC §4), strictly in the order they were added:
 * the oldest waiting items whose file this tab holds, up to `limit` requests at a time, of which at most
 * `MAX_PARALLEL_LARGE` large files. Batchable files share requests, so each takes 1/`BATCH_MAX_FILES` of one (six
 * requests carry up to 96 small files). A large file that has to wait holds back the files after it (first in,
 * first started).
 */
export function nextToStart(items: readonly UploadItem[], ctx: StartContext): UploadItem[] {
  if (isQueueFinished(items)) return [];
  const isLarge = (i: Pick<UploadItem, "size">) => i.size >= LARGE_UPLOAD_BYTES;
  const weight = (i: UploadItem | undefined) => (i && isBatchable(i) ? 1 : BATCH_MAX_FILES);
  const byId = new Map(items.map((i) => [i.id, i]));
  let free = (ctx.limit ?? MAX_PARALLEL_UPLOADS) * BATCH_MAX_FILES;
  for (const id of ctx.running) free -= weight(byId.get(id));
  let large = items.filter((i) => ctx.running.has(i.id) && isLarge(i)).length;
  const started: UploadItem[] = [];
  for (const item of inQueueOrder(items)) {
    if (item.status !== "waiting" || ctx.running.has(item.id) || !ctx.hasFile(item.id)) continue;
    if (free < weight(item)) break;
    if (isLarge(item)) {
      if (large >= MAX_PARALLEL_LARGE) break;
      large += 1;
    }
    started.push(item);
    free -= weight(item);
  }
  return started;
}

export interface CancelPlan {
  /** stop the bytes in this tab's engine first */
  cancelInEngine: boolean;
  /** delete the asset (it has no committed bytes) */
  deleteAsset: boolean;
}

/**
 * What cancelling (or removing) an item does. A waiting item is only dequeued; a non-waiting one is cancelled in the
 * engine when this tab drives it, and its asset is deleted (SPEC §4). A completed item only leaves the list: its
 * file stays.
 */
export function cancelPlan(item: Pick<UploadItem, "status" | "assetId" | "versionOf">, drivenHere: boolean): CancelPlan {
  return {
    cancelInEngine: drivenHere && item.status !== "waiting" && !isFinal(item.status),
    deleteAsset: item.status !== "completed" && item.assetId !== null && !item.versionOf,
  };
}

/**
 * Whether an item waits for the user to pick its file again: it still needs bytes, this tab does not have them,
 * and no other tab is uploading it (after a full reload the browser has forgotten every File).
 */
export function needsFile(item: UploadItem, ctx: { hasFile: boolean; drivenElsewhere: boolean }): boolean {
  if (ctx.hasFile || ctx.drivenElsewhere) return false;
  return item.status === "waiting" || item.status === "busy" || item.status === "uploading";
}

/** Whether an item can be continued from where it stopped (bytes already stored stay on the server). */
export function canRetry(item: Pick<UploadItem, "status">): boolean {
  return item.status === "error";
}

/**
 * The item a re-picked file belongs to: the same name and size, oldest first. Answers null when nothing matches
 * (the user picked another file).
 */
export function matchPickedFile<T extends Pick<UploadItem, "fileName" | "size" | "ctime" | "id">>(
  candidates: readonly T[],
  file: { name: string; size: number },
): T | null {
  return inQueueOrder(candidates).find((c) => c.fileName === file.name && c.size === file.size) ?? null;
}

/** 0–100, rounded down so 100 means every byte is sent. */
export function percentOf(loaded: number, total: number): number {
  if (total <= 0) return loaded > 0 ? 100 : 0;
  return Math.max(0, Math.min(100, Math.floor((loaded / total) * 1000) / 10));
}

/** Live numbers of an item uploading in this tab (fresher than the server's copy). */
export interface LiveProgress {
  loaded: number;
  speed: number | null;
}

/** The progress and speed to show: this tab's live numbers while its engine drives the item, else the server's. */
export function shownProgress(item: UploadItem, live?: LiveProgress): { progress: number; speed: number | null } {
  if (item.status === "completed") return { progress: 100, speed: null };
  if (live && item.status === "uploading") {
    const progress = percentOf(live.loaded, item.size);
    return { progress, speed: progress < 100 ? live.speed : null };
  }
  return { progress: item.progress, speed: item.status === "uploading" && item.progress < 100 ? item.speed || null : null };
}

export interface QueueSummary {
  total: number;
  completed: number;
  errors: number;
  /** busy, uploading, uploaded or saving */
  active: number;
  waiting: number;
  /** sum of the uploading items' speeds (bytes/s), null when nothing is uploading */
  speed: number | null;
  /** all bytes of the queue and how many of them are sent */
  bytes: number;
  sentBytes: number;
  finished: boolean;
}

/** The numbers of the panel's summary line ('Загружено 2 из 3 · 45 МБ/с'). */
export function summarize(items: readonly UploadItem[], live: ReadonlyMap<string, LiveProgress> = new Map()): QueueSummary {
  let completed = 0;
  let errors = 0;
  let active = 0;
  let waiting = 0;
  let speed: number | null = null;
  let bytes = 0;
  let sentBytes = 0;
  for (const item of items) {
    const shown = shownProgress(item, live.get(item.id));
    if (item.status === "completed") completed += 1;
    else if (item.status === "error") errors += 1;
    else if (item.status === "waiting") waiting += 1;
    else active += 1;
    if (shown.speed != null && item.status === "uploading") speed = (speed ?? 0) + shown.speed;
    bytes += item.size;
    sentBytes += Math.round((item.size * shown.progress) / 100);
  }
  return { total: items.length, completed, errors, active, waiting, speed, bytes, sentBytes, finished: isQueueFinished(items) };
}

/**
 * Whether a progress report should go to the server queue now: at most once per `PROGRESS_REPORT_INTERVAL_MS`,
 * and always for the last byte.
 */
export function shouldReportProgress(last: { at: number; progress: number } | undefined, now: number, progress: number): boolean {
  if (!last) return true;
  if (progress === last.progress) return false;
  return progress >= 100 || now - last.at >= PROGRESS_REPORT_INTERVAL_MS;
}

/**
 * Bytes per second over a sliding window (default 5 s), so one slow or fast part does not make the figure jump.
 *
 * @example
 *   const meter = new SpeedMeter();
 *   meter.add(0, 0); meter.add(1_000, 5_000_000);
 *   meter.speed(); // 5_000_000
 */
export class SpeedMeter {
  #samples: { at: number; loaded: number }[] = [];
  constructor(private readonly windowMs = 5_000) {}

  /** Records the bytes sent so far at time `at` (ms). A smaller count (a part sent again) restarts the window. */
  add(at: number, loaded: number): void {
    const last = this.#samples.at(-1);
    if (last && loaded < last.loaded) this.#samples = [];
    this.#samples.push({ at, loaded });
    while (this.#samples.length > 2 && at - this.#samples[0].at > this.windowMs) this.#samples.shift();
  }

  /** Bytes per second, or null until two samples at least 200 ms apart exist. */
  speed(): number | null {
    const first = this.#samples[0];
    const last = this.#samples.at(-1);
    if (!first || !last || last.at - first.at < 200) return null;
    return Math.round(((last.loaded - first.loaded) * 1000) / (last.at - first.at));
  }

  reset(): void {
    this.#samples = [];
  }
}

/** A dropped or picked file's place below the target folder: "Съёмка/День 1/a.mp4" → folders ["Съёмка", "День 1"]. */
export function splitRelativePath(relativePath: string | null | undefined): string[] {
  if (!relativePath) return [];
  const parts = relativePath.split("/").filter((p) => p !== "" && p !== "." && p !== "..");
  return parts.slice(0, -1);
}

/**
 * The folders a set of files needs below the target folder, parents before children, each once:
 * [["A","B"],["A"],["C"]] → ["A", "A/B", "C"]. Keys join the names with "/".
 */
export function foldersToCreate(folderPaths: readonly (readonly string[])[]): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const path of folderPaths) {
    for (let depth = 1; depth <= path.length; depth++) {
      const prefix = path.slice(0, depth);
      const key = prefix.join("/");
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(prefix);
    }
  }
  return out.sort((a, b) => a.length - b.length);
}
