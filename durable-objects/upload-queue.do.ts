// Over 400 lines on purpose: one Durable Object class (storage, sockets, alarms); its pure rules are upload-queue.rules.ts.
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import type { TaskMessageInput } from "../workers/queue/messages";
import {
  AddItemsSchema,
  SOCKET_EXPIRES_HEADER,
  SOCKET_PROTOCOL_HEADER,
  addItems,
  applyPatch,
  cancelItem,
  isFinished,
  ItemIdSchema,
  ItemPatchSchema,
  KeepAliveIdsSchema,
  nextToStart,
  notFound,
  ok,
  queueState,
  ReportsSchema,
  sweep,
  touch,
  visiblyDifferent,
  wakeUpAt,
  type AbortRequest,
  type CancelResult,
  type Outcome,
  type QueueState,
  type ReportResult,
  type UploadItem,
  type UploadStatus,
} from "./upload-queue.rules";

export {
  UPLOAD_STATUSES,
  QUEUE_POLICY,
  type UploadItem,
  type UploadStatus,
  type QueueState,
  type CancelResult,
} from "./upload-queue.rules";

/** What every connected tab receives on each change. */
export type QueueEvent = { type: "item"; item: UploadItem } | { type: "removed"; id: string } | { type: "snapshot"; items: UploadItem[] };

/** Close code sent to a socket whose access token has expired: reconnect with a fresh token. */
export const SOCKET_TOKEN_EXPIRED = 4401;

/** How soon a failed abort hand-off is tried again. */
const ABORT_RETRY_MS = 30_000;

interface ItemRow extends Record<string, SqlStorageValue> {
  id: string;
  file_name: string;
  size: number;
  group_id: string | null;
  asset_id: string | null;
  version_of: string | null;
  variant_id: string | null;
  upload_id: string | null;
  status: string;
  progress: number;
  speed: number | null;
  error: string | null;
  cancelled: number;
  ctime: number;
  mtime: number;
  last_seen: number;
}

const COLUMNS =
  "id, file_name, size, group_id, asset_id, variant_id, upload_id, status, progress, speed, error, cancelled, ctime, mtime, last_seen, version_of";

function toItem(r: ItemRow): UploadItem {
  return {
    id: r.id,
    fileName: r.file_name,
    size: r.size,
    groupId: r.group_id,
    assetId: r.asset_id,
    ...(r.version_of ? { versionOf: r.version_of } : {}),
    variantId: r.variant_id,
    uploadId: r.upload_id,
    status: r.status as UploadStatus,
    progress: r.progress,
    speed: r.speed,
    error: r.error,
    cancelled: r.cancelled === 1,
    ctime: r.ctime,
    mtime: r.mtime,
    lastSeen: r.last_seen,
  };
}

/**
 * The upload queue of one user (one object per user id, binding UPLOADS), so the status panel survives reloads and
 * shows the same queue in every tab.
 * Responsibilities:
 * - keep every queued file with its status, progress and ids in SQLite, in arrival order;
 * - apply the SPEC §4 rules of `upload-queue.rules.ts` to every change (refusals come back as 404/409 outcomes,
 *   never as thrown errors, so RPC callers map them to the API's error model);
 * - broadcast each change to the user's tabs over hibernatable WebSockets;
 * - watch keep-alives with an alarm: a busy/uploading/uploaded item whose browser went silent becomes error and its
 *   multipart upload is handed to the TASKS queue (`abort-upload`) to be aborted; items left alone for the
 *   retention period are forgotten.
 * Inputs are zod-parsed here as well as in the API. Methods take `now` so tests can drive the clock.
 */
