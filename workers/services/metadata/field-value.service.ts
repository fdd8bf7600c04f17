import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { returnedRows, runBatch, type Statement } from "../../db/repositories/asset.repository";
import {
  bulkInsertValuesStatement,
  countUntimedValues,
  deleteUntimedValuesStatement,
  deleteValueStatement,
  entitiesByCondition,
  type FieldEntity,
  filledDefs,
  findClassDefs,
  findFieldEntities,
  findTemplate,
  findTemplatesByIds,
  findUsersByIds,
  findValue,
  findVersionById,
  findVersionByNumber,
  insertValueStatement,
  listValuesOfEntity,
  mediaDuration,
  type NewValueRow,
  updateValueStatement,
  type ValueCondition,
  type ValueFilter,
} from "../../db/repositories/field.repository";
import { recordsByPairs } from "../../db/repositories/list.repository";
import { assets, type FieldTemplateRow, type FieldValueRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { accessibleIds, canAccess, requireEntityAccess, visibility, type AccessLevel } from "../access";
import type { Actor, RequestContext } from "../access";
import { eventStatement, type GlobalEventInput } from "../events";
import { type FieldSetup, parseIsoDate, parseTimeOfDay } from "./field-types/setup";
import { checkPts, checkUrl, type FieldReference, validateFieldValue, type ValidValue } from "./field-types/validate";

/** SPEC §3 "Entity field value", as the API shows it. */
export interface FieldValueInfo {
  field_id: string;
  entity_id: string;
  entity_type: "asset" | "group";
  def_id: string;
  asset_version: number | null;
  asset_version_id: string | null;
  pts: [number, number] | null;
  field_data: unknown;
  ctime: string;
  mtime: string;
}

export interface CreateValueInput {
  def_id: string;
  /** the version by id; null or absent (with no `asset_version`) for the entity as a whole */
  asset_version_id?: string | null;
  /** the version by number (SPEC §3 Version is a number); both forms must name the same version */
  asset_version?: number | null;
  data: unknown;
  pts?: [number, number] | null;
}

/** Most entities a bulk set may touch in one batch. */
export const MAX_BULK_ENTITIES = 1000;

/** Events per insert statement: each takes 8 bound parameters and D1 allows 100 per statement. */
const EVENTS_PER_STATEMENT = 12;

/**
 * The `field.changed` events of a change (one per entity; `value` null when a value was removed), as statements for
 * the batch that makes the change, so automations see exactly the changes that committed.
 */
export function fieldEventStatements(
  rc: RequestContext,
  actorId: string | null,
  entities: readonly Pick<FieldEntity, "id" | "type" | "owner_id">[],
  defId: string,
  value: unknown,
): Statement[] {
  const events: GlobalEventInput[] = entities.map((e) => ({
    type: "field.changed",
    entityType: e.type,
    entityId: e.id,
    ownerId: e.owner_id,
    actorId,
    data: { def_id: defId, value: value ?? null },
  }));
  const statements: Statement[] = [];
  for (let i = 0; i < events.length; i += EVENTS_PER_STATEMENT)
    statements.push(eventStatement(rc, events.slice(i, i + EVENTS_PER_STATEMENT)));
  return statements;
}

export function toValueInfo(row: FieldValueRow): FieldValueInfo {
  return {
    field_id: row.id,
    entity_id: row.entityId,
    entity_type: row.entityType,
    def_id: row.defId,
    asset_version: row.version,
    asset_version_id: row.versionId,
    pts: row.ptsStart === null || row.ptsEnd === null ? null : [row.ptsStart, row.ptsEnd],
    field_data: row.data,
    ctime: new Date(row.ctime).toISOString(),
    mtime: new Date(row.mtime).toISOString(),
  };
}

/** A live asset or group the actor holds `level` on: 404 when missing or unreadable, 403 when readable only. */
export async function requireFieldEntity(rc: RequestContext, actor: Actor, id: string, level: AccessLevel): Promise<FieldEntity> {
  const [entity] = await findFieldEntities(rc.db, [id]);
  if (!entity) throw new AppError("NOT_FOUND", ru.metadata.entityNotFound);
  await requireEntityAccess(rc, actor, { id, type: entity.type, ownerId: entity.owner_id }, level, ru.metadata.entityNotFound);
  return entity;
}

async function requireTemplate(rc: RequestContext, defId: string): Promise<FieldTemplateRow> {
  const template = await findTemplate(rc.db, defId);
  if (!template) throw new AppError("NOT_FOUND", ru.metadata.templateNotFound);
  return template;
}

/** Validates a value against its template (400 naming the field) and checks its references (`actor` null: import). */
export async function checkedValue(
  rc: RequestContext,
  actor: Actor | null,
  template: FieldTemplateRow,
  data: unknown,
): Promise<ValidValue> {
  const checked = validateFieldValue(template.fieldType, template.setup as FieldSetup, data);
  if (!checked.ok) throw new AppError("BAD_REQUEST", ru.metadata.invalidValue(template.name, checked.message));
  await checkReferences(rc, actor, template, checked.refs);
  return checked;
}

/**
 * References must exist and, for a caller, be readable: an asset, group or user the caller cannot see is reported
 * exactly like a missing one, so values cannot be used to probe for others' entities.
 */
async function checkReferences(rc: RequestContext, actor: Actor | null, template: FieldTemplateRow, refs: readonly FieldReference[]) {
  for (const ref of refs) {
    if (ref.kind === "list") {
      const found = await recordsByPairs(rc.db, [{ list_id: ref.listId, rec_id: ref.recId }]);
      if (found.length === 0) throw new AppError("BAD_REQUEST", ru.metadata.listRecordMissing(template.name, ref.recId));
      continue;
    }
    const missing = () => new AppError("BAD_REQUEST", ru.metadata.refNotFound(template.name));
    if (ref.kind === "user") {
      const [user] = await findUsersByIds(rc.db, [ref.id]);
      if (!user) throw missing();
      if (actor && !(await canAccess(rc, actor, { id: ref.id, type: "user", ownerId: ref.id }, "read"))) throw missing();
      continue;
    }
    const [entity] = await findFieldEntities(rc.db, [ref.id]);
    if (!entity || entity.type !== ref.kind) throw missing();
    if (actor && !(await canAccess(rc, actor, { id: ref.id, type: entity.type, ownerId: entity.owner_id }, "read"))) throw missing();
  }
}

/** The version a value belongs to: null for the entity as a whole; only assets have versions (404 otherwise). */
async function resolveVersion(rc: RequestContext, entity: FieldEntity, versionId: string | null | undefined, versionNumber?: number | null) {
  if (!versionId && versionNumber == null) return { id: null, version: null };
  const byId = versionId && entity.type === "asset" ? await findVersionById(rc.db, entity.id, versionId) : undefined;
  const row =
    versionId ? byId : entity.type === "asset" && versionNumber != null ? await findVersionByNumber(rc.db, entity.id, versionNumber) : undefined;
  if (!row) throw new AppError("NOT_FOUND", ru.metadata.versionNotFound);
  if (versionNumber != null && row.version !== versionNumber) throw new AppError("BAD_REQUEST", ru.apiContract.versionMismatch);
  return { id: row.id, version: row.version };
}

async function checkedPts(
  rc: RequestContext,
  entity: FieldEntity,
  versionId: string | null,
  pts: unknown,
): Promise<[number, number] | null> {
  const shapeOnly = checkPts(pts, null);
  if (shapeOnly) throw new AppError("BAD_REQUEST", ru.metadata.invalidPts(shapeOnly));
  if (pts === null || pts === undefined) return null;
  if (entity.type === "asset") {
    const duration = await mediaDuration(rc.db, entity.id, versionId);
    const bounded = checkPts(pts, duration);
    if (bounded) throw new AppError("BAD_REQUEST", ru.metadata.invalidPts(bounded));
  }
  return pts as [number, number];
}

function requireSingleFree(count: number, template: FieldTemplateRow, pts: unknown) {
  if (pts == null && !(template.setup as FieldSetup).multiple && count > 0)
    throw new AppError("CONFLICT", ru.metadata.notMultiple(template.name));
}

/**
 * An entity's values, filtered by an instant (`pts`), a time range (`range`), a version number (values of that
 * version plus those of the asset as a whole) and templates (`defs`). Needs read on the entity.
 */
export async function valuesForEntity(rc: RequestContext, actor: Actor, entityId: string, filter: ValueFilter): Promise<FieldValueInfo[]> {
  // The values are read alongside the access check (one round trip less) and only returned once it has passed.
  const [, rows] = await Promise.all([requireFieldEntity(rc, actor, entityId, "read"), listValuesOfEntity(rc.db, entityId, filter)]);
  return rows.map(toValueInfo);
}

/**
 * Adds a value (needs update on the entity). Checks: the template exists (404), the version belongs to the asset
 * (404), the value fits the type and setup (400), references exist and are readable (400), `pts` is null or within
 * [0, duration] with start ≤ end (400), and a single-valued field has no other untimed value yet (409).
 */
export async function createValue(rc: RequestContext, actor: Actor, entityId: string, input: CreateValueInput): Promise<FieldValueInfo> {
  const entity = await requireFieldEntity(rc, actor, entityId, "update");
  const template = await requireTemplate(rc, input.def_id);
  const version = await resolveVersion(rc, entity, input.asset_version_id, input.asset_version);
  const checked = await checkedValue(rc, actor, template, input.data);
  const pts = await checkedPts(rc, entity, version.id, input.pts);
  if (pts === null) requireSingleFree(await countUntimedValues(rc.db, entityId, template.id, version.id), template, pts);
  const now = Date.now();
  const row: NewValueRow = {
    id: newId(now),
    entityId,
    entityType: entity.type,
    defId: template.id,
    versionId: version.id,
    version: version.version,
    ptsStart: pts?.[0] ?? null,
    ptsEnd: pts?.[1] ?? null,
    data: checked.data,
    valueText: checked.valueText,
    valueNum: checked.valueNum,
    userId: actor.id,
    ctime: now,
    mtime: now,
  };
  await runBatch(rc.db, [insertValueStatement(rc.db, row), ...fieldEventStatements(rc, actor.id, [entity], template.id, checked.data)]);
  return toValueInfo({ ...row, data: checked.data } as FieldValueRow);
}

/** Changes a value's data and/or time range, with the checks of `createValue`. */
export async function changeValue(
  rc: RequestContext,
  actor: Actor,
  entityId: string,
  fieldId: string,
  change: { data?: unknown; pts?: [number, number] | null },
): Promise<FieldValueInfo> {
  const entity = await requireFieldEntity(rc, actor, entityId, "update");
  const current = await findValue(rc.db, entityId, fieldId);
  if (!current) throw new AppError("NOT_FOUND", ru.metadata.valueNotFound);
  const template = await requireTemplate(rc, current.defId);
  const set: Partial<NewValueRow> = { mtime: Date.now(), userId: actor.id };
  if (change.data !== undefined) {
    const checked = await checkedValue(rc, actor, template, change.data);
    Object.assign(set, { data: checked.data, valueText: checked.valueText, valueNum: checked.valueNum });
  }
  if (change.pts !== undefined) {
    const pts = await checkedPts(rc, entity, current.versionId, change.pts);
    if (pts === null && current.ptsStart !== null) {
      requireSingleFree(await countUntimedValues(rc.db, entityId, template.id, current.versionId, fieldId), template, pts);
    }
    Object.assign(set, { ptsStart: pts?.[0] ?? null, ptsEnd: pts?.[1] ?? null });
  }
  await runBatch(rc.db, [
    updateValueStatement(rc.db, fieldId, set),
    ...fieldEventStatements(rc, actor.id, [entity], template.id, set.data !== undefined ? set.data : current.data),
  ]);
  return toValueInfo((await findValue(rc.db, entityId, fieldId))!);
}

/** Required templates of an asset class (those of `def_fields` whose setup says `required`). */
async function requiredTemplatesOfClass(rc: RequestContext, classId: string | null): Promise<FieldTemplateRow[]> {
  if (!classId) return [];
  const cls = await findClassDefs(rc.db, classId);
  if (!cls || cls.defFields.length === 0) return [];
  return (await findTemplatesByIds(rc.db, cls.defFields)).filter((t) => (t.setup as FieldSetup).required);
}

/**
 * Deletes a value (needs update on the entity). The last value of a template the asset's class requires cannot be
 * deleted (409): a required field stays filled once the class is set.
 */
export async function deleteValue(rc: RequestContext, actor: Actor, entityId: string, fieldId: string): Promise<{ field_id: string }> {
  const entity = await requireFieldEntity(rc, actor, entityId, "update");
  const current = await findValue(rc.db, entityId, fieldId);
  if (!current) throw new AppError("NOT_FOUND", ru.metadata.valueNotFound);
  const required = (await requiredTemplatesOfClass(rc, entity.class_id)).find((t) => t.id === current.defId);
  if (required && !(await filledDefs(rc.db, entityId, [required.id], [fieldId])).has(required.id)) {
    throw new AppError("CONFLICT", ru.metadata.requiredValue(required.name));
  }
  await runBatch(rc.db, [deleteValueStatement(rc.db, fieldId), ...fieldEventStatements(rc, actor.id, [entity], current.defId, null)]);
  return { field_id: fieldId };
}

/**
 * Throws 400 naming the missing fields unless the entity has a value for every required template of the class.
 * Called when an asset's class is changed through PATCH /api/asset/{id}; /api/fields/apply sets class and values
 * together so the UI can satisfy it in one step.
 */
export async function requireClassFieldsFilled(
  rc: RequestContext,
  entityId: string,
  classId: string | null,
  pending: readonly string[] = [],
  removed: readonly string[] = [],
) {
  const required = await requiredTemplatesOfClass(rc, classId);
  if (required.length === 0) return;
  const filled = await filledDefs(
    rc.db,
    entityId,
    required.map((t) => t.id),
    removed,
  );
  const missing = required.filter((t) => !filled.has(t.id) && !pending.includes(t.id));
  if (missing.length > 0) throw new AppError("BAD_REQUEST", ru.metadata.requiredMissing(missing.map((t) => `«${t.name}»`).join(", ")));
}

export interface ApplyInput {
  /** a new class for an asset (null clears it); absent: the class stays */
  asset_class?: string | null;
  /** new values (no field_id) and changes of existing ones (field_id) */
  values: { field_id?: string; def_id: string; data: unknown; pts?: [number, number] | null; asset_version_id?: string | null }[];
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
    const version = await resolveVersion(rc, entity, v.asset_version_id);
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
      insertValueStatement(rc.db, {
        id: newId(now),
        entityId,
        entityType: entity.type,
        defId: template.id,
        versionId: version.id,
        version: version.version,
        ptsStart: pts?.[0] ?? null,
        ptsEnd: pts?.[1] ?? null,
        data: checked.data,
        valueText: checked.valueText,
        valueNum: checked.valueNum,
        userId: actor.id,
        ctime: now,
        mtime: now,
      }),
    );
  }
  const classId = input.asset_class !== undefined ? input.asset_class : entity.class_id;
  await requireClassFieldsFilled(rc, entityId, classId, [...touched], input.remove);
  if (input.asset_class !== undefined) {
    statements.push(classChangeStatement(entityId, input.asset_class, now));
  }
  for (const c of changed) statements.push(...fieldEventStatements(rc, actor.id, [entity], c.defId, c.value));
  for (const defId of removedDefs) if (!touched.has(defId)) statements.push(...fieldEventStatements(rc, actor.id, [entity], defId, null));
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

/**
 * Assets and groups (those the actor may see) having a value of `def_id` that matches the condition: equality for
 * every indexed type, a range for numbers, dates and times, a prefix for text. One indexed query, paged; `sqlMs` is
 * the time D1 spent executing it.
 */
export async function entitiesByField(
  rc: RequestContext,
  actor: Actor,
  input: { def_id: string; condition: EntityCondition; entity_type?: "asset" | "group"; skip: number; take: number },
) {
  const [template, vis] = await Promise.all([requireTemplate(rc, input.def_id), visibility(rc, actor)]);
  const { rows, sqlMs } = await entitiesByCondition(rc.db, {
    defId: template.id,
    condition: indexedCondition(template, input.condition),
    entityType: input.entity_type,
    vis,
    skip: input.skip,
    take: input.take,
  });
  const entities = rows.map((r) => ({
    entity_id: r.entity_id,
    entity_type: r.entity_type,
    field_id: r.field_id,
    field_data: JSON.parse(r.data) as unknown,
    pts: r.pts_start === null || r.pts_end === null ? null : ([r.pts_start, r.pts_end] as [number, number]),
  }));
  return { entities, sqlMs };
}
