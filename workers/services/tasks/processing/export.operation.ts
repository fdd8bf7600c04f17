import { z } from "zod";
import { ru } from "../../../../shared/i18n/ru";
import { saveRunningProgress } from "../../../db/repositories/task.repository";
import { ROOT_GROUP_ID } from "../../../lib/ids";
import { liveFoldersWhereTheyLive, planExport, planStream, variantsWhereTheyLive, ZIP_TASK_MAX_FILES } from "../../archive";
import { taskStub } from "../task-live";
import { PermanentTaskError, percent, type TaskOperation } from "./operation";
import { titleOf } from "./title";

/** R2 multipart part size of an export (R2 wants every part but the last of one size). */
export const EXPORT_PART_BYTES = 8 * 1024 * 1024;
/**
 * How often the one long step of an export checks in (heartbeat and progress): well under the runner's STALE_RUN_MS,
 * so a run streaming a large archive is never taken for a dead one and run twice.
 */
const CHECK_IN_MS = 30_000;

/** R2 key of a task's archive. */
export const exportKey = (taskId: string) => `exports/${taskId}.zip`;

const ExportOptionsSchema = z.object({ recursive: z.boolean().default(false) });
type ExportOptions = z.infer<typeof ExportOptionsSchema>;

interface ExportState {
  /** files in the archive, known once the selection is planned */
  total: number;
}

/** Bytes waiting to become a part, flushed in exact part sizes. */
class PartBuffer {
  private chunks: Uint8Array[] = [];
  length = 0;
  constructor(private readonly upload: R2MultipartUpload, private readonly parts: [number, string][]) {}

  async push(bytes: Uint8Array): Promise<void> {
    this.chunks.push(bytes);
    this.length += bytes.length;
    while (this.length >= EXPORT_PART_BYTES) await this.flush(EXPORT_PART_BYTES);
  }

  /** Uploads the first `size` bytes as the next part. */
  async flush(size: number): Promise<void> {
    const part = new Uint8Array(size);
    let at = 0;
    while (at < size) {
      const chunk = this.chunks[0];
      const take = Math.min(chunk.length, size - at);
      part.set(chunk.subarray(0, take), at);
      at += take;
      if (take === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(take);
    }
    this.length -= size;
    const uploaded = await this.upload.uploadPart(this.parts.length + 1, part);
    this.parts.push([uploaded.partNumber, uploaded.etag]);
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/**
 * `export`: a ZIP of folders (with `recursive`, their whole subtrees, paths kept) and files, with the product's one
 * streaming Zip64 writer (workers/services/archive) piped into an R2 multipart upload: nothing holds more than a part
 * in memory. Checked as the task's owner while it runs: files the owner may no longer download are listed in
 * «ПРОПУЩЕНО.txt». The archive is written in one step (a stream cannot be resumed halfway), so a retried run starts
 * the archive over. The result names the archive; GET /api/tasklist/export/{id} (a signed link from task-result)
 * downloads it. Large selections of POST /api/zip arrive here too. Each library's share is planned, and its files'
 * bytes found, where it lives (`planExport`).
 */
export const exportOperation: TaskOperation<ExportOptions, ExportState> = {
  name: "export",
  entityTypes: ["group"],
  options: ExportOptionsSchema,
  title: (entities, names) => `${ru.tasks.operations.export}: ${titleOf(entities, names)}`,
  async start(ctx) {
    const folders = ctx.task.affected.filter((e) => e.type === "group").map((e) => e.id);
    if (folders.includes(ROOT_GROUP_ID)) throw new PermanentTaskError(ru.tasks.groupNotFound);
    const live = folders.length > 0 ? await liveFoldersWhereTheyLive(ctx.rc, folders) : new Set<string>();
    if (folders.some((id) => !live.has(id))) throw new PermanentTaskError(ru.tasks.groupNotFound);
    return { total: 0 };
  },
  async step(ctx) {
    const { rc, task, owner } = ctx;
    if (!owner) throw new PermanentTaskError(ru.tasks.entityNotFound);
    const selection = {
      groupIds: task.affected.filter((e) => e.type === "group").map((e) => e.id),
      assetIds: task.affected.filter((e) => e.type === "asset").map((e) => e.id),
    };
    const plan = await planExport(rc, owner, selection, ZIP_TASK_MAX_FILES, { recursive: ctx.options.recursive });
    if (plan.overflow) throw new PermanentTaskError(ru.tasks.log.exportTooLarge(ZIP_TASK_MAX_FILES));
    const total = plan.files.length;
    const upload = await rc.env.MEDIA.createMultipartUpload(exportKey(task.id), {
      httpMetadata: { contentType: "application/zip", contentDisposition: `attachment; filename="export-${task.jobNum}.zip"` },
    });
    const parts: [number, string][] = [];
    const buffer = new PartBuffer(upload, parts);
    let size = 0;
    let files = 0;
    try {
      const downloader = { userId: owner.id, via: "task" as const };
      const reader = planStream(rc, downloader, plan, (n) => (files = n), variantsWhereTheyLive(rc)).getReader();
      let checkedIn = Date.now();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.length;
        await buffer.push(value);
        if (Date.now() - checkedIn > CHECK_IN_MS) {
          checkedIn = Date.now();
          const progress = Math.min(99, percent(files, total));
          const info = `${files} / ${total}`;
          const held = await saveRunningProgress(rc.db, task.id, { progress, info, cursor: { total }, now: checkedIn, worker: task.workerInfo ?? "" });
          // A pause or cancel took the task from this run: stop writing (the archive starts over on resume).
          if (!held) throw new Error("export stopped by a command");
          await taskStub(rc.env, task.id).setProgress({ progress, info });
        }
      }
      if (buffer.length > 0) await buffer.flush(buffer.length);
      await upload.complete(parts.map(([partNumber, etag]) => ({ partNumber, etag })));
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw error;
    }
    await ctx.log("info", ru.tasks.log.exportDone(files, size));
    return {
      state: { total },
      done: true,
      progress: 100,
      info: `${files} / ${total}`,
      result: { key: exportKey(task.id), size, files },
    };
  },
};
