import { ru } from "../../../../shared/i18n/ru";
import { runBatch } from "../../../db/repositories/asset.repository";
import { deleteContentSql, upsertContentSql } from "../../../db/repositories/search.repository";
import { AppError } from "../../../lib/errors";
import { importMappedFields } from "../../metadata";
import { indexVector } from "../../search";
import { inItemLibrary } from "./item-library";
import { assetIdsOf, loadAssetSource, readVariantBytes, readVariantRange, type AssetSource } from "./asset-source";
import { extractSearchText, hasTextCard, limits, ParseLimitError, probeMedia, techSummary, textKind } from "../../media/decode";
import { percent, type OperationContext, type TaskOperation } from "./operation";
import { techFieldsSpec, type TechFieldsOptions } from "./tech-fields.spec";
import { techFieldsPatch, type StageName, type StageState } from "./processing-state";
import { failStuckAsset } from "./stuck-item";
import { MAX_TASK_ATTEMPTS } from "../task-runner";

/** Bytes read from the start of a file for headers, EXIF/XMP and PDF page trees. */
export const TECH_HEAD_BYTES = 16 * 1024 * 1024;


interface TechState {
  index: number;
  /** the reasons of the files refused so far (Russian) */
  failed?: string[];
}

/** Whether the probe found anything beyond the type and size every file has. */
const hasTech = (fields: Record<string, unknown>) => Object.keys(fields).some((k) => k !== "mime" && k !== "size");

/**
 * Whether the demuxer read an audio or video file's streams: a container name alone (an MP4 cut before its index,
 * bytes that only claim to be video) is not technical data.
 */
const hasAvTech = (fields: Record<string, unknown>) => ["duration", "codecs", "width", "sample_rate"].some((k) => fields[k] !== undefined);

/** Bytes a document must be read whole for its text: office archives and PDFs keep their index at the end. */
function wholeLimit(kind: string): number | null {
  if (kind === "pdf") return limits.MAX_PDF_BYTES;
  if (kind === "plain" || kind === "json" || kind === "subtitles") return null;
  return limits.MAX_ARCHIVE_BYTES;
}

/**
 * One file: technical data, then its text for the index, each stage ending as done, not applicable or failed
 * (processing-state.ts). A ParseLimitError fails only its stage, with its reason; the file is kept and the task goes
 * on with the next file. Answers the refusal reason, if any.
 */
async function processOne(ctx: OperationContext<TechFieldsOptions>, source: AssetSource): Promise<string | null> {
  const v = source.main.variant;
  const mime = v.mimeType.split(";")[0].trim().toLowerCase();
  const stages: Partial<Record<StageName, StageState>> = {};
  let refused: string | null = null;
  const fail = (error: unknown): StageState => {
    if (!(error instanceof ParseLimitError)) throw error;
    refused ??= error.reason;
    return { state: "failed", reason: error.reason };
  };
  const head = await readVariantBytes(ctx.rc, source, TECH_HEAD_BYTES);
  if (!head) throw new Error(`object of variant ${v.id} is missing from its storage`);

  let fields: Record<string, unknown> = { mime, size: v.contentSize };
  let unreadable: string | null = null;
  try {
    fields = (await probeMedia({
      mime,
      size: v.contentSize,
      head,
      read: (offset, length) =>
        offset >= v.contentSize ? Promise.resolve(null) : readVariantRange(ctx.rc, source, offset, Math.min(length, v.contentSize - offset)),
    })) as unknown as Record<string, unknown>;
    if (mime.startsWith("audio/") || mime.startsWith("video/")) {
      // Every audio and video file has a duration and codecs: finding none is a failure to read it, said as such.
      if (!hasAvTech(fields)) unreadable = ru.processing.avUnreadable;
      stages.tech = unreadable ? { state: "failed", reason: unreadable } : { state: "done" };
    } else stages.tech = hasTech(fields) ? { state: "done" } : { state: "not_applicable", reason: ru.processing.noTechFields };
  } catch (error) {
    stages.tech = fail(error);
  }

  // The document's text feeds the search index (decision 011).
  const kind = textKind(v.mimeType, v.fileName);
  let text: string | null = null;
  if (!kind) stages.text = { state: "not_applicable", reason: ru.processing.noText };
  else {
    const limit = wholeLimit(kind);
    if (limit !== null && v.contentSize > limit) stages.text = { state: "failed", reason: ru.processing.textTooLarge(Math.round(limit / 1048576)) };
    else {
      try {
        const bytes = limit === null || v.contentSize <= head.length ? head : await readVariantBytes(ctx.rc, source, limit);
        if (!bytes) throw new Error(`object of variant ${v.id} is missing from its storage`);
        text = await extractSearchText(v.mimeType, v.fileName, bytes);
        stages.text = text ? { state: "done" } : { state: "not_applicable", reason: ru.processing.emptyText };
      } catch (error) {
        stages.text = fail(error);
      }
    }
  }
  // Only images, videos, audio and documents with a text card get a preview task; every other type's preview stage ends here.
  if (!mime.startsWith("image/") && !mime.startsWith("video/") && !mime.startsWith("audio/") && !hasTextCard(mime, v.fileName)) stages.preview = { state: "not_applicable", reason: ru.processing.noPreview(mime) };

  const props: Record<string, unknown> = { mime, size: v.contentSize };
  for (const key of ["width", "height", "duration", "page_count"] as const) if (fields[key] !== undefined) props[key] = fields[key];
  if (Array.isArray(fields.codecs)) props.codecs = fields.codecs.join(",");
  await runBatch(ctx.rc.db, [
    techFieldsPatch(ctx.rc.db, v.id, fields, stages, props),
    text ? upsertContentSql(source.asset.id, source.main.version, text, Date.now()) : deleteContentSql(source.asset.id),
  ]);
  if (text) await indexVector(ctx.rc, source.asset.id, `${source.asset.name}\n${text}`);
  // Embedded XMP/IPTC/EXIF fills the fields mapped to its keys (the default set maps title, description, creator …).
  if (fields.exif) {
    try {
      await importMappedFields(ctx.rc, source.asset.id, source.main.version, fields);
    } catch (error) {
      // The asset or its version went away while the step ran: nothing to fill.
      if (!(error instanceof AppError)) throw error;
    }
  }
  if (refused) await ctx.log("error", ru.tasks.log.refused(source.asset.name, refused));
  else if (unreadable) await ctx.log("warn", ru.tasks.log.refused(source.asset.name, unreadable));
  else await ctx.log("info", ru.tasks.log.techFields(source.asset.name, techSummary(fields as never)));
  return refused;
}

