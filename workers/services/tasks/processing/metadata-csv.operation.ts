import { z } from "zod";
import { ru } from "../../../../shared/i18n/ru";
import { newId } from "../../../lib/ids";
import type { Actor, RequestContext } from "../../access";
import { switchedHomes } from "../../../db/library-directory";
import { inLibraryOf } from "../../library";
import { applyMetadataCsvRows, csvTemplates, planMetadataCsv, type CsvRecord, type CsvReport } from "../../metadata";
import { createTask } from "../task-create.service";
import { PermanentTaskError, percent, type TaskOperation } from "./operation";

/** Rows per stored chunk: one step checks and writes one chunk. */
export const CSV_CHUNK_ROWS = 1000;

/** R2 key of chunk `n` of an import. */
const chunkKey = (importId: string, n: number) => `metadata-csv/${importId}/${n}.json`;

const OptionsSchema = z.object({ import_id: z.string().regex(/^[0-9a-f]{32}$/), chunks: z.number().int().min(0).max(1000), rows: z.number().int().min(0) });
type Options = z.infer<typeof OptionsSchema>;

interface State {
  chunk: number;
  changed: number;
  failed: number;
  changes: number;
}

interface Chunk {
  header: string[];
  records: CsvRecord[];
}

/**
 * POST /api/metadata/csv (apply): the file is checked whole as in a dry run, the rows that change something are stored
 * in R2 in chunks, and a `metadata-csv` task owned by the caller applies them chunk by chunk with progress. Answers
 * the task and the dry run's report.
 */
export async function startMetadataCsvImport(rc: RequestContext, actor: Actor, bytes: Uint8Array): Promise<{ job_id: string; job_num: number; report: CsvReport }> {
  const { report, header, records } = await planMetadataCsv(rc, actor, bytes);
  const importId = newId();
  const chunks = Math.ceil(records.length / CSV_CHUNK_ROWS);
  for (let n = 0; n < chunks; n++) {
    const chunk: Chunk = { header, records: records.slice(n * CSV_CHUNK_ROWS, (n + 1) * CSV_CHUNK_ROWS) };
    await rc.env.MEDIA.put(chunkKey(importId, n), JSON.stringify(chunk), { httpMetadata: { contentType: "application/json" } });
  }
  const created = await createTask(rc, {
    operationClass: "metadata-csv",
    name: ru.metadataCsv.taskTitle(report.rows),
    ownerId: actor.id,
    entities: [],
    options: { import_id: importId, chunks, rows: records.length } satisfies Options,
  });
  return { ...created, report };
}

/**
 * A chunk's rows applied where their files live (decision 043): those of the catalog's libraries over the catalog, and
 * each switched library's over its shard — checked there again as the owner, who enters with every field template the
 * header may name — and written back. One report for the chunk.
 */
async function applyWhereTheyLive(rc: RequestContext, owner: Actor, chunk: Chunk): Promise<CsvReport> {
  const column = chunk.header.indexOf("asset_id");
  const idOf = (r: CsvRecord) => (r.cells[column] ?? "").trim();
  const homes = column < 0 ? new Map<string, string>() : await switchedHomes(rc.env.DB, chunk.records.map(idOf));
  if (homes.size === 0) return applyMetadataCsvRows(rc, owner, chunk);
  const templates = (await csvTemplates(rc)).map((t) => t.id);
  const parts = new Map<string | null, CsvRecord[]>();
  for (const record of chunk.records) {
    const library = homes.get(idOf(record)) ?? null;
    parts.set(library, [...(parts.get(library) ?? []), record]);
  }
  const reports: CsvReport[] = [];
  for (const [library, records] of parts) {
    const part = { header: chunk.header, records };
    reports.push(
      library === null
        ? await applyMetadataCsvRows(rc, owner, part)
        : await inLibraryOf(rc, library, (over) => applyMetadataCsvRows(over, owner, part), { actor: owner, named: { templates } }),
    );
  }
  return {
    ...reports[0],
    rows: chunk.records.length,
    changes: reports.reduce((n, r) => n + r.changes, 0),
    changed_rows: reports.reduce((n, r) => n + r.changed_rows, 0),
    error_rows: reports.reduce((n, r) => n + r.error_rows, 0),
    errors: reports.flatMap((r) => r.errors).sort((a, b) => a.row - b.row),
  };
}

/**
 * `metadata-csv`: applies a checked CSV import, one stored chunk per step. Each chunk is checked again as the task's
 * owner (rights or values may have changed since the check), rows that still pass are written (each row whole), the
 * others are counted as failed; the chunk object is deleted once written, so a repeated step finds nothing to redo.
 */
export const metadataCsvOperation: TaskOperation<Options, State> = {
  name: "metadata-csv",
  // Not startable through /enqueue-task: it needs a checked file, which only POST /api/metadata/csv makes.
  entityTypes: [],
  options: OptionsSchema,
  title: () => ru.tasks.operations["metadata-csv"],
  async start() {
    return { chunk: 0, changed: 0, failed: 0, changes: 0 };
  },
  async step(ctx, state) {
    if (!ctx.owner) throw new PermanentTaskError(ru.metadataCsv.taskGone);
    const { import_id, chunks, rows } = ctx.options;
    const next = { ...state };
    if (state.chunk < chunks) {
      const key = chunkKey(import_id, state.chunk);
      const object = await ctx.rc.env.MEDIA.get(key);
      // A chunk already written and deleted by an earlier run of this step.
      if (object) {
        const chunk = (await object.json()) as Chunk;
        const report = await applyWhereTheyLive(ctx.rc, ctx.owner, chunk);
        next.changed += report.changed_rows;
        next.failed += report.error_rows;
        next.changes += report.changes;
        if (report.errors.length > 0) await ctx.log("warn", report.errors.slice(0, 20).map((e) => `${e.row}: ${e.message}`).join("\n"));
        await ctx.rc.env.MEDIA.delete(key);
      }
      next.chunk = state.chunk + 1;
    }
    const done = next.chunk >= chunks;
    if (done) await ctx.log("info", ru.metadataCsv.applied(next.changed, next.failed));
    return {
      state: next,
      done,
      progress: percent(next.chunk, chunks),
      info: `${Math.min(rows, next.chunk * CSV_CHUNK_ROWS)} / ${rows}`,
      result: done ? { rows, changed_rows: next.changed, failed_rows: next.failed, changes: next.changes } : undefined,
    };
  },
};
