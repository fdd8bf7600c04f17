import { ru } from "../../../shared/i18n/ru";
import {
  classFiles,
  classFolders,
  deleteAssetClassIfUnused,
  findAssetClass,
  findAssetClassesByIds,
  insertAssetClassIfNameFree,
  listAssetClasses,
  updateAssetClassIfNameFree,
} from "../../db/repositories/asset-class.repository";
import { findTemplatesByIds } from "../../db/repositories/field.repository";
import { countReached } from "../../db/reach-count";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { Actor, RequestContext } from "../access";

/** An asset class (SPEC §3): a name and the field templates its assets show. */
export interface AssetClassInfo {
  id: string;
  name: string;
  def_fields: string[];
}

function toInfo(row: { id: string; name: string; defFields: string[] }): AssetClassInfo {
  return { id: row.id, name: row.name, def_fields: row.defFields };
}

function requireAdmin(actor: Actor): void {
  if (!actor.isAdmin) throw new AppError("FORBIDDEN", ru.catalog.adminOnly);
}

/** `def_fields` may only name existing field templates (404 otherwise). */
async function requireTemplates(rc: RequestContext, ids: readonly string[] | undefined): Promise<void> {
  if (!ids || ids.length === 0) return;
  const found = await findTemplatesByIds(rc.db, ids);
  if (found.length !== new Set(ids).size) throw new AppError("NOT_FOUND", ru.metadata.templatesNotFound);
}

/** Classes by name, one page. Any signed-in user may list them (to pick one for an asset or group). */
export async function listClasses(rc: RequestContext, _actor: Actor, page: { skip: number; take: number }): Promise<AssetClassInfo[]> {
  return (await listAssetClasses(rc.db, page)).map(toInfo);
}

/** The known classes among `ids` (unknown ids are left out), in one query. */
export async function classesByIds(rc: RequestContext, _actor: Actor, ids: readonly string[]): Promise<AssetClassInfo[]> {
  if (ids.length === 0) return [];
  return (await findAssetClassesByIds(rc.db, [...new Set(ids)])).map(toInfo);
}

/** Adds a class (administrators only); 409 when the name is taken case-insensitively. */
export async function createClass(
  rc: RequestContext,
  actor: Actor,
  input: { name: string; def_fields?: string[] },
): Promise<AssetClassInfo> {
  requireAdmin(actor);
  await requireTemplates(rc, input.def_fields);
  const now = Date.now();
  const id = newId(now);
  const inserted = await insertAssetClassIfNameFree(rc.db, { id, name: input.name, defFields: input.def_fields ?? [], ctime: now });
  if (!inserted) throw new AppError("CONFLICT", ru.catalog.classExists(input.name));
  // The whole class as SPEC §3 names it (id, name, def_fields), as change answers it.
  return toInfo({ id, name: input.name, defFields: input.def_fields ?? [] });
}

/** Renames a class and/or replaces its fields (administrators only); 404 unknown, 409 name taken. */
export async function changeClass(
  rc: RequestContext,
  actor: Actor,
  id: string,
  change: { name?: string; def_fields?: string[] },
): Promise<AssetClassInfo> {
  requireAdmin(actor);
  await requireTemplates(rc, change.def_fields);
  const changed = await updateAssetClassIfNameFree(rc.db, id, { name: change.name, defFields: change.def_fields, mtime: Date.now() });
  const row = await findAssetClass(rc.db, id);
  if (!row) throw new AppError("NOT_FOUND", ru.catalog.classNotFound);
  if (!changed) throw new AppError("CONFLICT", ru.catalog.classExists(change.name ?? row.name));
  return toInfo(row);
}

/**
 * Deletes a class (administrators only). Refused with 409, naming how many assets and groups use it, while any
 * does — in any library, its shard asked (decision 051, step 2.4); 404 when unknown.
 */
export async function deleteClass(rc: RequestContext, actor: Actor, id: string): Promise<{ id: string }> {
  requireAdmin(actor);
  if (!(await findAssetClass(rc.db, id))) throw new AppError("NOT_FOUND", ru.catalog.classNotFound);
  const uses = async () => Promise.all([countReached(rc, classFiles(id)), countReached(rc, classFolders(id))]);
  let [files, folders] = await uses();
  if (files + folders === 0) {
    // Deleted only if still unused in the catalog at that moment (one statement); a use added meanwhile is named.
    if (await deleteAssetClassIfUnused(rc.db, id)) return { id };
    if (!(await findAssetClass(rc.db, id))) throw new AppError("NOT_FOUND", ru.catalog.classNotFound);
    [files, folders] = await uses();
  }
  throw new AppError("CONFLICT", ru.catalog.classInUse(files, folders));
}
