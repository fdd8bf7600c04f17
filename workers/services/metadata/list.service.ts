import { ru } from "../../../shared/i18n/ru";
import { runBatch } from "../../db/repositories/asset.repository";
import {
  deleteListStatements,
  deleteRecordStatement,
  findList,
  insertListIfNameFree,
  listListsWithCounts,
  recordsByPairs,
  recordsOfList,
  renameListIfNameFree,
  templatesUsingList,
  touchListStatement,
  upsertRecordStatement,
  recordValues,
  templateIdsOfList,
} from "../../db/repositories/list.repository";
import { countReached } from "../../db/reach-count";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { Actor, RequestContext } from "../access";
import { requireMetadataAdmin } from "./field-template.service";

/** SPEC §3 "List record". */
export interface ListRecord {
  list_id: string;
  rec_id: string;
  rec_data: Record<string, unknown>;
}

export interface ListInfo {
  list_id: string;
  name: string;
  count: number;
}

const toRecord = (r: {
  listId?: string;
  list_id?: string;
  recId?: string;
  rec_id?: string;
  recData?: unknown;
  rec_data?: unknown;
}): ListRecord => ({
  list_id: (r.listId ?? r.list_id)!,
  rec_id: (r.recId ?? r.rec_id)!,
  rec_data: (typeof r.rec_data === "string" ? JSON.parse(r.rec_data) : r.recData ?? r.rec_data) as Record<string, unknown>,
});

/** Every list with its number of records; any signed-in user (lists feed the forms). */
export async function listLists(rc: RequestContext, _actor: Actor): Promise<ListInfo[]> {
  return (await listListsWithCounts(rc.db)).map((l) => ({ list_id: l.id, name: l.name, count: l.count }));
}

/** The records of a list in their order; 404 for an unknown list. */
export async function recordsOf(rc: RequestContext, _actor: Actor, listId: string): Promise<ListRecord[]> {
  if (!(await findList(rc.db, listId))) throw new AppError("NOT_FOUND", ru.metadata.listNotFound);
  return (await recordsOfList(rc.db, listId)).map(toRecord);
}

/** The records among (list_id, rec_id) pairs; pairs that match nothing are left out. One query. */
export async function recordsByIds(
  rc: RequestContext,
  _actor: Actor,
  pairs: readonly { list_id: string; rec_id: string }[],
): Promise<ListRecord[]> {
  if (pairs.length === 0) return [];
  return (await recordsByPairs(rc.db, pairs)).map(toRecord);
}

/** Adds a list (administrators); 409 when the name is taken case-insensitively. */
export async function createList(rc: RequestContext, actor: Actor, name: string): Promise<{ list_id: string }> {
  requireMetadataAdmin(actor);
  const now = Date.now();
  const id = newId(now);
  if (!(await insertListIfNameFree(rc.db, { id, name, now }))) throw new AppError("CONFLICT", ru.metadata.listExists(name));
  return { list_id: id };
}

export async function renameList(rc: RequestContext, actor: Actor, id: string, name: string): Promise<ListInfo> {
  requireMetadataAdmin(actor);
  const changed = await renameListIfNameFree(rc.db, id, name, Date.now());
  const row = await findList(rc.db, id);
  if (!row) throw new AppError("NOT_FOUND", ru.metadata.listNotFound);
  if (!changed) throw new AppError("CONFLICT", ru.metadata.listExists(name));
  return { list_id: id, name: row.name, count: (await recordsOfList(rc.db, id)).length };
}

/** Deletes a list and its records (administrators); refused with 409 while a template takes values from it. */
export async function deleteList(rc: RequestContext, actor: Actor, id: string): Promise<{ list_id: string }> {
  requireMetadataAdmin(actor);
  if (!(await findList(rc.db, id))) throw new AppError("NOT_FOUND", ru.metadata.listNotFound);
  const templates = await templatesUsingList(rc.db, id);
  if (templates > 0) throw new AppError("CONFLICT", ru.metadata.listInUse(templates));
  await runBatch(rc.db, deleteListStatements(rc.db, id));
  return { list_id: id };
}

/** Adds or replaces a record (administrators). */
export async function putRecord(
  rc: RequestContext,
  actor: Actor,
  listId: string,
  recId: string,
  recData: Record<string, unknown>,
): Promise<ListRecord> {
  requireMetadataAdmin(actor);
  if (!(await findList(rc.db, listId))) throw new AppError("NOT_FOUND", ru.metadata.listNotFound);
  const now = Date.now();
  await runBatch(rc.db, [upsertRecordStatement(rc.db, { listId, recId, recData, now }), touchListStatement(rc.db, listId, now)]);
  return { list_id: listId, rec_id: recId, rec_data: recData };
}

/** Deletes a record (administrators); refused with 409 while field values hold its key. */
export async function deleteRecord(
  rc: RequestContext,
  actor: Actor,
  listId: string,
  recId: string,
): Promise<{ list_id: string; rec_id: string }> {
  requireMetadataAdmin(actor);
  if (!(await findList(rc.db, listId))) throw new AppError("NOT_FOUND", ru.metadata.listNotFound);
  // Its values counted in every library, each shard asked (decision 051, step 2.4).
  const used = await countReached(rc, recordValues(await templateIdsOfList(rc.db, listId), recId));
  if (used > 0) throw new AppError("CONFLICT", ru.metadata.recordInUse(used));
  const [deleted] = await runBatch(rc.db, [deleteRecordStatement(rc.db, listId, recId), touchListStatement(rc.db, listId, Date.now())]);
  if (deleted.meta.changes === 0) throw new AppError("NOT_FOUND", ru.metadata.recordNotFound);
  return { list_id: listId, rec_id: recId };
}
