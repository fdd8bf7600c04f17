import { DurableObject } from "cloudflare:workers";
import { z } from "zod";

/** Upload item statuses (SPEC §4). */
export const UPLOAD_STATUSES = ["waiting", "uploading", "uploaded", "saving", "completed", "busy", "error"] as const;

export const UploadItemSchema = z.object({
  id: z.string().min(1).max(64),
  fileName: z.string().min(1).max(1024),
  size: z.number().int().nonnegative(),
  assetId: z.string().nullable().default(null),
  groupId: z.string().nullable().default(null),
  status: z.enum(UPLOAD_STATUSES).default("waiting"),
  progress: z.number().min(0).max(100).default(0),
  error: z.string().nullable().default(null),
});
export type UploadItem = z.infer<typeof UploadItemSchema> & { ctime: number; mtime: number };

const UploadPatchSchema = UploadItemSchema.pick({ assetId: true, status: true, progress: true, error: true }).partial();

/**
 * The upload queue of one user (one object per user id).
 * Responsibilities: keep every queued file with its status and progress so the status panel survives reloads and
 * shows the same queue in every tab; order items by arrival; forget finished items on request.
 */
export class UploadQueueDO extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS items (
      id TEXT PRIMARY KEY, body TEXT NOT NULL, ctime INTEGER NOT NULL
    )`);
  }

  /** Adds an item (status waiting unless given) or replaces one with the same id; returns the stored item. */
  add(input: unknown): UploadItem {
    const parsed = UploadItemSchema.parse(input);
    const now = Date.now();
    const existing = this.get(parsed.id);
    const item: UploadItem = { ...parsed, ctime: existing?.ctime ?? now, mtime: now };
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO items (id, body, ctime) VALUES (?, ?, ?)", item.id, JSON.stringify(item), item.ctime);
    return item;
  }

  /** Applies a status/progress change; returns null when the item is unknown. */
  update(id: string, patch: unknown): UploadItem | null {
    const item = this.get(id);
    if (!item) return null;
    const next: UploadItem = { ...item, ...UploadPatchSchema.parse(patch), mtime: Date.now() };
    this.ctx.storage.sql.exec("UPDATE items SET body = ? WHERE id = ?", JSON.stringify(next), id);
    return next;
  }

  get(id: string): UploadItem | null {
    const row = this.ctx.storage.sql.exec<{ body: string }>("SELECT body FROM items WHERE id = ?", id).toArray()[0];
    return row ? (JSON.parse(row.body) as UploadItem) : null;
  }

  list(): UploadItem[] {
    return this.ctx.storage.sql
      .exec<{ body: string }>("SELECT body FROM items ORDER BY ctime, id")
      .toArray()
      .map((r) => JSON.parse(r.body) as UploadItem);
  }

  remove(id: string): boolean {
    return this.ctx.storage.sql.exec("DELETE FROM items WHERE id = ?", id).rowsWritten > 0;
  }

  /** The queue is finished when every item is completed or error (SPEC §4). */
  isFinished(): boolean {
    return this.list().every((i) => i.status === "completed" || i.status === "error");
  }

  /** Drops completed items; returns how many were removed. */
  clearCompleted(): number {
    const done = this.list().filter((i) => i.status === "completed");
    for (const item of done) this.remove(item.id);
    return done.length;
  }
}
