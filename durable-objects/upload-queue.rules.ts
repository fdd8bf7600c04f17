/**
 * The rules of the per-user upload queue (SPEC §4 "Upload item status"), kept apart from `UploadQueueDO` so they are
 * pure (no `cloudflare:workers` import): unit-tested in Node against a reference model, and importable by the
 * browser's upload engine, which shows the same statuses and may compute `isFinished` / `nextToStart` itself.
 *
 * Every function takes the time as `now` and returns new values; nothing here reads a clock or touches storage.
 */
import { z } from "zod";
import { ru } from "../shared/i18n/ru";
import { ID_PATTERN } from "../workers/lib/ids";

/**
 * Headers the Worker sets when it hands an authenticated WebSocket upgrade to the object (the object is reachable
 * only through the UPLOADS binding, so nothing else can set them): the access token's expiry and the subprotocol to
 * answer with. Here, not in the object's file, so the Worker can name them without importing `cloudflare:workers`.
 */
export const SOCKET_EXPIRES_HEADER = "x-mam-socket-expires";
export const SOCKET_PROTOCOL_HEADER = "x-mam-socket-protocol";

/** Upload item statuses (SPEC §4), in the order an upload normally goes through them. */
export const UPLOAD_STATUSES = ["waiting", "busy", "uploading", "uploaded", "saving", "completed", "error"] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];

/**
 * Allowed status changes. waiting: queued; busy: preparing (creating the asset and version); uploading: bytes
 * moving; uploaded: all bytes sent; saving: the server is completing (hashing, committing); completed: final;
 * error: failed, may be retried. uploading → waiting is a pause or an interruption that puts the file back in line;
 * uploading → completed is a small file sent in one request (POST /api/asset/upload answers once it is committed).
 * A patch that keeps the status is not a change and is always allowed (progress reports, retried requests), except
 * on a completed item, which only accepts a repeated `completed`.
 */
export const TRANSITIONS: Readonly<Record<UploadStatus, readonly UploadStatus[]>> = {
  waiting: ["busy", "uploading", "error"],
  busy: ["uploading", "error"],
  uploading: ["uploaded", "completed", "error", "waiting"],
  uploaded: ["saving", "error"],
  saving: ["completed", "error"],
  completed: [],
  error: ["waiting"],
};

/**
 * Statuses in which the browser holds the upload: without a keep-alive for `staleAfterMs` the item becomes error
 * and its multipart upload is aborted. `saving` is not watched: the server itself is completing the upload then.
 */
export const WATCHED_STATUSES: readonly UploadStatus[] = ["busy", "uploading", "uploaded"];

/** Statuses in which progress holds all the bytes. */
const FULL_PROGRESS: readonly UploadStatus[] = ["uploaded", "saving", "completed"];

export const QUEUE_POLICY = {
  /** the browser sends a keep-alive this often (SPEC §9) */
  keepAliveMs: 3_000,
  /** a watched item with no keep-alive (nor any other report) for this long is stale */
  staleAfterMs: 2 * 60_000,
  /** an item that is not watched and has not changed nor been seen for this long is forgotten */
  retentionMs: 7 * 24 * 60 * 60_000,
  /** items one queue may hold */
  maxItems: 1000,
  /** items one add request may carry */
  maxAddBatch: 500,
  /** ids one keep-alive may carry */
  maxKeepAliveIds: 1000,
  /** reports per POST /api/uploads/report */
  maxReportBatch: 500,
} as const;

// Lone UTF-16 surrogates cannot be stored as UTF-8 text: they would come back altered.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** A string of `min`–`max` characters (code points, so an emoji counts once) of well-formed Unicode. */
function unicodeString(min: number, max: number) {
  return z
    .string()
    .min(min)
    .max(max * 2)
    .refine((v) => !LONE_SURROGATE.test(v), "строка содержит неполный символ Unicode")
    .refine((v) => [...v].length <= max, `не больше ${max} символов`);
}

/** An item id chosen by the client (an Uppy file id): 1–64 characters, no control characters. */
export const ItemIdSchema = unicodeString(1, 64).refine((v) => !CONTROL_CHARS.test(v), "идентификатор содержит управляющие символы");

/** A file name as the user's file system gave it: 1–255 characters of any Unicode. */
export const FileNameSchema = unicodeString(1, 255);