/**
 * `tech-fields`: technical metadata of each asset's main variant (latest version), from its bytes: dimensions,
 * duration, codecs, EXIF/XMP/IPTC, page count. Stored as JSON on the variant (`tech_fields`, the full set with the
 * stages' outcome in `processing`; `tech_props`, the few numbers lists show) and served by GET
 * /api/asset/tech-fields and variant-tech-*. The text of documents is stored for the search index in the same
 * batch. Every parser keeps the limits of media/extract/limits.ts: a hostile file fails its stage with the reason,
 * is not retried into the same wall, and the task ends as error naming it after the other files are done.
 */
/** One file's technical fields and text (its latest version): the refusal's text, or null. */
async function techFieldsOfItem(ctx: OperationContext<TechFieldsOptions>, id: string): Promise<string | null> {
  const { asset, source } = await loadAssetSource(ctx.rc, id);
  if (!asset) await ctx.log("warn", ru.tasks.log.assetGone(id));
  else if (!source) await ctx.log("warn", ru.tasks.log.noOriginal(asset.name));
  if (!asset || !source) return null;
  try {
    return await processOne(ctx, source);
  } catch (error) {
    // A transient failure is retried; on the last attempt the stages end as failed instead of staying «processing».
    if (ctx.task.attempts + 1 < MAX_TASK_ATTEMPTS) throw error;
    const stage: StageState = { state: "failed", reason: ru.processing.internal };
    await runBatch(ctx.rc.db, [techFieldsPatch(ctx.rc.db, source.main.variant.id, {}, { tech: stage, text: stage })]);
    throw error;
  }
}

export const techFieldsOperation: TaskOperation<TechFieldsOptions, TechState> = {
  ...techFieldsSpec,
  async start() {
    return { index: 0, failed: [] };
  },
  async step(ctx, state) {
    const ids = assetIdsOf(ctx.task.affected);
    const id = ids[state.index];
    const failed = [...(state.failed ?? [])];
    if (id) {
      const refused = await inItemLibrary(ctx, id, (ctx) => techFieldsOfItem(ctx, id));
      if (refused) failed.push(refused);
    }
    const index = state.index + 1;
    const done = index >= ids.length;
    return {
      state: { index, failed },
      done,
      progress: percent(index, ids.length),
      info: `${index} / ${ids.length}`,
      failed: done && failed.length > 0 ? (ids.length === 1 ? failed[0] : ru.tasks.log.someFailed(failed.length, ids.length)) : null,
    };
  },
  async skipStuckItem(ctx, state, reason) {
    const id = assetIdsOf(ctx.task.affected)[state.index];
    const name = id ? await inItemLibrary(ctx, id, (ctx) => failStuckAsset(ctx, id, ["tech", "text"], reason)) : null;
    return { index: state.index + 1, failed: name ? [...(state.failed ?? []), `${name}: ${reason}`] : state.failed };
  },
};
