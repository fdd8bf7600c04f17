import { env } from "cloudflare:workers";
import { maskOf } from "../../workers/services/access/access-policy";
import type { AccessLevel } from "../../workers/services/access/access.service";
import { runBatch } from "../../workers/db/repositories/group.repository";
import { newId } from "../../workers/lib/ids";
import { deliverNotifications } from "../../workers/services/comments";
import { eventStatement, type GlobalEventInput } from "../../workers/services/events";
import { testContext } from "./catalog-fixtures";
import { call } from "./factories";
import { insertAsset } from "./library-factories";

/** Comments and notifications test data (decision 035): files, rules, events, the dispatcher. */

/** Gives a user levels on a file (a rule written straight into D1, as the access matrix does). */
export async function grant(userId: string, objId: string, levels: AccessLevel[], objType: "asset" | "group" = "asset", subjType: "user" | "group" = "user") {
  const id = newId();
  await env.DB.prepare("INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .bind(id, userId, subjType, objId, objType, maskOf(levels), Date.now())
    .run();
  return id;
}

export async function revoke(ruleId: string) {
  await env.DB.prepare("DELETE FROM access_rules WHERE id = ?").bind(ruleId).run();
}

/** A file of `mime` with one version whose main variant reports `props` (duration, page_count …). */
export async function mediaAsset(ownerId: string, mime = "image/jpeg", props: Record<string, unknown> = {}) {
  const asset = await insertAsset({ ownerId, mime, name: `file-${newId().slice(-6)}` });
  await env.DB.prepare("UPDATE variants SET tech_props = ? WHERE id = ?").bind(JSON.stringify(props), asset.variantId).run();
  return asset;
}

/** Records an event through the events service, as another capability does. */
export async function recordEvent(e: GlobalEventInput) {
  const rc = testContext();
  await runBatch(rc.db, [eventStatement(rc, e)]);
}

/** Runs the notification dispatcher until the log is read. */
export async function dispatch() {
  for (let i = 0; i < 10; i++) {
    const r = await deliverNotifications(testContext());
    if (r.events === 0) return;
  }
}

export interface Inbox {
  unread: number;
  items: { id: string; kind: string; asset_id: string | null; comment_id: string | null; by_id: string | null; text: string; link: Record<string, unknown>; read: boolean }[];
}

export async function inbox(bearer: string, query = ""): Promise<Inbox> {
  const res = await call(`/api/notifications${query}`, { bearer });
  if (res.status !== 200) throw new Error(`inbox ${res.status}: ${await res.text()}`);
  return (await res.json()) as Inbox;
}

export async function postComment(bearer: string, assetId: string, json: unknown) {
  const res = await call(`/api/asset/${assetId}/comments`, { method: "POST", bearer, json });
  const body = (await res.json()) as Record<string, unknown> & { comment_id: string; message?: string };
  return { status: res.status, body };
}
