import { ru } from "../../../shared/i18n/ru";
import { findAsset } from "../../db/repositories/asset.repository";
import {
  deleteThreadSql,
  findComment,
  followIfNewSql,
  insertCommentSql,
  mediaLimits,
  resolveCommentSql,
  setFollowSql,
  updateCommentTextSql,
  usersByLogin,
  type CommentRow,
} from "../../db/repositories/comment.repository";
import { runBatch } from "../../db/repositories/group.repository";
import { bumpSearchEpochStatement } from "../../db/repositories/review.repository";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { canAccess, requireEntityAccess, type Actor, type RequestContext } from "../access";
import { eventStatement } from "../events";
import { anchorProblem, excerptOf, loginCandidates, mentionTokens, type Anchor } from "./anchor";
import { wakeNotifications } from "./notification-wake";

/** At most this many people named in one comment. */
export const MAX_MENTIONS = 20;

export interface CommentView {
  comment_id: string;
  asset_id: string;
  version: number;
  author_id: string;
  author_name: string;
  text: string;
  anchor: Anchor | null;
  parent_id: string | null;
  resolved: boolean;
  mentions: string[];
  ctime: string;
  mtime: string;
}

/**
 * The file a comment call is about, when the caller may read it. A file he may not read, a trashed one and no file
 * at all are the same 404: nobody without read learns that a file exists or has comments.
 */
export async function readableAsset(rc: RequestContext, actor: Actor, assetId: string) {
  const asset = await findAsset(rc.db, assetId);
  if (!asset || asset.deletedAt !== null) throw new AppError("NOT_FOUND", ru.comments.assetNotFound);
  await requireEntityAccess(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "read", ru.comments.assetNotFound);
  return asset;
}

/** A comment and its file, when the caller may read the file; otherwise the same 404 as for no comment. */
async function readableComment(rc: RequestContext, actor: Actor, commentId: string) {
  const comment = await findComment(rc.db, commentId);
  if (!comment) throw new AppError("NOT_FOUND", ru.comments.notFound);
  const asset = await findAsset(rc.db, comment.asset_id);
  if (!asset || asset.deletedAt !== null) throw new AppError("NOT_FOUND", ru.comments.notFound);
  await requireEntityAccess(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "read", ru.comments.notFound);
  return { comment, asset };
}

function bad(field: string, message: string): AppError {
  return new AppError("BAD_REQUEST", ru.errors.invalidField(field, message));
}

/** The users a text names with @login; an unknown login is a 400 naming the field. */
async function resolveMentions(rc: RequestContext, text: string): Promise<{ id: string; login: string }[]> {
  const tokens = mentionTokens(text);
  if (tokens.length === 0) return [];
  if (tokens.length > MAX_MENTIONS) throw bad("text", ru.comments.tooManyMentions(MAX_MENTIONS));
  const candidates = tokens.flatMap(loginCandidates);
  const found = await usersByLogin(rc.db, candidates);
  const byLogin = new Map(found.map((u) => [u.login.toLowerCase(), u]));
  const out = new Map<string, { id: string; login: string }>();
  for (const token of tokens) {
    const hit = loginCandidates(token)
      .map((c) => byLogin.get(c.toLowerCase()))
      .find((u) => u !== undefined);
    if (!hit) throw bad("text", ru.comments.unknownLogin(loginCandidates(token).at(-1) ?? token));
    out.set(hit.id, hit);
  }
  return [...out.values()];
}

/** A comment as every call answers it (the list, create, edit, resolve). */
export function view(row: CommentRow): CommentView {
  return {
    comment_id: row.id,
    asset_id: row.asset_id,
    version: row.version,
    author_id: row.author_id,
    author_name: row.author_name ?? "",
    text: row.text,
    anchor: row.anchor ? (JSON.parse(row.anchor) as Anchor) : null,
    parent_id: row.parent_id,
    resolved: row.resolved === 1,
    mentions: JSON.parse(row.mention_logins) as string[],
    ctime: new Date(row.ctime).toISOString(),
    mtime: new Date(row.mtime).toISOString(),
  };
}

/**
 * POST /api/asset/{id}/comments: read on the file is enough. The comment, the author's follow of the file and the
 * `comment.created` event are one batch; the notification dispatcher is woken once it has committed.
 */
