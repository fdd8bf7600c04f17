import { ru } from "../../../shared/i18n/ru";
import { findAsset } from "../../db/repositories/asset.repository";
import { followersOf } from "../../db/repositories/comment.repository";
import { runBatch } from "../../db/repositories/group.repository";
import {
  advanceCursorSql,
  eventsAfterCursor,
  insertNotificationsSql,
  recipientsById,
  reviewRequesters,
  usersOfUserGroup,
  type InboxEventRow,
  type NewNotification,
} from "../../db/repositories/notification.repository";
import { newId } from "../../lib/ids";
import { canAccess, type Actor, type RequestContext } from "../access";
import { pokeHubs } from "./notification-hub";

/**
 * The notification dispatcher (decision 035): reads `global_events` after its own cursor and turns the events that
 * notify into inbox rows. Recipients are decided now, at delivery: a recipient who may not read the file at this
 * moment gets nothing about it. Each event's notifications and the cursor step past it are one batch, and the
 * (event, recipient) key makes a repeated or overlapping dispatch change nothing, so it is safe to die anywhere.
 */

/** Events read per round; a dispatch goes on for `rounds` while the log has more. */
const PAGE = 50;
/** At most this many recipients per event (followers of a very popular file): the budget of one event. */
const MAX_RECIPIENTS = 500;

export type NotificationKind = "mention" | "reply" | "comment" | "review_requested" | "review_decided" | "collection_shared";

/** A stronger reason wins when one person has several (named and following: a mention). */
const RANK: Record<NotificationKind, number> = { mention: 6, reply: 5, review_requested: 4, review_decided: 3, comment: 2, collection_shared: 1 };

/** Called after each step; tests throw from it to kill the dispatch there. */
export type DispatchStep = (step: string) => void | Promise<void>;

function str(v: unknown): string | null {
  return typeof v === "string" && v.length > 0 ? v : null;
}

function strs(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string").slice(0, MAX_RECIPIENTS) : [];
}

interface Plan {
  assetId: string | null;
  commentId: string | null;
  text: string;
  link: Record<string, unknown>;
  candidates: Map<string, NotificationKind>;
}

function add(m: Map<string, NotificationKind>, userId: string | null, kind: NotificationKind) {
  if (!userId) return;
  const had = m.get(userId);
  if (!had || RANK[kind] > RANK[had]) m.set(userId, kind);
}

async function planOf(rc: RequestContext, e: InboxEventRow): Promise<Plan | null> {
  const data = JSON.parse(e.data) as Record<string, unknown>;
  const candidates = new Map<string, NotificationKind>();
  if (e.type === "collection.shared") {
    const subj = str(data.subj);
    if (!subj) return null;
    if (data.subj_type === "group") for (const m of await usersOfUserGroup(rc.db, subj, MAX_RECIPIENTS)) add(candidates, m.user_id, "collection_shared");
    else add(candidates, subj, "collection_shared");
    const collectionId = str(data.collection_id) ?? e.entity_id;
    return { assetId: null, commentId: null, text: str(data.name) ?? "", link: { collection_id: collectionId }, candidates };
  }
  if (e.entity_type !== "asset") return null;
  const version = typeof data.version === "number" ? data.version : null;
  if (e.type === "comment.created") {
    for (const f of await followersOf(rc.db, e.entity_id)) add(candidates, f.user_id, "comment");
    add(candidates, str(data.parent_author_id), "reply");
    for (const id of strs(data.mentions)) add(candidates, id, "mention");
    const commentId = str(data.comment_id);
    return { assetId: e.entity_id, commentId, text: str(data.excerpt) ?? "", link: { comment_id: commentId, version, anchor: data.anchor ?? null }, candidates };
  }
  if (e.type === "review.requested") {
    add(candidates, str(data.reviewer_id), "review_requested");
    const note = str(data.note);
    return { assetId: e.entity_id, commentId: null, text: note ?? "", link: { version, due: data.due ?? null }, candidates };
  }
  if (e.type === "review.decided") {
    for (const f of await followersOf(rc.db, e.entity_id)) add(candidates, f.user_id, "review_decided");
    for (const r of await reviewRequesters(rc.db, e.entity_id, MAX_RECIPIENTS)) add(candidates, r.user_id, "review_decided");
    const status = str(data.status) ?? "";
    const title = ru.comments.reviewStatuses[status] ?? status;
    const note = str(data.note);
    return { assetId: e.entity_id, commentId: null, text: note ? `${title}: ${note}` : title, link: { version, status }, candidates };
  }
  return null;
}

/** The notifications an event makes now: to everyone it concerns but its author, who may read the file now. */
async function notificationsOf(rc: RequestContext, e: InboxEventRow): Promise<NewNotification[]> {
  const plan = await planOf(rc, e);
  if (!plan) return [];
  if (e.actor_id) plan.candidates.delete(e.actor_id);
  const ids = [...plan.candidates.keys()].slice(0, MAX_RECIPIENTS);
  if (ids.length === 0) return [];
  const users = await recipientsById(rc.db, ids);
  let allowed = users;
  if (plan.assetId) {
    const asset = await findAsset(rc.db, plan.assetId);
    if (!asset || asset.deletedAt !== null) return [];
    const entity = { id: asset.id, type: "asset" as const, ownerId: asset.ownerId };
    allowed = [];
    for (const u of users) {
      const actor: Actor = { id: u.id, name: u.name, login: u.login, isAdmin: u.is_admin === 1, isRobot: u.is_robot === 1, sessionFamily: null };
      if (await canAccess(rc, actor, entity, "read")) allowed.push(u);
    }
  }
  return allowed.map((u) => ({
    id: newId(),
    userId: u.id,
    eventSeq: e.seq,
    kind: plan.candidates.get(u.id) ?? "comment",
    assetId: plan.assetId,
    commentId: plan.commentId,
    byId: e.actor_id,
    text: plan.text,
    link: plan.link,
    ctime: e.ctime,
  }));
}

export interface NotificationReport {
  /** notifying events read past the cursor */
  events: number;
  /** notifications written (a repeated dispatch writes the same keys again, changing nothing) */
  created: number;
}

/** Delivers what the event log holds past the cursor, oldest first. */
export async function deliverNotifications(rc: RequestContext, opts: { rounds?: number; afterStep?: DispatchStep } = {}): Promise<NotificationReport> {
  const step = opts.afterStep ?? (() => {});
  const report: NotificationReport = { events: 0, created: 0 };
  for (let round = 0; round < (opts.rounds ?? 4); round++) {
    const { cursor, end, events } = await eventsAfterCursor(rc.db, PAGE);
    await step("read events");
    if (events.length === 0) {
      // Nothing that notifies: the cursor skips the rest of the log read in the same statement.
      if (end > cursor) await runBatch(rc.db, [advanceCursorSql(end, Date.now())]);
      break;
    }
    for (const e of events) {
      const made = await notificationsOf(rc, e);
      await step("plan event");
      await runBatch(rc.db, made.length > 0 ? [insertNotificationsSql(made), advanceCursorSql(e.seq, Date.now())] : [advanceCursorSql(e.seq, Date.now())]);
      report.events += 1;
      report.created += made.length;
      await step("record event");
      if (made.length > 0) await pokeHubs(rc, made);
    }
    if (events.length < PAGE) break;
  }
  return report;
}
