import { ru } from "../../../shared/i18n/ru";
import { returnedRows } from "../../db/repositories/asset.repository";
import {
  deleteTemplateStatements,
  templateValues,
  templateValuesDeleted,
  findTemplate,
  findTemplatesByIds,
  insertTemplateIfNameFree,
  listExists,
  listTemplateRows,
  classesListingTemplate,
  updateTemplateIfNameFree,
} from "../../db/repositories/field.repository";
import type { FieldTemplateRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { GlobalChange } from "../../db/repositories/library-crossing.repository";
import { countReached } from "../../db/reach-count";
import type { Actor, RequestContext } from "../access";
import { type FieldSetup, type FieldType, parseFieldSetup } from "./field-types/setup";

/** A field template as the API shows it (SPEC §3 "Field template"). */
export interface FieldTemplateInfo {
  field_def_id: string;
  field_type: FieldType;
  field_setup: FieldSetup;
  field_def_name: string;
  field_priority: number;
  field_def_extsys: string | null;
  field_def_extsys_key: string | null;
}

export interface TemplateInput {
  field_def_name: string;
  field_type: FieldType;
  field_setup?: Record<string, unknown>;
  field_priority?: number;
  field_def_extsys?: string | null;
  field_def_extsys_key?: string | null;
}

export function toTemplateInfo(row: FieldTemplateRow): FieldTemplateInfo {
  return {
    field_def_id: row.id,
    field_type: row.fieldType,
    field_setup: row.setup as FieldSetup,
    field_def_name: row.name,
    field_priority: row.priority,
    field_def_extsys: row.extsys,
    field_def_extsys_key: row.extsysKey,
  };
}

export function requireMetadataAdmin(actor: Actor): void {
  if (!actor.isAdmin) throw new AppError("FORBIDDEN", ru.catalog.adminOnly);
}

/** Parses the setup for the type (400 naming the setting) and checks that a list source exists (404). */
async function checkedSetup(rc: RequestContext, type: FieldType, setup: unknown): Promise<FieldSetup> {
  const parsed = parseFieldSetup(type, setup);
  if (!parsed.ok) throw new AppError("BAD_REQUEST", parsed.message);
  if (parsed.setup.list_id && !(await listExists(rc.db, parsed.setup.list_id))) throw new AppError("NOT_FOUND", ru.metadata.listNotFound);
  return parsed.setup;
}

/** Templates by priority then name (those whose name contains `name`, case-insensitively); any signed-in user. */
export async function listTemplates(
  rc: RequestContext,
  _actor: Actor,
  opts: { name?: string; skip: number; take: number },
): Promise<FieldTemplateInfo[]> {
  return (await listTemplateRows(rc.db, opts)).map(toTemplateInfo);
}

/** The known templates among `ids`, by priority; unknown ids are left out. */
export async function templatesByIds(rc: RequestContext, _actor: Actor, ids: readonly string[]): Promise<FieldTemplateInfo[]> {
  if (ids.length === 0) return [];
  return (await findTemplatesByIds(rc.db, [...new Set(ids)])).map(toTemplateInfo);
}

/** Adds a template (administrators); 400 bad setup, 404 missing list source, 409 name taken. */
export async function createTemplate(rc: RequestContext, actor: Actor, input: TemplateInput): Promise<FieldTemplateInfo> {
  requireMetadataAdmin(actor);
  const setup = await checkedSetup(rc, input.field_type, input.field_setup);
  const now = Date.now();
  const id = newId(now);
  const inserted = await insertTemplateIfNameFree(rc.db, {
    id,
    name: input.field_def_name,
    fieldType: input.field_type,
    setup,
    priority: input.field_priority ?? 0,
    extsys: input.field_def_extsys ?? null,
    extsysKey: input.field_def_extsys_key ?? null,
    ctime: now,
    mtime: now,
  });
  if (!inserted) throw new AppError("CONFLICT", ru.metadata.templateExists(input.field_def_name));
  return toTemplateInfo((await findTemplate(rc.db, id))!);
}

/**
 * Changes a template (administrators). The type may change only while the template has no values (409): values
 * of the old type would no longer be valid. A new setup is checked against the (new) type.
 */
export async function changeTemplate(
  rc: RequestContext,
  actor: Actor,
  id: string,
  change: Partial<TemplateInput>,
): Promise<FieldTemplateInfo> {
  requireMetadataAdmin(actor);
  const row = await findTemplate(rc.db, id);
  if (!row) throw new AppError("NOT_FOUND", ru.metadata.templateNotFound);
  const type = change.field_type ?? row.fieldType;
  if (type !== row.fieldType && (await countReached(rc, templateValues(id))) > 0)
    throw new AppError("CONFLICT", ru.metadata.templateTypeLocked);
  const setup =
    change.field_setup !== undefined || type !== row.fieldType ? await checkedSetup(rc, type, change.field_setup ?? {}) : undefined;
  const changed = await updateTemplateIfNameFree(rc.db, id, {
    name: change.field_def_name,
    fieldType: type !== row.fieldType ? type : undefined,
    setup: setup as Record<string, unknown> | undefined,
    priority: change.field_priority,
    extsys: change.field_def_extsys,
    extsysKey: change.field_def_extsys_key,
    mtime: Date.now(),
  });
  if (!changed) throw new AppError("CONFLICT", ru.metadata.templateExists(change.field_def_name ?? row.name));
  return toTemplateInfo((await findTemplate(rc.db, id))!);
}

/**
 * Deletes a template (administrators). While values exist or classes list it, refused with 409 naming the usage,
 * unless `force`: then its values go and classes drop it, in the same batch.
 */
export async function deleteTemplate(
  rc: RequestContext,
  actor: Actor,
  id: string,
  force: boolean,
  across: GlobalChange,
): Promise<{ field_def_id: string; values_removed: number }> {
  requireMetadataAdmin(actor);
  if (!(await findTemplate(rc.db, id))) throw new AppError("NOT_FOUND", ru.metadata.templateNotFound);
  if (!force) {
    // Its values counted in every library, each shard asked (decision 051, step 2.4); the classes are global.
    const [values, classes] = await Promise.all([countReached(rc, templateValues(id)), classesListingTemplate(rc.db, id)]);
    if (values > 0 || classes > 0) throw new AppError("CONFLICT", ru.metadata.templateInUse(values, classes));
  }
  const [removed, , deleted] = await across(templateValues(id), deleteTemplateStatements(rc.db, id, Date.now()), [
    templateValuesDeleted(id),
  ]);
  if ((deleted as D1Result).meta.changes === 0) throw new AppError("NOT_FOUND", ru.metadata.templateNotFound);
  return { field_def_id: id, values_removed: returnedRows(removed) };
}