export async function createComment(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  input: { text: string; version?: number; anchor?: Anchor; parent_id?: string },
): Promise<CommentView> {
  const asset = await readableAsset(rc, actor, assetId);
  const latest = asset.latestVersion;
  const version = input.version ?? latest;
  if (input.version !== undefined && (input.version < 1 || input.version > latest)) throw bad("version", ru.comments.unknownVersion(latest));
  if (input.anchor) {
    const problem = anchorProblem(input.anchor, await mediaLimits(rc.db, asset.id, version));
    if (problem) throw bad(problem.field, problem.message);
  }
  let parentAuthor: string | null = null;
  if (input.parent_id) {
    const parent = await findComment(rc.db, input.parent_id);
    if (!parent || parent.asset_id !== asset.id) throw bad("parent_id", ru.comments.parentOfOther);
    parentAuthor = parent.author_id;
  }
  const mentions = await resolveMentions(rc, input.text);
  const now = Date.now();
  const id = newId(now);
  await runBatch(rc.db, [
    insertCommentSql({
      id,
      assetId: asset.id,
      version,
      authorId: actor.id,
      text: input.text,
      anchor: input.anchor ? JSON.stringify(input.anchor) : null,
      parentId: input.parent_id ?? null,
      mentions: mentions.map((m) => m.id),
      now,
    }),
    followIfNewSql(asset.id, actor.id, now),
    // Search hits carry the file's comment counts: cached answers from before this comment are not served again.
    bumpSearchEpochStatement(),
    eventStatement(rc, {
      type: "comment.created",
      entityType: "asset",
      entityId: asset.id,
      ownerId: asset.ownerId,
      actorId: actor.id,
      data: {
        comment_id: id,
        version,
        parent_id: input.parent_id ?? null,
        parent_author_id: parentAuthor,
        mentions: mentions.map((m) => m.id),
        excerpt: excerptOf(input.text),
        anchor: input.anchor ?? null,
      },
    }),
  ]);
  wakeNotifications(rc);
  return {
    comment_id: id,
    asset_id: asset.id,
    version,
    author_id: actor.id,
    author_name: actor.name,
    text: input.text,
    anchor: input.anchor ?? null,
    parent_id: input.parent_id ?? null,
    resolved: false,
    mentions: mentions.map((m) => m.login),
    ctime: new Date(now).toISOString(),
    mtime: new Date(now).toISOString(),
  };
}

/** PATCH /api/comments/{id}: the author only; mentions are read again from the new text (no new notifications). */
export async function editComment(rc: RequestContext, actor: Actor, commentId: string, text: string): Promise<CommentView> {
  const { comment } = await readableComment(rc, actor, commentId);
  if (comment.author_id !== actor.id) throw new AppError("FORBIDDEN", ru.comments.onlyAuthor);
  const mentions = await resolveMentions(rc, text);
  const now = Date.now();
  await runBatch(rc.db, [updateCommentTextSql(comment.id, text, mentions.map((m) => m.id), now)]);
  return view({ ...comment, text, mentions: JSON.stringify(mentions.map((m) => m.id)), mention_logins: JSON.stringify(mentions.map((m) => m.login)), mtime: now });
}

/** DELETE /api/comments/{id}: the author, or whoever holds `acl` on the file; replies go with it. */
export async function deleteComment(rc: RequestContext, actor: Actor, commentId: string): Promise<{ comment_id: string; deleted: true }> {
  const { comment, asset } = await readableComment(rc, actor, commentId);
  if (comment.author_id !== actor.id && !(await canAccess(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "acl"))) {
    throw new AppError("FORBIDDEN", ru.comments.deleteDenied);
  }
  await runBatch(rc.db, [...deleteThreadSql(comment.id), bumpSearchEpochStatement()]);
  return { comment_id: comment.id, deleted: true };
}

/** POST /api/comments/{id}/resolve: anyone who may read the file resolves or reopens. */
export async function resolveComment(rc: RequestContext, actor: Actor, commentId: string, resolved: boolean): Promise<CommentView> {
  const { comment } = await readableComment(rc, actor, commentId);
  const now = Date.now();
  await runBatch(rc.db, [resolveCommentSql(comment.id, resolved, now), bumpSearchEpochStatement()]);
  return view({ ...comment, resolved: resolved ? 1 : 0, mtime: now });
}

/** PUT / DELETE /api/asset/{id}/follow: «Следить» on a file the caller may read. */
export async function setFollow(rc: RequestContext, actor: Actor, assetId: string, following: boolean): Promise<{ asset_id: string; following: boolean }> {
  const asset = await readableAsset(rc, actor, assetId);
  await runBatch(rc.db, [setFollowSql(asset.id, actor.id, following, Date.now())]);
  return { asset_id: asset.id, following };
}
