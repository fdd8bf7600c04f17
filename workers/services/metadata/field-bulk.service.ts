/**
 * Fields over many values or many entities at once: an asset's class and values applied in one batch, one field set on
 * many assets, and the entities found by field conditions.
 */
import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { returnedRows, runBatch, type Statement } from "../../db/repositories/asset.repository";
import {
  bulkInsertValuesStatement,
  countUntimedValues,
  deleteUntimedValuesStatement,
  deleteValueStatement,
  entitiesByCondition,
  findClassDefs,
  findFieldEntities,
  findValue,
  insertValueStatement,
  listValuesOfEntity,
  settleReservationValuesStatements,
  updateValueStatement,
  type ValueCondition,
} from "../../db/repositories/field.repository";
import { assets, type FieldTemplateRow } from "../../db/schema/index";
import type { LibraryScope } from "../../db/repositories/library-scope";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { accessibleIds, canAccess, visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { type FieldSetup, parseIsoDate, parseTimeOfDay } from "./field-types/setup";
import { checkUrl } from "./field-types/validate";
import {
  type FieldValueInfo,
  MAX_BULK_ENTITIES,
  fieldEventStatements,
  toValueInfo,
  requireFieldEntity,
  requireTemplate,
  checkedValue,
  resolveVersion,
  checkedPts,
  requireSingleFree,
  requireClassFieldsFilled,
  newValueRow,
} from "./field-value.service";

export interface ApplyInput {
  /** a new class for an asset (null clears it); absent: the class stays */
  asset_class?: string | null;
  /** new values (no field_id) and changes of existing ones (field_id) */
  values: { field_id?: string; def_id: string; data: unknown; pts?: [number, number] | null; asset_version_id?: string | number | null; asset_version?: number | null }[];
  /** values to delete */
  remove: string[];
}

/**
 * Sets an asset's class and its values in one batch (the viewer's 'Сохранить'): every value is checked as in
 * createValue/changeValue, then the required fields of the resulting class must all be filled (400 naming them).
 */
export async function applyFields(rc: RequestContext, actor: Actor, entityId: string, input: ApplyInput): Promise<FieldValueInfo[]> {
  const entity = await requireFieldEntity(rc, actor, entityId, "update");
  if (input.asset_class !== undefined && entity.type !== "asset") throw new AppError("BAD_REQUEST", ru.metadata.entityNotFound);
  if (input.asset_class && !(await findClassDefs(rc.db, input.asset_class))) throw new AppError("NOT_FOUND", ru.catalog.classNotFound);
  const now = Date.now();
  const statements: Statement[] = [];
  // Reservations the new values name: settled at the end of the batch (see settleReservationValuesStatements).
  const reservations: string[] = [];
  const touched = new Set<string>();
  const changed: { defId: string; value: unknown }[] = [];
  const newUntimed = new Map<string, number>();
  const removedDefs: string[] = [];
  for (const id of input.remove) {
    const current = await findValue(rc.db, entityId, id);
    if (!current) throw new AppError("NOT_FOUND", ru.metadata.valueNotFound);
    statements.push(deleteValueStatement(rc.db, id));
    removedDefs.push(current.defId);
  }
  for (const v of input.values) {
    const template = await requireTemplate(rc, v.def_id);
    touched.add(template.id);
    const checked = await checkedValue(rc, actor, template, v.data);
    changed.push({ defId: template.id, value: checked.data });
    if (v.field_id) {
      const current = await findValue(rc.db, entityId, v.field_id);
      if (!current || current.defId !== template.id) throw new AppError("NOT_FOUND", ru.metadata.valueNotFound);
      const pts = v.pts === undefined ? undefined : await checkedPts(rc, entity, current.versionId, v.pts);
      statements.push(
        updateValueStatement(rc.db, v.field_id, {
          data: checked.data,
          valueText: checked.valueText,
          valueNum: checked.valueNum,
          mtime: now,
          userId: actor.id,
          ...(pts === undefined ? {} : { ptsStart: pts?.[0] ?? null, ptsEnd: pts?.[1] ?? null }),
        }),
      );
      continue;
    }
    const version = await resolveVersion(rc, entity, v.asset_version_id, v.asset_version);
    if (version.reserved && version.id) reservations.push(version.id);
    const pts = await checkedPts(rc, entity, version.id, v.pts);
    if (pts === null) {
      const key = `${template.id}:${version.id}`;
      const before = (newUntimed.get(key) ?? 0) + (await countUntimedValues(rc.db, entityId, template.id, version.id));
      const removedHere = (await listValuesOfEntity(rc.db, entityId, { defs: [template.id] })).filter(
        (r) => input.remove.includes(r.id) && r.ptsStart === null && r.versionId === version.id,
      ).length;
      requireSingleFree(before - removedHere, template, pts);
      newUntimed.set(key, (newUntimed.get(key) ?? 0) + 1);
    }
    statements.push(
      insertValueStatement(rc.db, newValueRow({ entityId, entityType: entity.type, defId: template.id, version, pts, checked, userId: actor.id, now })),
    );
  }
  const classId = input.asset_class !== undefined ? input.asset_class : entity.class_id;
  await requireClassFieldsFilled(rc, entityId, classId, [...touched], input.remove);
  if (input.asset_class !== undefined) {
    statements.push(classChangeStatement(entityId, input.asset_class, now));
  }
  for (const c of changed) statements.push(...fieldEventStatements(rc, actor.id, [entity], c.defId, c.value));
  for (const defId of removedDefs) if (!touched.has(defId)) statements.push(...fieldEventStatements(rc, actor.id, [entity], defId, null));
  statements.push(...settleReservationValuesStatements(rc.db, reservations));
  await runBatch(rc.db, statements);
  return (await listValuesOfEntity(rc.db, entityId, {})).map(toValueInfo);
}

function classChangeStatement(assetId: string, classId: string | null, now: number) {
  return sql`update ${assets} set class_id = ${classId}, mtime = ${now} where id = ${assetId}`;
}

/**
 * Sets one value on many assets or groups in one batch (MamGroup's bulk 'set field'): the value is checked once,
 * every entity must exist and be updatable by the actor (one refusal refuses all), then the untimed values of the
 * template on those entities are replaced (`replace`, and always for a single-valued field) or the value is added.
 */
export async function bulkSetField(
  rc: RequestContext,
  actor: Actor,
  input: { def_id: string; entity_ids: string[]; data: unknown; mode: "replace" | "add" },
): Promise<{ changed: number }> {
  const ids = [...new Set(input.entity_ids)];
  if (ids.length > MAX_BULK_ENTITIES) throw new AppError("BAD_REQUEST", ru.metadata.tooManyEntities(MAX_BULK_ENTITIES));
  const template = await requireTemplate(rc, input.def_id);
  const checked = await checkedValue(rc, actor, template, input.data);
  const entities = await findFieldEntities(rc.db, ids);
  if (entities.length !== ids.length) throw new AppError("NOT_FOUND", ru.metadata.entityNotFound);
  // One statement per entity type decides update rights for the whole selection.
  const byType = (type: "asset" | "group") => entities.filter((e) => e.type === type).map((e) => e.id);
  const [assetsOk, groupsOk] = await Promise.all([
    accessibleIds(rc, actor, "asset", byType("asset"), "update"),
    accessibleIds(rc, actor, "group", byType("group"), "update"),
  ]);
  const refused = entities.filter((e) => !(e.type === "asset" ? assetsOk : groupsOk).has(e.id));
  if (refused.length > 0) {
    const readable = await Promise.all(refused.map((e) => canAccess(rc, actor, { id: e.id, type: e.type, ownerId: e.owner_id }, "read")));
    throw readable.every(Boolean) ? new AppError("FORBIDDEN", ru.errors.forbidden) : new AppError("NOT_FOUND", ru.metadata.entityNotFound);
  }
  const now = Date.now();
  const replace = input.mode === "replace" || !(template.setup as FieldSetup).multiple;
  const statements: Statement[] = [];
  if (replace) statements.push(deleteUntimedValuesStatement(rc.db, template.id, ids));
  statements.push(
    bulkInsertValuesStatement(rc.db, {
      entities: entities.map((e) => ({ id: e.id, type: e.type })),
      ids: entities.map(() => newId(now)),
      defId: template.id,
      data: checked.data,
      valueText: checked.valueText,
      valueNum: checked.valueNum,
      userId: actor.id,
      now,
    }),
  );
  statements.push(...fieldEventStatements(rc, actor.id, entities, template.id, checked.data));
  const results = await runBatch(rc.db, statements);
  return { changed: returnedRows(results[replace ? 1 : 0]) };
}

export type EntityCondition =
  | { op: "eq"; value: unknown }
  | { op: "range"; min?: unknown; max?: unknown }
  | { op: "prefix"; value: string };

/** Turns an API condition into an indexed one for the template's type; 400 when the condition does not fit it. */
function indexedCondition(template: FieldTemplateRow, cond: EntityCondition): ValueCondition {
  const bad = () => new AppError("BAD_REQUEST", ru.metadata.conditionType);
  const setup = template.setup as FieldSetup;
  const toNum = (v: unknown): number | undefined => {
    if (v === undefined || v === null) return undefined;
    if (template.fieldType === "number" && typeof v === "number" && Number.isFinite(v)) return v;
    if (template.fieldType === "date" && typeof v === "string") {
      const d = parseIsoDate(v, "datetime");
      if (d) return d.ms;
    }
    if (template.fieldType === "time" && typeof v === "string") {
      const t = parseTimeOfDay(v);
      if (t !== null) return t;
    }
    throw bad();
  };
  if (cond.op === "range") {
    if (!["number", "date", "time"].includes(template.fieldType)) throw bad();
    const min = toNum(cond.min);
    const max = toNum(cond.max);
    if (min === undefined && max === undefined) throw bad();
    return { op: "range", min, max };
  }
  if (cond.op === "prefix") {
    if (template.fieldType !== "text" || typeof cond.value !== "string" || cond.value.length === 0) throw bad();
    return { op: "prefix", value: cond.value.toLowerCase() };
  }
  const v = cond.value;
  switch (template.fieldType) {
    case "number":
      if (typeof v !== "number" || !Number.isFinite(v)) throw bad();
      return { op: "eq", column: "num", value: v };
    case "bool":
      if (typeof v !== "boolean") throw bad();
      return { op: "eq", column: "num", value: v ? 1 : 0 };
    case "date": {
      const d = typeof v === "string" ? parseIsoDate(v, setup.format === "datetime" ? "datetime" : "date") : null;
      if (!d) throw bad();
      return { op: "eq", column: "num", value: d.ms };
    }
    case "time": {
      const t = typeof v === "string" ? parseTimeOfDay(v) : null;
      if (t === null) throw bad();
      return { op: "eq", column: "num", value: t };
    }
    case "url": {
      const url = checkUrl(v);
      if (!url.ok) throw bad();
      return { op: "eq", column: "text", value: url.url };
    }
    case "text":
      if (typeof v !== "string") throw bad();
      return { op: "eq", column: "text", value: v.toLowerCase() };
    case "asset":
    case "group":
    case "user":
    case "external":
      if (typeof v !== "string") throw bad();
      return { op: "eq", column: "text", value: v };
    default:
      throw bad();
  }
}

/** An entities-by-field query, checked: its template known (404), its condition of the template's type (400). */
export interface FieldQuery {
  defId: string;
  condition: ValueCondition;
  entityType?: "asset" | "group";
}

/** The query of `POST /api/fields/entities-by-field`, checked against its template (global: read in the catalog). */
export async function fieldQuery(
  rc: RequestContext,
  input: { def_id: string; condition: EntityCondition; entity_type?: "asset" | "group" },
): Promise<FieldQuery> {
  const template = await requireTemplate(rc, input.def_id);
  return { defId: template.id, condition: indexedCondition(template, input.condition), entityType: input.entity_type };
}

/**
 * Assets and groups (those the actor may see) of the libraries `scope` names having a value that matches the query:
 * equality for every indexed type, a range for numbers, dates and times, a prefix for text; by id, one indexed query,
 * paged (across libraries, `pageWhereItLives` asks each where it lives). `timing.ms`, when given, gets the time D1
 * spent executing it.
 */
export async function entitiesByFieldPage(
  rc: RequestContext,
  actor: Actor,
  query: FieldQuery,
  page: { skip: number; take: number },
  scope: LibraryScope,
  timing?: { ms: number },
) {
  const vis = await visibility(rc, actor);
  const { rows, sqlMs } = await entitiesByCondition(rc.db, { ...query, vis, skip: page.skip, take: page.take, scope });
  if (timing) timing.ms += sqlMs;
  return rows.map((r) => ({
    entity_id: r.entity_id,
    entity_type: r.entity_type,
    field_id: r.field_id,
    field_data: JSON.parse(r.data) as unknown,
    pts: r.pts_start === null || r.pts_end === null ? null : ([r.pts_start, r.pts_end] as [number, number]),
  }));
}
