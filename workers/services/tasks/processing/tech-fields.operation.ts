import { eq } from "drizzle-orm";
import { z } from "zod";
import { ru } from "../../../../shared/i18n/ru";
import { runBatch } from "../../../db/repositories/asset.repository";
import { deleteContentSql, upsertContentSql } from "../../../db/repositories/search.repository";
import { variants } from "../../../db/schema/index";
import { indexVector, extractText, textKind } from "../../search";
import { assetIdsOf, loadAssetSource, readVariantBytes, readVariantRange } from "./asset-source";
import { probeMedia, techSummary } from "../../media";
import { percent, type TaskOperation } from "./operation";
import { titleOf } from "./preview.operation";

/** Bytes read from the start of a file for headers, EXIF/XMP and PDF page trees. */
export const TECH_HEAD_BYTES = 16 * 1024 * 1024;

const TechFieldsOptionsSchema = z.object({});
type TechFieldsOptions = z.infer<typeof TechFieldsOptionsSchema>;

interface TechState {
  index: number;
}

/**
 * `tech-fields`: technical metadata of each asset's main variant (latest version), from its bytes: dimensions,
 * duration, codecs, EXIF/XMP/IPTC, page count. Stored as JSON on the variant (`tech_fields`, the full set;
 * `tech_props`, the few numbers lists show) and served by GET /api/asset/tech-fields and variant-tech-*. The text of
 * documents (extract-text) is stored for the search index in the same batch.
 */
export const techFieldsOperation: TaskOperation<TechFieldsOptions, TechState> = {
  name: "tech-fields",
  entityTypes: ["asset"],
  options: TechFieldsOptionsSchema,
  title: (entities, names) => `${ru.tasks.operations["tech-fields"]}: ${titleOf(entities, names)}`,
  async start() {
    return { index: 0 };
  },
  async step(ctx, state) {
    const ids = assetIdsOf(ctx.task.affected);
    const id = ids[state.index];
    if (id) {
      const { asset, source } = await loadAssetSource(ctx.rc, id);
      if (!asset) await ctx.log("warn", ru.tasks.log.assetGone(id));
      else if (!source) await ctx.log("warn", ru.tasks.log.noOriginal(asset.name));
      else {
        const v = source.main.variant;
        const head = await readVariantBytes(ctx.rc, source, TECH_HEAD_BYTES);
        if (!head) throw new Error(`object of variant ${v.id} is missing from its storage`);
        const fields = await probeMedia({
          mime: v.mimeType.split(";")[0].trim().toLowerCase(),
          size: v.contentSize,
          head,
          read: (offset, length) =>
            offset >= v.contentSize
              ? Promise.resolve(null)
              : readVariantRange(ctx.rc, source, offset, Math.min(length, v.contentSize - offset)),
        });
        const props: Record<string, unknown> = { mime: fields.mime, size: fields.size };
        for (const key of ["width", "height", "duration", "page_count"] as const) if (fields[key] !== undefined) props[key] = fields[key];
        if (fields.codecs) props.codecs = fields.codecs.join(",");
        // The document's text feeds the search index (decision 011); a zip-based office file needs all its bytes.
        const whole = v.contentSize <= head.length;
        const text =
          whole || textKind(v.mimeType, v.fileName) === "plain" ? await extractText(v.mimeType, v.fileName, head).catch(() => null) : null;
        await runBatch(ctx.rc.db, [
          ctx.rc.db
            .update(variants)
            .set({ techFields: fields as unknown as Record<string, unknown>, techProps: props })
            .where(eq(variants.id, v.id)),
          text ? upsertContentSql(asset.id, source.main.version, text, Date.now()) : deleteContentSql(asset.id),
        ]);
        if (text) await indexVector(ctx.rc, asset.id, `${asset.name}\n${text}`);
        await ctx.log("info", ru.tasks.log.techFields(asset.name, techSummary(fields)));
      }
    }
    const index = state.index + 1;
    return { state: { index }, done: index >= ids.length, progress: percent(index, ids.length), info: `${index} / ${ids.length}` };
  },
};