const EntityIdSchema = z.string().regex(ID_PATTERN, "ожидается идентификатор из 32 шестнадцатеричных символов");

/** A multipart upload id as the storage issued it. */
export const UploadIdSchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,1024}$/, "ожидается идентификатор загрузки (до 1024 печатных символов ASCII)");

/** One file the browser puts in the queue. `groupId` is the folder it goes to (null: decided later). */
export const AddItemSchema = z.object({
  id: ItemIdSchema,
  fileName: FileNameSchema,
  size: z.number().int().nonnegative(),
  groupId: EntityIdSchema.nullable().default(null),
  /** the file is a new version of this existing asset (no asset is created; cancelling never deletes the asset) */
  versionOf: EntityIdSchema.nullable().default(null),
});
export type AddItemInput = z.input<typeof AddItemSchema>;
export type AddItem = z.infer<typeof AddItemSchema>;

export const AddItemsSchema = z.array(AddItemSchema).min(1).max(QUEUE_POLICY.maxAddBatch);

/** A report from the upload engine; every field is optional, unknown fields are refused. */
export const ItemPatchSchema = z
  .object({
    status: z.enum(UPLOAD_STATUSES).optional(),
    /** percent of the bytes sent, only while uploading */
    progress: z.number().min(0).max(100).optional(),
    /** bytes per second, only while uploading (null: not measured yet) */
    speed: z.number().min(0).max(1e12).nullable().optional(),
    /** what went wrong, only with status error (a default text is used when left out) */
    error: z.string().min(1).max(1000).nullable().optional(),
    assetId: EntityIdSchema.nullable().optional(),
    variantId: EntityIdSchema.nullable().optional(),
    uploadId: UploadIdSchema.nullable().optional(),
  })
  .strict();
export type ItemPatch = z.infer<typeof ItemPatchSchema>;

export const KeepAliveIdsSchema = z.array(ItemIdSchema).max(QUEUE_POLICY.maxKeepAliveIds);

/** Several engine reports at once, applied in order (an item's reports keep their order). */
export const ReportsSchema = z
  .array(z.object({ id: ItemIdSchema, patch: ItemPatchSchema }).strict())
  .min(1)
  .max(QUEUE_POLICY.maxReportBatch);
export type Report = z.infer<typeof ReportsSchema>[number];

/** What became of one report of a batch: the item after it (200), or why it was refused (404, 409). */
export type ReportResult = { id: string; status: 200; item: UploadItem } | { id: string; status: 404 | 409; message: string };

/** One queued file as the queue keeps it and the API answers it. */
export interface UploadItem {
  id: string;
  fileName: string;
  size: number;
  groupId: string | null;
  assetId: string | null;
  /**
   * Set (and then equal to `assetId` from the start) when the file is a new version of an existing asset: no asset
   * is created for it, and cancelling drops only the version being uploaded, never the asset. Absent otherwise.
   */
  versionOf?: string;
  variantId: string | null;
  uploadId: string | null;
  status: UploadStatus;
  /** 0–100 */
  progress: number;
  /** bytes per second while uploading (null when not uploading or not measured yet) */
  speed: number | null;
  error: string | null;
  /**
   * Cancel was asked for a file that had already left the queue: the engine that holds it cancels it in the
   * worker, deletes the asset and then removes the item (or reports error when that fails).
   */
  cancelled: boolean;
  /** epoch milliseconds: added, last changed, last sign of life from a browser */
  ctime: number;
  mtime: number;
  lastSeen: number;
}

/** The queue as `GET /api/uploads` answers it. */
export interface QueueState {
  items: UploadItem[];
  /** every item is completed or error (true for an empty queue) */
  finished: boolean;
  /** id of the item to start next (`nextToStart`), or null */
  next: string | null;
}

/** What a cancel did: a waiting item is removed at once; any other is marked `cancelled` for its engine. */
export interface CancelResult {
  removed: boolean;
  item: UploadItem | null;
}

/** A multipart upload to abort because its browser went away. */
export interface AbortRequest {
  variantId: string;
  uploadId: string;
}

