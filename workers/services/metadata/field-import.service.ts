import { ru } from "../../../shared/i18n/ru";
import { runBatch, type Statement } from "../../db/repositories/asset.repository";
import {
  deleteVersionValuesStatement,
  findFieldEntities,
  findTemplatesByExtsysKeys,
  findVersionByNumber,
  insertValueStatement,
} from "../../db/repositories/field.repository";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { RequestContext } from "../access";
import { addEmbeddedKeys } from "./embedded-keys";
import { checkedValue, fieldEventStatements } from "./field-value.service";
import type { FieldSetup } from "./field-types/setup";
import { coerceImported } from "./field-types/validate";

/** Nesting depth followed when flattening technical metadata into dotted keys. */
const MAX_DEPTH = 4;

/**
 * `{ XMP: { dc: { creator: "A" } }, "EXIF:Make": "Canon" }` → `Map { "XMP" → {…}, "XMP.dc" → {…}, "XMP.dc.creator" → "A",
 * "EXIF:Make" → "Canon" }`: a template may map to a top-level key or to any dotted path below it.
 */
export function flattenTechFields(fields: Record<string, unknown>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (prefix: string, value: unknown, depth: number) => {
    out.set(prefix, value);
    if (depth >= MAX_DEPTH || typeof value !== "object" || value === null || Array.isArray(value)) return;
    for (const [k, v] of Object.entries(value)) walk(`${prefix}.${k}`, v, depth + 1);
  };
  for (const [k, v] of Object.entries(fields)) walk(k, v, 1);
  return out;
}

export interface ImportReport {
  imported: { def_id: string; key: string; values: number }[];
  skipped: { def_id: string; key: string; reason: string }[];
}

/**
 * Imports technical and embedded metadata (XMP, IPTC, EXIF … as the tech-fields operation extracted it) into the
 * fields whose template maps `field_def_extsys_key` to one of its keys. Runs as the system (no caller): references
 * must exist but read rights are not checked. Values are converted to the template's type (EXIF dates, numeric
 * strings …) and validated like any value; those that do not fit are reported in `skipped`, not stored. Values
 * imported before for the same templates and version are replaced, all in one batch, so a re-run is idempotent.
 *
 * @param version the asset version number the metadata was read from, or null for the asset as a whole
 * @example
 *   const report = await importMappedFields(rc, assetId, 1, variant.techFields ?? {});
 */
export async function importMappedFields(
  rc: RequestContext,
  assetId: string,
  version: number | null,
  techFields: Record<string, unknown>,
): Promise<ImportReport> {
  const [asset] = await findFieldEntities(rc.db, [assetId]);
  if (!asset || asset.type !== "asset") throw new AppError("NOT_FOUND", ru.assets.notFound);
  const versionRow = version === null ? null : await findVersionByNumber(rc.db, assetId, version);
  if (version !== null && !versionRow) throw new AppError("NOT_FOUND", ru.metadata.versionNotFound);
  const flat = flattenTechFields(techFields);
  addEmbeddedKeys(flat);
  const report: ImportReport = { imported: [], skipped: [] };
  if (flat.size === 0) return report;
  const templates = await findTemplatesByExtsysKeys(rc.db, [...flat.keys()]);
  const now = Date.now();
  const inserts: Statement[] = [];
  const events: Statement[] = [];
  const replaced: string[] = [];
  for (const template of templates) {
    const key = template.extsysKey!;
    const setup = template.setup as FieldSetup;
    const raw = flat.get(key);
    const items = Array.isArray(raw) && setup.multiple && template.fieldType !== "struct" ? raw : [raw];
    const rows: Statement[] = [];
    const stored: unknown[] = [];
    try {
      for (const item of items) {
        const coerced = coerceImported(template.fieldType, setup, item);
        const checked = await checkedValue(rc, null, template, coerced);
        stored.push(checked.data);
        rows.push(
          insertValueStatement(rc.db, {
            id: newId(now),
            entityId: assetId,
            entityType: "asset",
            defId: template.id,
            versionId: versionRow?.id ?? null,
            version: versionRow?.version ?? null,
            ptsStart: null,
            ptsEnd: null,
            data: checked.data,
            valueText: checked.valueText,
            valueNum: checked.valueNum,
            userId: null,
            ctime: now,
            mtime: now,
          }),
        );
      }
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      report.skipped.push({ def_id: template.id, key, reason: error.message });
      continue;
    }
    replaced.push(template.id);
    inserts.push(...rows);
    events.push(
      ...fieldEventStatements(
        rc,
        null,
        [asset],
        template.id,
        items.length === 1 ? coerceImported(template.fieldType, setup, items[0]) : items,
      ),
    );
    report.imported.push({ def_id: template.id, key, values: rows.length });
  }
  if (replaced.length > 0)
    await runBatch(rc.db, [deleteVersionValuesStatement(rc.db, assetId, versionRow?.id ?? null, replaced), ...inserts]);
  return report;
}
