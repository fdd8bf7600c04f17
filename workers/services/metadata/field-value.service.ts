import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { runBatch, type Statement } from "../../db/repositories/asset.repository";
import {
  countUntimedValues,
  deleteValueStatement,
  type FieldEntity,
  filledDefs,
  findClassDefs,
  findFieldEntities,
  findTemplate,
  findTemplatesByIds,
  findUsersByIds,
  findValue,
  findReservation,
  findVersionById,
  settleReservationValuesStatements,
  findVersionByNumber,
  insertValueStatement,
  listValuesOfEntity,
  mediaDuration,
  type NewValueRow,
  updateValueStatement,
  type ValueFilter,
} from "../../db/repositories/field.repository";
import { recordsByPairs } from "../../db/repositories/list.repository";
import { type FieldTemplateRow, type FieldValueRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { canAccess, fileAuditStatement, requireEntityAccess, type AccessLevel } from "../access";
import type { Actor, RequestContext } from "../access";
import { eventStatement, type GlobalEventInput } from "../events";
import { type FieldSetup } from "./field-types/setup";
import { checkPts, type FieldReference, validateFieldValue, type ValidValue } from "./field-types/validate";

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
  /** the version by number (SPEC §5) or by id; null or absent (with no `asset_version`) for the entity as a whole */
  asset_version_id?: string | number | null;
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
  const shown = value === undefined || value === null ? null : typeof value === "string" ? value : JSON.stringify(value);
  statements.push(
    fileAuditStatement(rc, {
      actorId,
      verb: "fields",
      targets: entities.flatMap((e) => (e.type === "asset" || e.type === "group" ? [{ type: e.type, id: e.id }] : [])),
      // the field's name as it is now, and a short form of the value (null: removed)
      details: { value: shown === null ? null : shown.slice(0, 200) },
      readDetails: { field: sql`select name from field_templates where id = ${defId}` },
    }),
  );
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
/** The row of a new value: `checked` data of template `defId` on an entity's `version`, optionally timed by `pts`. */
export function newValueRow(v: {
  entityId: string;
  entityType: NewValueRow["entityType"];
  defId: string;
  version: { id: string | null; version: number | null };
  pts: readonly [number, number] | null | undefined;
  checked: Pick<ValidValue, "data" | "valueText" | "valueNum">;
  userId: string;
  now: number;
}): NewValueRow {
  return {
    id: newId(v.now),
    entityId: v.entityId,
    entityType: v.entityType,
    defId: v.defId,
    versionId: v.version.id,
    version: v.version.version,
    ptsStart: v.pts?.[0] ?? null,
    ptsEnd: v.pts?.[1] ?? null,
    data: v.checked.data,
    valueText: v.checked.valueText,
    valueNum: v.checked.valueNum,
    userId: v.userId,
    ctime: v.now,
    mtime: v.now,
  };
}

export async function requireFieldEntity(rc: RequestContext, actor: Actor, id: string, level: AccessLevel): Promise<FieldEntity> {
  const [entity] = await findFieldEntities(rc.db, [id]);
  if (!entity) throw new AppError("NOT_FOUND", ru.metadata.entityNotFound);
  await requireEntityAccess(rc, actor, { id, type: entity.type, ownerId: entity.owner_id }, level, ru.metadata.entityNotFound);
  return entity;
}

export async function requireTemplate(rc: RequestContext, defId: string): Promise<FieldTemplateRow> {
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

/**
 * The version a value belongs to: null for the entity as a whole; only assets have versions (404 otherwise).
 * `ref` is SPEC's `asset_version_id`: a version NUMBER or our version id; `versionNumber` (`asset_version`), when sent
 * too, must name the same version (400).
 */
export async function resolveVersion(
  rc: RequestContext,
  entity: FieldEntity,
  ref: string | number | null | undefined,
  versionNumber?: number | null,
) {
  if (typeof ref === "number") {
    if (versionNumber != null && versionNumber !== ref) throw new AppError("BAD_REQUEST", ru.apiContract.versionMismatch);
    return resolveVersion(rc, entity, null, ref);
  }
  const versionId = ref;
  if (!versionId && versionNumber == null) return { id: null, version: null, reserved: false };
  const byId = versionId && entity.type === "asset" ? await findVersionById(rc.db, entity.id, versionId) : undefined;
  const committed = versionId
    ? byId
    : entity.type === "asset" && versionNumber != null
    ? await findVersionByNumber(rc.db, entity.id, versionNumber)
    : undefined;
  // A version create-version reserved is a version too, before its bytes commit: its values are keyed by the
  // reserving upload (its id is the version's `variant_id` in the listing) and move to the version row in the commit's
  // own batch, or go with the reservation when it is cancelled.
  const row =
    committed ??
    (entity.type === "asset" && (versionId || versionNumber != null)
      ? await findReservation(rc.db, entity.id, versionId ? { id: versionId } : { version: versionNumber ?? 0 })
      : undefined);
  if (!row) throw new AppError("NOT_FOUND", ru.metadata.versionNotFound);
  if (versionNumber != null && row.version !== versionNumber) throw new AppError("BAD_REQUEST", ru.apiContract.versionMismatch);
  return { id: row.id, version: row.version, reserved: !committed };
}

export async function checkedPts(
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

export function requireSingleFree(count: number, template: FieldTemplateRow, pts: unknown) {
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
  const row = newValueRow({ entityId, entityType: entity.type, defId: template.id, version, pts, checked, userId: actor.id, now });
  await runBatch(rc.db, [
    insertValueStatement(rc.db, row),
    ...settleReservationValuesStatements(rc.db, version.reserved && version.id ? [version.id] : []),
    ...fieldEventStatements(rc, actor.id, [entity], template.id, checked.data),
  ]);
  if (version.reserved) {
    // The reservation may have committed or gone while this request ran: answer the value as it now stands.
    const stored = await findValue(rc.db, entityId, row.id);
    if (!stored) throw new AppError("NOT_FOUND", ru.metadata.versionNotFound);
    return toValueInfo(stored);
  }
  return toValueInfo({ ...row, data: checked.data } as FieldValueRow);
}

/** Changes a value's data and/or time range, with the checks of `createValue`. */
export async function changeValue(
  rc: RequestContext,
  actor: Actor,
  entityId: string,
  fieldId: string,
  change: { data?: unknown; pts?: [number, number] | null; asset_version_id?: string | number | null; asset_version?: number | null },
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
  // Moving the value to another version (SPEC's number or our id): its time range and the single-value rule are
  // checked against that version.
  const moving = change.asset_version_id !== undefined || change.asset_version !== undefined;
  const version = moving ? await resolveVersion(rc, entity, change.asset_version_id, change.asset_version) : null;
  const versionId = version ? version.id : current.versionId;
  if (version) Object.assign(set, { versionId: version.id, version: version.version });
  const ptsAfter = change.pts !== undefined ? change.pts : current.ptsStart === null ? null : ([current.ptsStart, current.ptsEnd] as [number, number]);
  if (change.pts !== undefined || (version && version.id !== current.versionId)) {
    const pts = await checkedPts(rc, entity, versionId, ptsAfter);
    if (pts === null && (current.ptsStart !== null || versionId !== current.versionId)) {
      requireSingleFree(await countUntimedValues(rc.db, entityId, template.id, versionId, fieldId), template, pts);
    }
    Object.assign(set, { ptsStart: pts?.[0] ?? null, ptsEnd: pts?.[1] ?? null });
  }
  await runBatch(rc.db, [
    updateValueStatement(rc.db, fieldId, set),
    ...settleReservationValuesStatements(rc.db, version?.reserved && version.id ? [version.id] : []),
    ...fieldEventStatements(rc, actor.id, [entity], template.id, set.data !== undefined ? set.data : current.data),
  ]);
  // Gone only when the value was moved to a reservation cancelled while this request ran.
  const stored = await findValue(rc.db, entityId, fieldId);
  if (!stored) throw new AppError("NOT_FOUND", ru.metadata.versionNotFound);
  return toValueInfo(stored);
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
