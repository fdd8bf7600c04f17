/**
 * Who has a collection (decision record 034): users or groups of users at a role. Only the owner or an
 * administrator changes it; sharing records a `collection.shared` event in the same batch (notifications read it).
 */
import { ru } from "../../../shared/i18n/ru";
import { findEntity, findSubject } from "../../db/repositories/access.repository";
import * as repo from "../../db/repositories/collection.repository";
import { runBatch } from "../../db/repositories/group.repository";
import { AppError } from "../../lib/errors";
import { toIso } from "../../lib/time";
import { canAccess } from "../access";
import type { Actor, RequestContext } from "../access";
import { eventStatement } from "../events";
import { requireCollection } from "./collection-role";

/** At most this many members of one collection. */
export const MAX_COLLECTION_MEMBERS = 500;

export interface MemberInput {
  subj: string;
  subj_type: "user" | "group";
  role: "view" | "comment" | "edit";
}

/** `GET /api/collections/{id}/members`: anyone holding the collection sees who else does. */
export async function listMembers(rc: RequestContext, actor: Actor, id: string) {
  await requireCollection(rc, actor, id, "view");
  const rows = await repo.membersOf(rc.db, id, MAX_COLLECTION_MEMBERS);
  return {
    items: rows.map((r) => ({ subj: r.subj_id, subj_type: r.subj_type, name: r.name, role: r.role, ctime: toIso(r.ctime) })),
  };
}

/**
 * `PUT /api/collections/{id}/members`: shares with a user (any existing one) or a group of users (one the caller may
 * read, so ids of other people's groups cannot be probed), or changes their role.
 */
export async function putMember(rc: RequestContext, actor: Actor, id: string, input: MemberInput) {
  const { row } = await requireCollection(rc, actor, id, "manage");
  const subject = await findSubject(rc.db, input.subj, input.subj_type);
  const group = subject?.type === "group" ? await findEntity(rc.db, subject.id) : undefined;
  const visible =
    subject && (subject.type === "user" || (group && (await canAccess(rc, actor, { id: group.id, type: "group", ownerId: group.owner_id }, "read"))));
  if (!subject || !visible) throw new AppError("NOT_FOUND", ru.collections.subjectNotFound);
  if (subject.type === "user" && subject.id === row.owner_id) throw new AppError("BAD_REQUEST", ru.collections.ownerIsMember);
  const count = await repo.memberCount(rc.db, id);
  if ((count?.n ?? 0) >= MAX_COLLECTION_MEMBERS) throw new AppError("BAD_REQUEST", ru.collections.tooManyMembers(MAX_COLLECTION_MEMBERS));
  const now = Date.now();
  await runBatch(rc.db, [
    repo.upsertMemberSql({ id, subjId: subject.id, subjType: subject.type, role: input.role, addedBy: actor.id, now }),
    repo.touchCollectionSql(id, now),
    eventStatement(rc, {
      type: "collection.shared",
      entityType: "collection",
      entityId: id,
      ownerId: row.owner_id,
      actorId: actor.id,
      data: { collection_id: id, name: row.name, subj: subject.id, subj_type: subject.type, role: input.role },
    }),
  ]);
  return { subj: subject.id, subj_type: subject.type, name: subject.name, role: input.role, ctime: toIso(now) };
}

/** `DELETE /api/collections/{id}/members/{subj}`: the owner or an administrator; a user may also leave on their own. */
export async function deleteMember(rc: RequestContext, actor: Actor, id: string, subj: string) {
  await requireCollection(rc, actor, id, subj === actor.id ? "view" : "manage");
  await runBatch(rc.db, [repo.deleteMemberSql(id, subj), repo.touchCollectionSql(id, Date.now())]);
  return { collection_id: id, subj };
}