/** A refused request: 404 unknown item, 409 against the rules. Nothing changed. */
export interface Refusal {
  ok: false;
  status: 404 | 409;
  message: string;
}
export type Outcome<T> = { ok: true; value: T } | Refusal;

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const conflict = (message: string): Refusal => ({ ok: false, status: 409, message });
export const notFound = (): Refusal => ({ ok: false, status: 404, message: ru.queue.itemNotFound });

/** A new queue item: waiting, nothing sent yet. */
export function newItem(input: AddItem, now: number): UploadItem {
  return {
    id: input.id,
    fileName: input.fileName,
    size: input.size,
    groupId: input.groupId,
    assetId: input.versionOf,
    ...(input.versionOf ? { versionOf: input.versionOf } : {}),
    variantId: null,
    uploadId: null,
    status: "waiting",
    progress: 0,
    speed: null,
    error: null,
    cancelled: false,
    ctime: now,
    mtime: now,
    lastSeen: now,
  };
}

/**
 * Adds files to a queue (`existing` in arrival order). An id already queued is left as it is (adding is
 * idempotent, so a retried request or a second tab does no harm); an id repeated in one request counts once.
 * Answers the item for every input, in input order, and the ones created; 409 when the queue would overflow.
 */
export function addItems(
  existing: readonly UploadItem[],
  inputs: readonly AddItem[],
  now: number,
): Outcome<{ items: UploadItem[]; created: UploadItem[] }> {
  const byId = new Map(existing.map((i) => [i.id, i]));
  const created: UploadItem[] = [];
  const items = inputs.map((input) => {
    let item = byId.get(input.id);
    if (!item) {
      item = newItem(input, now);
      byId.set(item.id, item);
      created.push(item);
    }
    return item;
  });
  if (existing.length + created.length > QUEUE_POLICY.maxItems) return conflict(ru.queue.queueFull(QUEUE_POLICY.maxItems));
  return ok({ items, created });
}

/** Whether `from → to` is allowed (keeping a status is, except that nothing leaves completed). */
export function canTransition(from: UploadStatus, to: UploadStatus): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

const name = (status: UploadStatus) => ru.queue.statusNames[status];

/**
 * Applies an engine report to an item. Refused (409, nothing changes): any change to a completed item, a status
 * change outside `TRANSITIONS`, progress or speed unless the item is (or becomes) uploading, an error text without
 * status error, and anything but a failure report on a cancelled item. Side effects of a status: speed is null
 * outside uploading; progress is 100 from uploaded on; the error text is set with error (a default text when none
 * is given) and cleared when the item leaves error. Every accepted report is a sign of life (`lastSeen`); `mtime`
 * moves only when something visible changed.
 */
export function applyPatch(item: UploadItem, patch: ItemPatch, now: number): Outcome<UploadItem> {
  const to = patch.status ?? item.status;
  if (item.status === "completed") {
    const onlyRepeat = Object.entries(patch).every(([key, value]) => value === undefined || (key === "status" && value === "completed"));
    return onlyRepeat ? ok(item) : conflict(ru.queue.completedFinal);
  }
  if (item.cancelled) {
    const failureReport =
      to === "error" && Object.entries(patch).every(([key, value]) => value === undefined || key === "status" || key === "error");
    if (!failureReport) return conflict(ru.queue.cancelled);
  }
  if (!canTransition(item.status, to)) return conflict(ru.queue.illegalTransition(name(item.status), name(to)));
  if ((patch.progress !== undefined || patch.speed != null) && to !== "uploading") return conflict(ru.queue.progressOnlyUploading);
  if (patch.error != null && to !== "error") return conflict(ru.queue.errorOnlyWithError);

  const next: UploadItem = { ...item, status: to, lastSeen: Math.max(item.lastSeen, now) };
  if (patch.assetId !== undefined) next.assetId = patch.assetId;
  if (patch.variantId !== undefined) next.variantId = patch.variantId;
  if (patch.uploadId !== undefined) next.uploadId = patch.uploadId;
  if (patch.progress !== undefined) next.progress = patch.progress;
  if (FULL_PROGRESS.includes(to)) next.progress = 100;
  next.speed = to !== "uploading" ? null : patch.speed !== undefined ? patch.speed : item.status === "uploading" ? item.speed : null;
  next.error = to === "error" ? patch.error ?? (item.status === "error" ? item.error : null) ?? ru.queue.failed : null;
  if (visiblyDifferent(item, next)) next.mtime = now;
  return ok(next);
}

