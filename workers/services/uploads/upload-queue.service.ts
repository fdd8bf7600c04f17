import { ru } from "../../../shared/i18n/ru";
import { SOCKET_EXPIRES_HEADER, SOCKET_PROTOCOL_HEADER } from "../../../durable-objects/upload-queue.rules";
import type {
  AddItemInput,
  CancelResult,
  ItemPatch,
  Outcome,
  QueueState,
  Report,
  ReportResult,
  UploadItem,
} from "../../../durable-objects/upload-queue.rules";
import { findVariant } from "../../db/repositories/asset-versions.repository";
import { AppError } from "../../lib/errors";
import { authenticateBearer } from "../access";
import type { Actor, RequestContext } from "../access";

export type { CancelResult, QueueState, UploadItem, UploadStatus } from "../../../durable-objects/upload-queue.rules";
export type { QueueEvent } from "../../../durable-objects/upload-queue.do";

/**
 * The WebSocket subprotocol of the queue socket. Browsers cannot set `Authorization` on a WebSocket, so the token
 * rides either in the `token` query parameter or as a second subprotocol:
 * `new WebSocket(url, [QUEUE_SOCKET_PROTOCOL, accessToken])`; the answer then names `QUEUE_SOCKET_PROTOCOL`.
 */
export const QUEUE_SOCKET_PROTOCOL = "mam-uploads";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The caller's own queue: one Durable Object per user id, so nobody can reach another user's queue. */
function queueOf(rc: RequestContext, actor: Actor) {
  return rc.env.UPLOADS.get(rc.env.UPLOADS.idFromName(actor.id));
}

/** An outcome of the queue object as a value, or the matching API error. */
function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw new AppError(outcome.status === 404 ? "NOT_FOUND" : "CONFLICT", outcome.message);
}

/** The caller's queue: items in queue order, whether it is finished, and the item to start next. */
export async function getUploadQueue(rc: RequestContext, actor: Actor): Promise<QueueState> {
  return queueOf(rc, actor).state();
}

/** Queues files (waiting); ids already queued answer their current item. 409 when the queue would overflow. */
export async function addUploads(rc: RequestContext, actor: Actor, items: AddItemInput[]): Promise<UploadItem[]> {
  return unwrap(await queueOf(rc, actor).add(items));
}

/**
 * Applies an engine report to an item (SPEC §4 transitions): 404 unknown item, 409 against the rules. A variant id
 * must name one of the caller's own variants (404 otherwise): a stale item's upload is aborted through it.
 */
export async function updateUpload(rc: RequestContext, actor: Actor, id: string, patch: ItemPatch): Promise<UploadItem> {
  if (patch.variantId) {
    const variant = await findVariant(rc.db, patch.variantId);
    if (!variant || variant.userId !== actor.id) throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
  }
  return unwrap(await queueOf(rc, actor).update(id, patch));
}

/**
 * Several engine reports at once, applied in order; each answers like `updateUpload` would (the item, or 404/409 with
 * its reason), so one refused report does not hold back the others. Variant ids must be the caller's.
 */
export async function reportUploads(rc: RequestContext, actor: Actor, reports: Report[]): Promise<ReportResult[]> {
  const variantIds = [...new Set(reports.map((r) => r.patch.variantId).filter((v): v is string => !!v))];
  const variants = await Promise.all(variantIds.map((id) => findVariant(rc.db, id)));
  if (variants.some((v) => !v || v.userId !== actor.id)) throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
  return queueOf(rc, actor).updateMany(reports);
}

/** Cancels an item: a waiting one is removed, another is marked cancelled for its engine; 409 for a completed one. */
export async function cancelUpload(rc: RequestContext, actor: Actor, id: string): Promise<CancelResult> {
  return unwrap(await queueOf(rc, actor).cancel(id));
}

/** The keep-alive of a tab (every 3 s): the listed items are still held by a browser. Unknown ids are ignored. */
export async function keepUploadsAlive(rc: RequestContext, actor: Actor, ids: string[]): Promise<void> {
  if (ids.length > 0) await queueOf(rc, actor).keepalive(ids);
}

/** Removes an item (after the engine cancelled it and the asset was deleted, or to dismiss it); 404 when unknown. */
export async function removeUpload(rc: RequestContext, actor: Actor, id: string): Promise<void> {
  if (!(await queueOf(rc, actor).remove(id))) throw new AppError("NOT_FOUND", ru.queue.itemNotFound);
}

/** Removes the completed items; answers how many. */
export async function clearCompletedUploads(rc: RequestContext, actor: Actor): Promise<number> {
  return queueOf(rc, actor).clearCompleted();
}

/** Where a WebSocket upgrade may carry the access token. */
export interface SocketCredentials {
  authorization?: string;
  /** the `Sec-WebSocket-Protocol` header: offered subprotocols, comma-separated */
  protocols?: string;
  /** the `token` query parameter */
  token?: string;
}

/**
 * Picks the access token of a WebSocket upgrade: `Authorization: Bearer`, else a JWT offered as a subprotocol next
 * to `QUEUE_SOCKET_PROTOCOL`, else the `token` query parameter. Answers the subprotocol to confirm (browsers refuse
 * an answer that names none of the offered ones).
 */
export function socketToken(credentials: SocketCredentials): { token: string | null; protocol: string | null } {
  const offered = (credentials.protocols ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const protocol = offered.includes(QUEUE_SOCKET_PROTOCOL) ? QUEUE_SOCKET_PROTOCOL : null;
  const bearer = /^Bearer (\S+)$/i.exec(credentials.authorization ?? "")?.[1];
  if (bearer) return { token: bearer, protocol };
  const fromProtocol = offered.find((p) => JWT_SHAPE.test(p));
  if (fromProtocol) {
    if (!protocol) throw new AppError("UNAUTHORIZED", ru.queue.socketProtocol(QUEUE_SOCKET_PROTOCOL));
    return { token: fromProtocol, protocol };
  }
  return { token: credentials.token ?? null, protocol };
}

/** Expiry (epoch ms) of an access token that has already been verified. */
function tokenExpiry(token: string): number | null {
  try {
    const payload = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: unknown };
    return typeof payload.exp === "number" ? payload.exp * 1000 : null;
  } catch {
    return null;
  }
}

/**
 * Opens the live queue socket of the token's owner: the token is verified exactly as `requireAuth` verifies a
 * bearer (401 otherwise), then the user's queue object accepts the socket. The socket is closed with code 4401 at
 * the first event after the token expires; the tab reconnects with a fresh token.
 */
export async function openUploadSocket(rc: RequestContext, request: Request, credentials: SocketCredentials): Promise<Response> {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") throw new AppError("BAD_REQUEST", ru.queue.notWebSocket);
  const { token, protocol } = socketToken(credentials);
  if (!token) throw new AppError("UNAUTHORIZED", ru.errors.unauthenticated);
  if (token.length > 4096 || !JWT_SHAPE.test(token)) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  const actor = await authenticateBearer(rc, token);
  const headers = new Headers({ upgrade: "websocket" });
  const expires = tokenExpiry(token);
  if (expires) headers.set(SOCKET_EXPIRES_HEADER, String(expires));
  if (protocol) headers.set(SOCKET_PROTOCOL_HEADER, protocol);
  const answer = await queueOf(rc, actor).fetch(new Request("https://upload-queue/ws", { headers }));
  // The object's answer has immutable headers; the API's middleware adds its own, so hand on a copy.
  return new Response(null, { status: answer.status, webSocket: answer.webSocket, headers: answer.headers });
}
