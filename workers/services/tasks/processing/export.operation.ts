import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { ru } from "../../../../shared/i18n/ru";
import { findGroup } from "../../../db/repositories/group.repository";
import { ROOT_GROUP_ID } from "../../../lib/ids";
import { backendFor } from "../../library";
import { loadAssetSource } from "./asset-source";
import { PermanentTaskError, percent, type TaskOperation } from "./operation";
import { titleOf } from "./preview.operation";
import {
  centralDirectory,
  crc32,
  dataDescriptor,
  dosDateTime,
  localHeader,
  uniqueEntryName,
  ZIP_MAX_BYTES,
  type ZipEntry,
} from "./zip-writer";

/** R2 multipart part size of an export (R2 wants every part but the last of one size). */
export const EXPORT_PART_BYTES = 8 * 1024 * 1024;
/** Entries per archive: the entry list is kept in the task's resume state (a D1 row), so it stays bounded. */
export const EXPORT_MAX_FILES = 10_000;
/** Time a step spends adding files before it saves its state (the consumer checks in between steps). */
const STEP_BUDGET_MS = 5_000;

/** R2 key of a task's archive. */
export const exportKey = (taskId: string) => `exports/${taskId}.zip`;
const tailKey = (taskId: string) => `exports/${taskId}.tail`;

const ExportOptionsSchema = z.object({ recursive: z.boolean().default(false) });
type ExportOptions = z.infer<typeof ExportOptionsSchema>;

type CompactEntry = [name: string, crc: number, size: number, offset: number, dosTime: number, dosDate: number];

interface ExportState {
  uploadId: string;
  parts: [number, string][];
  /** bytes of the archive written so far (uploaded parts plus the saved tail) */
  offset: number;
  after: string;
  total: number;
  entries: CompactEntry[];
  /** whether a tail shorter than a part is saved in R2 between steps */
  tail: boolean;
}

/** Asset ids of the exported group (or its subtree), after `after` in id order. */
function membersSql(groupId: string, recursive: boolean, after: string, limit: number | null): SQL {
  const groupsSql = recursive
    ? sql`(select c.descendant from group_closure c join groups g on g.id = c.descendant where c.ancestor = ${groupId} and g.deleted_at is null)`
    : sql`(${groupId})`;
  return sql`select distinct m.el_id from group_members m
    where m.group_id in ${groupsSql} and m.el_type = 'asset' and m.trashed_at is null and m.el_id > ${after}
    order by m.el_id ${limit ? sql`limit ${limit}` : sql``}`;
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
 * `export`: a ZIP of a group's assets (main variant of the latest version; with `recursive`, of its whole subtree)
 * streamed into R2 as a multipart upload while CRC-32s are computed on the fly; nothing holds more than a part in
 * memory. Between steps the bytes short of a whole part are kept in a small R2 object, so a paused or yielded export
 * resumes exactly. The result names the archive; GET /api/tasklist/export/{id} (a signed link from task-result)
 * downloads it.
 */
export const exportOperation: TaskOperation<ExportOptions, ExportState> = {
  name: "export",
  entityTypes: ["group"],
  options: ExportOptionsSchema,
  title: (entities, names) => `${ru.tasks.operations.export}: ${titleOf(entities, names)}`,
  async start(ctx) {
    const groupId = ctx.task.affected[0]?.id;
    const group = groupId ? await findGroup(ctx.rc.db, groupId) : undefined;
    if (!group || group.deletedAt != null || groupId === ROOT_GROUP_ID) throw new PermanentTaskError(ru.tasks.groupNotFound);
    const counted = await ctx.rc.db.all<{ n: number }>(
      sql`select count(*) as n from (${membersSql(group.id, ctx.options.recursive, "", null)})`,
    );
    const total = counted[0]?.n ?? 0;
    if (total > EXPORT_MAX_FILES) throw new PermanentTaskError(ru.tasks.log.exportTooLarge(EXPORT_MAX_FILES));
    const upload = await ctx.rc.env.MEDIA.createMultipartUpload(exportKey(ctx.task.id), {
      httpMetadata: { contentType: "application/zip", contentDisposition: `attachment; filename="export-${ctx.task.jobNum}.zip"` },
    });
    return { uploadId: upload.uploadId, parts: [], offset: 0, after: "", total, entries: [], tail: false };
  },
  async step(ctx, state) {
    const { rc, task } = ctx;
    const groupId = task.affected[0].id;
    const upload = rc.env.MEDIA.resumeMultipartUpload(exportKey(task.id), state.uploadId);
    const buffer = new PartBuffer(upload, state.parts);
    if (state.tail) {
      const saved = await rc.env.MEDIA.get(tailKey(task.id));
      if (!saved) throw new PermanentTaskError(ru.tasks.exportGone);
      await buffer.push(new Uint8Array(await saved.arrayBuffer()));
    }
    const taken = new Set(state.entries.map((e) => e[0].toLowerCase()));
    const started = Date.now();
    let exhausted = false;
    while (Date.now() - started < STEP_BUDGET_MS) {
      const ids = (await rc.db.all<{ el_id: string }>(membersSql(groupId, ctx.options.recursive, state.after, 20))).map((r) => r.el_id);
      if (ids.length === 0) {
        exhausted = true;
        break;
      }
      for (const id of ids) {
        state.after = id;
        const { source } = await loadAssetSource(rc, id);
        if (!source) continue;
        const v = source.main.variant;
        if (state.offset + v.contentSize + 1024 > ZIP_MAX_BYTES || state.entries.length >= EXPORT_MAX_FILES) {
          throw new PermanentTaskError(ru.tasks.log.exportTooLarge(EXPORT_MAX_FILES));
        }
        const object = await (await backendFor(rc, v.storageId)).get(v.storageKey);
        if (!object?.body) throw new Error(`object of variant ${v.id} is missing from its storage`);
        const entry: ZipEntry = {
          name: uniqueEntryName(source.asset.name, taken),
          crc: 0,
          size: 0,
          offset: state.offset,
          ...dosDateTime(source.asset.mtime),
        };
        const header = localHeader(entry);
        await buffer.push(header);
        const reader = object.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          entry.crc = crc32(entry.crc, value);
          entry.size += value.length;
          await buffer.push(value);
        }
        await buffer.push(dataDescriptor(entry));
        state.offset += header.length + entry.size + 16;
        state.entries.push([entry.name, entry.crc, entry.size, entry.offset, entry.dosTime, entry.dosDate]);
        await ctx.log("info", ru.tasks.log.exported(entry.name, entry.size));
      }
    }
    const files = state.entries.length;
    if (!exhausted) {
      const tail = buffer.bytes();
      if (tail.length > 0) await rc.env.MEDIA.put(tailKey(task.id), tail);
      state.tail = tail.length > 0;
      return { state, done: false, progress: Math.min(99, percent(files, state.total)), info: `${files} / ${state.total}` };
    }
    const entries = state.entries.map(([name, crc, size, offset, dosTime, dosDate]) => ({ name, crc, size, offset, dosTime, dosDate }));
    const directory = centralDirectory(entries, state.offset);
    await buffer.push(directory);
    const size = state.offset + directory.length;
    if (buffer.length > 0) await buffer.flush(buffer.length);
    await upload.complete(state.parts.map(([partNumber, etag]) => ({ partNumber, etag })));
    await rc.env.MEDIA.delete(tailKey(task.id));
    await ctx.log("info", ru.tasks.log.exportDone(files, size));
    return {
      state: { ...state, tail: false },
      done: true,
      progress: 100,
      info: `${files} / ${state.total}`,
      result: { key: exportKey(task.id), size, files },
    };
  },
};