/** Whether two versions of an item differ in anything but their times (what the tabs need to hear about). */
export function visiblyDifferent(a: UploadItem, b: UploadItem): boolean {
  return (Object.keys(a) as (keyof UploadItem)[]).some((key) => key !== "lastSeen" && key !== "mtime" && a[key] !== b[key]);
}

/**
 * Cancelling (SPEC §4): a waiting item is simply removed; any other item except a completed one is marked
 * `cancelled` (idempotent) so the engine holding it cancels it in the worker, deletes the asset and removes the
 * item. A completed upload cannot be cancelled (409): its file is in the library already.
 */
export function cancelItem(item: UploadItem, now: number): Outcome<CancelResult> {
  if (item.status === "waiting") return ok({ removed: true, item: null });
  if (item.status === "completed") return conflict(ru.queue.cancelCompleted);
  if (item.cancelled) return ok({ removed: false, item });
  return ok({ removed: false, item: { ...item, cancelled: true, speed: null, mtime: now, lastSeen: Math.max(item.lastSeen, now) } });
}

/** A keep-alive: the browser still holds the item. */
export function touch(item: UploadItem, now: number): UploadItem {
  return now > item.lastSeen ? { ...item, lastSeen: now } : item;
}

/** The queue is finished when every item is completed or error (an empty queue is finished). */
export function isFinished(items: readonly UploadItem[]): boolean {
  return items.every((i) => i.status === "completed" || i.status === "error");
}

/** While the queue is not finished, the next waiting item (the oldest: `items` are in arrival order) is started. */
export function nextToStart(items: readonly UploadItem[]): UploadItem | null {
  if (isFinished(items)) return null;
  return items.find((i) => i.status === "waiting") ?? null;
}

export function queueState(items: UploadItem[]): QueueState {
  return { items, finished: isFinished(items), next: nextToStart(items)?.id ?? null };
}

/** A watched item whose browser has not been heard from for `staleAfterMs`. */
export function isStale(item: UploadItem, now: number): boolean {
  return WATCHED_STATUSES.includes(item.status) && now - item.lastSeen >= QUEUE_POLICY.staleAfterMs;
}

/** The stale item as error, and the multipart upload to abort (when the item had got that far). */
export function markStale(item: UploadItem, now: number): { item: UploadItem; abort: AbortRequest | null } {
  const failed: UploadItem = { ...item, status: "error", error: ru.queue.stale, speed: null, mtime: now };
  const abort = item.variantId && item.uploadId ? { variantId: item.variantId, uploadId: item.uploadId } : null;
  return { item: failed, abort };
}

/** An item nobody watches that has been left alone for `retentionMs`: the queue forgets it. */
export function isExpired(item: UploadItem, now: number): boolean {
  return !WATCHED_STATUSES.includes(item.status) && now - Math.max(item.mtime, item.lastSeen) >= QUEUE_POLICY.retentionMs;
}

/** When the queue next needs a look (an item may go stale or expire), or null for an empty queue. */
export function wakeUpAt(items: readonly UploadItem[]): number | null {
  let at: number | null = null;
  for (const item of items) {
    const due = WATCHED_STATUSES.includes(item.status)
      ? item.lastSeen + QUEUE_POLICY.staleAfterMs
      : Math.max(item.mtime, item.lastSeen) + QUEUE_POLICY.retentionMs;
    if (at === null || due < at) at = due;
  }
  return at;
}

/**
 * The housekeeping pass: stale items become error (with the uploads to abort), expired items are forgotten. An
 * item that fails now is not also forgotten now (its `mtime` is now).
 */
export function sweep(items: readonly UploadItem[], now: number): { failed: UploadItem[]; aborts: AbortRequest[]; expired: string[] } {
  const failed: UploadItem[] = [];
  const aborts: AbortRequest[] = [];
  const expired: string[] = [];
  for (const item of items) {
    if (isStale(item, now)) {
      const stale = markStale(item, now);
      failed.push(stale.item);
      if (stale.abort) aborts.push(stale.abort);
    } else if (isExpired(item, now)) {
      expired.push(item.id);
    }
  }
  return { failed, aborts, expired };
}
