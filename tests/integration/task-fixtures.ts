import { env } from "cloudflare:workers";
import { vi } from "vitest";
import type { TaskStatus } from "../../workers/db/schema/index";
import { newId } from "../../workers/lib/ids";
import { createAsset, json, put, rows, startUpload } from "./asset-fixtures";
import { call } from "./factories";

/** A task row as D1 holds it. */
export interface TaskRowJson {
  id: string;
  status: TaskStatus;
  progress: number;
  attempts: number;
  error: string | null;
  cursor: string | null;
  result: string | null;
  owner_id: string | null;
  priority: number;
  operation_class: string;
  schedule_time: number;
  name: string;
  /** JSON array of the task's entities */
  affected: string;
}

export async function taskRow(id: string): Promise<TaskRowJson> {
  return (await rows<TaskRowJson>("select * from tasks where id = ?", id))[0];
}

/** Waits (polling D1) until the task reaches one of `statuses`; the background consumer or a test drives it. */
export async function waitForTask(id: string, statuses: TaskStatus[], timeout = 15_000): Promise<TaskRowJson> {
  return vi.waitFor(
    async () => {
      const row = await taskRow(id);
      if (!statuses.includes(row?.status)) throw new Error(`task ${id} is ${row?.status}`);
      return row;
    },
    { timeout, interval: 50 },
  );
}

/**
 * An asset with one committed version holding `bytes` (create + create-version + PUT through the API). The commit
 * queues `process-variant`, so its preview and tech-fields tasks follow in the background.
 */
export async function uploadFile(
  bearer: string,
  f: { name: string; mime: string; bytes: Uint8Array<ArrayBuffer>; group?: string },
): Promise<{ assetId: string; variantId: string }> {
  const assetId = await createAsset(bearer, { asset_name: f.name, asset_mime: f.mime, ...(f.group ? { in_group: f.group } : {}) });
  const info = await startUpload(bearer, assetId, { file_name: f.name, mime_type: f.mime, size: f.bytes.byteLength });
  const done = await json<{ asset_variant_id: string }>(await put(info.upload_url, f.bytes, { "content-type": f.mime }), 201);
  return { assetId, variantId: done.asset_variant_id };
}

/** The asset's preview task (made by the commit's process-variant), once it has ended in one of `statuses`. */
export async function previewTask(assetId: string, statuses: TaskStatus[] = ["done"], timeout = 60_000): Promise<TaskRowJson> {
  return endedTaskOf(assetId, "preview", statuses, timeout);
}

/**
 * Waits for the asset's task of one operation class (made after its upload) to reach one of `statuses`; answers it.
 * Its making waits behind whatever the queue holds (a 12 MP decode on a busy machine takes seconds), so it is given
 * `timeout` too.
 */
export async function endedTaskOf(
  assetId: string,
  operation: string,
  statuses: TaskStatus[] = ["done"],
  timeout = 60_000,
): Promise<TaskRowJson> {
  const task = await vi.waitFor(
    async () => {
      const found = (await tasksOf(assetId)).find((t) => t.operation_class === operation);
      if (!found) throw new Error(`no ${operation} task was made after the upload`);
      return found;
    },
    { timeout, interval: 50 },
  );
  return waitForTask(task.id, statuses, timeout);
}

/** The tasks made for an asset (newest first). */
export async function tasksOf(assetId: string): Promise<TaskRowJson[]> {
  return rows<TaskRowJson>(
    `select * from tasks where exists (select 1 from json_each(tasks.affected) e where json_extract(e.value, '$.id') = ?) order by job_num desc`,
    assetId,
  );
}

/**
 * Inserts a task row directly, in any status, scheduled far ahead when queued so no stray wake-up claims it while a
 * test works with it (running rows carry a fresh heartbeat for the same reason).
 */
export async function insertTask(t: {
  status: TaskStatus;
  ownerId: string | null;
  op?: string;
  affected?: { id: string; type: string }[];
  options?: Record<string, unknown>;
  priority?: number;
  scheduleTime?: number;
  attempts?: number;
  name?: string;
}): Promise<string> {
  const id = newId();
  const now = Date.now();
  await env.DB.prepare(
    `insert into tasks (id, job_num, operation_class, name, owner_id, affected, options, schedule_time, status, priority, attempts, heartbeat, ctime, mtime)
     values (?, (select coalesce(max(job_num), 0) + 1 from tasks), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      id,
      t.op ?? "reindex",
      t.name ?? `Задача ${id.slice(-6)}`,
      t.ownerId,
      JSON.stringify(t.affected ?? []),
      JSON.stringify(t.options ?? {}),
      t.scheduleTime ?? now + 3_600_000,
      t.status,
      t.priority ?? 5,
      t.attempts ?? 0,
      now,
      now,
      now,
    )
    .run();
  return id;
}

/** GET and POST helpers for the task API with a bearer. */
export async function getJson<T>(path: string, bearer: string, status = 200): Promise<T> {
  return json<T>(await call(path, { bearer }), status);
}

export async function postJson<T>(path: string, bearer: string, body: unknown, status = 200): Promise<T> {
  return json<T>(await call(path, { method: "POST", bearer, json: body }), status);
}

/**
 * An asset with one committed version whose main variant holds `bytes` in R2, written directly (no upload, so no
 * background tasks follow): for tests that drive tasks themselves.
 */
export async function insertStoredAsset(f: {
  ownerId: string;
  name: string;
  mime: string;
  bytes: Uint8Array;
}): Promise<{ assetId: string; variantId: string; key: string }> {
  const { insertAsset, insertVariant } = await import("./catalog-fixtures");
  const { id, versionIds } = await insertAsset({ ownerId: f.ownerId, name: f.name, versions: 1 });
  const variantId = await insertVariant({ assetId: id, versionId: versionIds[0], ownerId: f.ownerId, contentSize: f.bytes.length });
  const key = `variants/${id}/${variantId}`;
  await env.DB.batch([
    env.DB.prepare("update variants set mime_type = ?, file_name = ? where id = ?").bind(f.mime, f.name, variantId),
    env.DB.prepare("update assets set mime = ? where id = ?").bind(f.mime, id),
  ]);
  await env.MEDIA.put(key, f.bytes, { httpMetadata: { contentType: f.mime } });
  return { assetId: id, variantId, key };
}
