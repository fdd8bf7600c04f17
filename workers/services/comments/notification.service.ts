import { ru } from "../../../shared/i18n/ru";
import { runBatch } from "../../db/repositories/group.repository";
import { digestSentSql, dueDigests, getSettings, inboxPage, markRead, putSettingsSql, unmailed } from "../../db/repositories/notification.repository";
import { visibility, type Actor, type RequestContext } from "../access";
import { sendEmail } from "../sharing";

/** The inbox (decision 035): the caller's own notifications, only about files he may read now. */

export interface NotificationView {
  id: string;
  kind: string;
  asset_id: string | null;
  asset_name: string | null;
  comment_id: string | null;
  by_id: string | null;
  by_name: string | null;
  text: string;
  link: Record<string, unknown>;
  ctime: string;
  read: boolean;
}

/** GET /api/notifications: newest first; `unread` counts what the caller may still read. */
export async function listNotifications(rc: RequestContext, actor: Actor, q: { unread: boolean; skip: number; take: number }) {
  const { rows, unread } = await inboxPage(rc.db, actor.id, await visibility(rc, actor), { unreadOnly: q.unread, skip: q.skip, take: q.take });
  const items: NotificationView[] = rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    asset_id: r.asset_id,
    asset_name: r.asset_name,
    comment_id: r.comment_id,
    by_id: r.by_id,
    by_name: r.by_name,
    text: r.text,
    link: JSON.parse(r.link) as Record<string, unknown>,
    ctime: new Date(r.ctime).toISOString(),
    read: r.read_at !== null,
  }));
  return { unread, items };
}

/** POST /api/notifications/read: the listed ones (the caller's own only) or all. */
export async function readNotifications(rc: RequestContext, actor: Actor, body: { ids?: string[]; all?: boolean }) {
  const ids = body.all ? "all" : (body.ids ?? []);
  return { unread: await markRead(rc.db, actor.id, await visibility(rc, actor), ids, Date.now()) };
}

/** GET /api/notifications/settings. */
export async function notificationSettings(rc: RequestContext, actor: Actor) {
  const [row] = await getSettings(rc.db, actor.id);
  return { email: row?.email ?? null, digest: row?.digest === 1 };
}

/** PUT /api/notifications/settings: the digest goes only where the user said, only when he said yes. */
export async function putNotificationSettings(rc: RequestContext, actor: Actor, body: { email: string | null; digest: boolean }) {
  await runBatch(rc.db, [putSettingsSql(actor.id, body.email, body.digest && body.email !== null, Date.now())]);
  return notificationSettings(rc, actor);
}

/** A digest every quarter hour at most. */
export const DIGEST_INTERVAL_MS = 15 * 60 * 1000;
/** Users mailed per run and lines per digest: the run's budget. */
const DIGEST_USERS = 50;
const DIGEST_LINES = 50;

/**
 * E-mail digests through the product's mail path (outgoing_emails): for each user who allowed them and whose last
 * digest is a quarter hour old, his unread, unmailed notifications about what he may read now. Answers how many went.
 */
export async function sendDueDigests(rc: RequestContext, now: number): Promise<number> {
  let sent = 0;
  for (const user of await dueDigests(rc.db, now - DIGEST_INTERVAL_MS, DIGEST_USERS)) {
    const actor: Actor = { id: user.user_id, name: user.name, login: user.login, isAdmin: user.is_admin === 1, isRobot: user.is_robot === 1, sessionFamily: null };
    const items = await unmailed(rc.db, user.user_id, await visibility(rc, actor), DIGEST_LINES);
    if (items.length > 0) {
      const kinds = ru.comments.kinds as Record<string, string>;
      const lines = items.map((n) => ru.comments.digestLine(n.by_name ?? ru.comments.someone, kinds[n.kind] ?? n.kind, n.asset_name ?? n.text));
      await sendEmail(rc, { to: [user.email], subject: ru.comments.digestSubject(items.length), text: lines.join("\n"), about: { type: "notifications", id: user.user_id } });
      sent += 1;
    }
    await runBatch(rc.db, digestSentSql(user.user_id, items.map((n) => n.id), now));
  }
  return sent;
}