export class UploadQueueDO extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    // The first scaffold kept JSON bodies in `items`; nothing ever served it, so it is dropped, not migrated.
    sql.exec("DROP TABLE IF EXISTS items");
    sql.exec(`CREATE TABLE IF NOT EXISTS queue_items (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      file_name TEXT NOT NULL, size INTEGER NOT NULL, group_id TEXT,
      asset_id TEXT, variant_id TEXT, upload_id TEXT,
      status TEXT NOT NULL, progress REAL NOT NULL, speed REAL, error TEXT, cancelled INTEGER NOT NULL,
      ctime INTEGER NOT NULL, mtime INTEGER NOT NULL, last_seen INTEGER NOT NULL
    )`);
    // Queues created before new-version uploads existed lack `version_of`: added in place (nullable, no rewrite).
    const columns = sql.exec<{ name: string }>("PRAGMA table_info(queue_items)").toArray();
    if (!columns.some((c) => c.name === "version_of")) sql.exec("ALTER TABLE queue_items ADD COLUMN version_of TEXT");
    // Aborts not yet handed to the TASKS queue: kept so a failed send is retried by the next alarm.
    sql.exec(`CREATE TABLE IF NOT EXISTS pending_aborts (
      variant_id TEXT NOT NULL, upload_id TEXT NOT NULL, PRIMARY KEY (variant_id, upload_id)
    )`);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  // ---- reading ----

  /** Every item, oldest first. */
  list(): UploadItem[] {
    return this.ctx.storage.sql.exec<ItemRow>(`SELECT ${COLUMNS} FROM queue_items ORDER BY seq`).toArray().map(toItem);
  }

  get(id: string): UploadItem | null {
    const row = this.ctx.storage.sql.exec<ItemRow>(`SELECT ${COLUMNS} FROM queue_items WHERE id = ?`, id).toArray()[0];
    return row ? toItem(row) : null;
  }

  /** Items, whether the queue is finished, and the item to start next. */
  state(): QueueState {
    return queueState(this.list());
  }

  isFinished(): boolean {
    return isFinished(this.list());
  }

  nextToStart(): UploadItem | null {
    return nextToStart(this.list());
  }

  // ---- changing ----

  /** Queues files (`AddItemsSchema`); ids already queued are left as they are. Answers the item of every input. */
  async add(input: unknown, now = Date.now()): Promise<Outcome<UploadItem[]>> {
    const outcome = addItems(this.list(), AddItemsSchema.parse(input), now);
    if (!outcome.ok) return outcome;
    for (const item of outcome.value.created) this.save(item);
    await this.schedule();
    for (const item of outcome.value.created) this.broadcast({ type: "item", item });
    return ok(outcome.value.items);
  }

  /** Applies an engine report (`ItemPatchSchema`): 404 for an unknown id, 409 against the rules. */
  async update(id: unknown, patch: unknown, now = Date.now()): Promise<Outcome<UploadItem>> {
    const itemId = ItemIdSchema.parse(id);
    const parsed = ItemPatchSchema.parse(patch);
    const item = this.get(itemId);
    if (!item) return notFound();
    const outcome = applyPatch(item, parsed, now);
    if (!outcome.ok) return outcome;
    if (outcome.value !== item) this.save(outcome.value);
    await this.schedule();
    if (visiblyDifferent(item, outcome.value)) this.broadcast({ type: "item", item: outcome.value });
    return outcome;
  }

  /**
   * Applies several engine reports (`ReportsSchema`) in order, each as `update` would, with one alarm reschedule for
   * all of them: a tab uploading hundreds of small files reports in batches instead of a request per change.
   */
  async updateMany(input: unknown, now = Date.now()): Promise<ReportResult[]> {
    const reports = ReportsSchema.parse(input);
    const results: ReportResult[] = [];
    for (const { id, patch } of reports) {
      const item = this.get(id);
      if (!item) {
        const refused = notFound();
        results.push({ id, status: refused.status as 404, message: refused.message });
        continue;
      }
      const outcome = applyPatch(item, patch, now);
      if (!outcome.ok) {
        results.push({ id, status: outcome.status as 404 | 409, message: outcome.message });
        continue;
      }
      if (outcome.value !== item) this.save(outcome.value);
      if (visiblyDifferent(item, outcome.value)) this.broadcast({ type: "item", item: outcome.value });
      results.push({ id, status: 200, item: outcome.value });
    }
    await this.schedule();
    return results;
  }

  /** Cancels an item: a waiting one is removed, another is marked cancelled for its engine; 409 when completed. */
  async cancel(id: unknown, now = Date.now()): Promise<Outcome<CancelResult>> {
    const item = this.get(ItemIdSchema.parse(id));
    if (!item) return notFound();
    const outcome = cancelItem(item, now);
    if (!outcome.ok) return outcome;
    if (outcome.value.removed) {
      this.delete(item.id);
      this.broadcast({ type: "removed", id: item.id });
    } else if (outcome.value.item && outcome.value.item !== item) {
      this.save(outcome.value.item);
      this.broadcast({ type: "item", item: outcome.value.item });
    }
    await this.schedule();
    return outcome;
  }

  /**
   * A keep-alive from a tab: the listed items are still held by a browser. Unknown ids are ignored; nothing is
   * broadcast (it would reach every tab every 3 seconds). Answers how many items were touched.
   */
  keepalive(ids: unknown, now = Date.now()): number {
    const wanted = [...new Set(KeepAliveIdsSchema.parse(ids))];
    let touched = 0;
    for (const id of wanted) {
      const item = this.get(id);
      if (!item) continue;
      const next = touch(item, now);
      if (next !== item) this.ctx.storage.sql.exec("UPDATE queue_items SET last_seen = ? WHERE id = ?", next.lastSeen, id);
      touched++;
    }
    // No alarm change: keep-alives only push deadlines later, and the alarm re-reads them when it rings.
    return touched;
  }

  /** Removes an item whatever its status (after the engine cancelled it, or to dismiss it); false when unknown. */
  async remove(id: unknown): Promise<boolean> {
    const itemId = ItemIdSchema.parse(id);
    if (!this.get(itemId)) return false;
    this.delete(itemId);
    this.broadcast({ type: "removed", id: itemId });
    await this.schedule();
    return true;
  }

  /** Drops completed items; answers how many. Tabs get a fresh snapshot. */
  async clearCompleted(): Promise<number> {
    const removed = this.ctx.storage.sql.exec("DELETE FROM queue_items WHERE status = 'completed'").rowsWritten;
    if (removed > 0) {
      this.broadcast({ type: "snapshot", items: this.list() });
      await this.schedule();
    }
    return removed;
  }

  /**
   * Housekeeping (the alarm runs it): stale items become error and their multipart uploads are handed to the TASKS
   * queue; expired items are forgotten. Answers what changed.
   */
  async sweep(now = Date.now()): Promise<{ failed: UploadItem[]; expired: string[]; abortsPending: number }> {
    const result = sweep(this.list(), now);
    for (const item of result.failed) this.save(item);
    for (const id of result.expired) this.delete(id);
    for (const a of result.aborts) {
      this.ctx.storage.sql.exec("INSERT OR IGNORE INTO pending_aborts (variant_id, upload_id) VALUES (?, ?)", a.variantId, a.uploadId);
    }
    for (const item of result.failed) this.broadcast({ type: "item", item });
    for (const id of result.expired) this.broadcast({ type: "removed", id });
    const abortsPending = await this.sendAborts();
    await this.schedule(abortsPending > 0 ? now + ABORT_RETRY_MS : null, true);
    return { failed: result.failed, expired: result.expired, abortsPending };
  }

  async alarm(): Promise<void> {
    await this.sweep(Date.now());
  }

  // ---- live updates ----

  /**
   * The WebSocket upgrade, already authenticated by the Worker (`GET /api/uploads/ws`): accepts the socket with the
   * Hibernation API and sends it a snapshot of the queue.
   */
  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("WebSocket expected", { status: 426 });
    const expires = Number(request.headers.get(SOCKET_EXPIRES_HEADER));
    const protocol = request.headers.get(SOCKET_PROTOCOL_HEADER);
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ expires: Number.isFinite(expires) && expires > 0 ? expires : null } satisfies SocketAttachment);
    server.send(JSON.stringify({ type: "snapshot", items: this.list() } satisfies QueueEvent));
    return new Response(null, { status: 101, webSocket: client, headers: protocol ? { "sec-websocket-protocol": protocol } : {} });
  }

  /**
   * Messages from a tab: `{"type":"snapshot"}` asks for the whole queue again, `{"type":"keepalive","ids":[…]}` is
   * the keep-alive without an HTTP request. "ping" is answered "pong" without waking the object.
   */
  async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (this.closeIfExpired(ws, Date.now())) return;
    const parsed = SocketMessageSchema.safeParse(typeof message === "string" ? safeJson(message) : null);
    if (!parsed.success) return;
    if (parsed.data.type === "snapshot") ws.send(JSON.stringify({ type: "snapshot", items: this.list() } satisfies QueueEvent));
    else this.keepalive(parsed.data.ids);
  }

  async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    try {
      ws.close(code, reason);
    } catch {
      // Already closed: the runtime answered the close frame itself.
    }
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    try {
      ws.close(1011, "error");
    } catch {
      // Already closed.
    }
  }

  // ---- internals ----

  private save(item: UploadItem): void {
    this.ctx.storage.sql.exec(
      `INSERT INTO queue_items (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET file_name = excluded.file_name, size = excluded.size, group_id = excluded.group_id,
         asset_id = excluded.asset_id, variant_id = excluded.variant_id, upload_id = excluded.upload_id,
         status = excluded.status, progress = excluded.progress, speed = excluded.speed, error = excluded.error,
         cancelled = excluded.cancelled, ctime = excluded.ctime, mtime = excluded.mtime, last_seen = excluded.last_seen, version_of = excluded.version_of`,
      item.id,
      item.fileName,
      item.size,
      item.groupId,
      item.assetId,
      item.variantId,
      item.uploadId,
      item.status,
      item.progress,
      item.speed,
      item.error,
      item.cancelled ? 1 : 0,
      item.ctime,
      item.mtime,
      item.lastSeen,
      item.versionOf ?? null,
    );
  }

  private delete(id: string): void {
    this.ctx.storage.sql.exec("DELETE FROM queue_items WHERE id = ?", id);
  }

  /**
   * Sets the alarm for the next deadline. Outside the alarm it only ever brings the alarm forward (deadlines that
   * moved later are found when it rings); `reset` (the alarm itself) sets it exactly, or clears it.
   */
  private async schedule(extra: number | null = null, reset = false): Promise<void> {
    const candidates = [wakeUpAt(this.list()), extra].filter((t): t is number => t !== null);
    const want = candidates.length > 0 ? Math.min(...candidates) : null;
    const current = await this.ctx.storage.getAlarm();
    if (want === null) {
      if (reset && current !== null) await this.ctx.storage.deleteAlarm();
      return;
    }
    if (reset || current === null || want < current) await this.ctx.storage.setAlarm(want);
  }

  /** Hands pending aborts to the TASKS queue; answers how many are still pending (the send failed). */
  private async sendAborts(): Promise<number> {
    const pending = this.ctx.storage.sql
      .exec<{ variant_id: string; upload_id: string }>("SELECT variant_id, upload_id FROM pending_aborts")
      .toArray()
      .map((r): AbortRequest => ({ variantId: r.variant_id, uploadId: r.upload_id }));
    let left = pending.length;
    // A queue batch holds at most 100 messages.
    for (let i = 0; i < pending.length; i += 100) {
      const chunk = pending.slice(i, i + 100);
      try {
        await this.env.TASKS.sendBatch(
          chunk.map((a) => ({ body: { op: "abort-upload", variantId: a.variantId, uploadId: a.uploadId } satisfies TaskMessageInput })),
        );
      } catch (error) {
        console.warn(JSON.stringify({ level: "warn", message: "abort-upload hand-off failed; retrying", error: String(error) }));
        continue;
      }
      for (const a of chunk) {
        this.ctx.storage.sql.exec("DELETE FROM pending_aborts WHERE variant_id = ? AND upload_id = ?", a.variantId, a.uploadId);
      }
      left -= chunk.length;
    }
    return left;
  }

  private broadcast(event: QueueEvent): void {
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0) return;
    const now = Date.now();
    const text = JSON.stringify(event);
    for (const ws of sockets) {
      if (this.closeIfExpired(ws, now)) continue;
      try {
        ws.send(text);
      } catch {
        // A socket that is closing: its close handler cleans up.
      }
    }
  }

  /** A socket outlives its access token by at most until the next event: then it is closed and must reconnect. */
  private closeIfExpired(ws: WebSocket, now: number): boolean {
    const attachment = ws.deserializeAttachment() as SocketAttachment | null;
    if (!attachment?.expires || now < attachment.expires) return false;
    try {
      ws.close(SOCKET_TOKEN_EXPIRED, "token expired");
    } catch {
      // Already closed.
    }
    return true;
  }
}

interface SocketAttachment {
  /** epoch milliseconds when the access token used to connect expires */
  expires: number | null;
}

const SocketMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("snapshot") }),
  z.object({ type: z.literal("keepalive"), ids: KeepAliveIdsSchema }),
]);

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
