import { ru } from "../../../shared/i18n/ru";
import { runBatch } from "../../db/repositories/asset.repository";
import { findAsset } from "../../db/repositories/asset.repository";
import {
  activeLinks,
  findGroupNamed,
  findLinkCreator,
  findShortlink,
  insertShortlinkStatement,
  linksOfEntity,
  updateShortlinkStatement,
  type ShortlinkListRow,
} from "../../db/repositories/shortlink.repository";
import { findUserById } from "../../db/repositories/user.repository";
import type { AssetRow, ShortlinkRow, UserRow } from "../../db/schema/index";
import { randomToken } from "../../lib/crypto";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { hashPassword } from "../../lib/password";
import { entityMask, auditStatement, fileAuditStatement } from "../access";
import { holds, maskOf } from "../access/pure";
import { requireCollection } from "../collections";
import { collectionFor } from "../../db/repositories/collection.repository";
import { GROUP_PAGE_SIZE } from "../library";
import type { Actor, RequestContext } from "../access";
import { sendEmail } from "./email.service";
import { aclMask, aclNames, wantsDownload, type ShareAcl } from "./shortlink-acl";

/**
 * Shortlinks (SPEC §7): share an asset, a group or a collection with anyone holding the URL. A link acts with its creator's
 * rights, re-checked at every open and every media request, so it stops working when the creator loses the right,
 * is disabled, or the item goes to the trash. Passwords are PBKDF2 hashes; a correct one sets a short-lived signed
 * cookie; wrong ones are throttled per link and per client IP (LoginThrottleDO) and audited. Media bytes go
 * through the link's own signed, expiring URLs. Every open and download is counted and audited with the client IP.
 */

/** Link ids: 16 random bytes in base64url (22 characters, 128 bits). */
export const LINK_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;
export const MAX_RECIPIENTS = 50;
export const MAX_PASSWORD_LENGTH = 256;
/** How long a correct password keeps a link open in that browser. */
export const UNLOCK_TTL_SECONDS = 2 * 3600;
/** The access level that lets a user share an item (and that keeps the user's links working). */
export const SHARE_LEVEL = "acl" as const;
/** Signed media URLs live one to two hours (bucketed by the hour, so URLs and the browser's cache stay stable). */
export const MEDIA_TTL_SECONDS = 3600;
/** The largest text file the page shows inline (the start of a longer one). */
export const TEXT_PREVIEW_BYTES = 64 * 1024;

/** The cookie that holds a link's unlock: one per link, named after it. */
export function unlockCookieName(linkId: string): string {
  return `sl_${linkId}`;
}

export interface CreateShortlinkInput {
  time_range?: [string | null, string | null] | null;
  password?: string | null;
  acl?: ShareAcl[];
  email?: string[];
}

export interface UpdateShortlinkInput {
  time_range?: [string | null, string | null] | null;
  /** a new password, or null to remove it */
  password?: string | null;
  acl?: ShareAcl[];
}

/** Who opens a link: the client IP (audit, throttling). */
export interface Visitor {
  ip: string | null;
}

/** One link as lists show it (for-entity, the administrators' list). */
export interface ShortlinkView {
  id: string;
  url: string;
  entity_id: string;
  entity_type: SharedType;
  entity_name: string | null;
  creator: string;
  creator_name: string | null;
  created: string;
  time_range: [string | null, string | null];
  has_password: boolean;
  acl: ShareAcl[];
  views: number;
  downloads: number;
  last_opened: string | null;
}

export const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString());
const dateTime = new Intl.DateTimeFormat("ru-RU", { dateStyle: "long", timeStyle: "short", timeZone: "UTC" });
/** A moment for the Russian messages: '25 ноября 2026 г., 06:30 UTC'. */
export function formatMoment(ms: number): string {
  return `${dateTime.format(new Date(ms))} UTC`;
}

export function shortlinkUrl(origin: string, id: string): string {
  return `${origin}/sl/${id}`;
}

function toView(origin: string, r: ShortlinkListRow): ShortlinkView {
  const l = r.link;
  return {
    id: l.id,
    url: shortlinkUrl(origin, l.id),
    entity_id: l.entityId,
    entity_type: l.entityType,
    entity_name: r.entityName,
    creator: l.creatorId,
    creator_name: r.creatorName,
    created: new Date(l.ctime).toISOString(),
    time_range: [iso(l.notBefore), iso(l.notAfter)],
    has_password: l.passwordHash != null,
    acl: aclNames(l.acl),
    views: l.views,
    downloads: l.downloads,
    last_opened: iso(l.lastOpenedAt),
  };
}

/**
 * The maker of link `id` as the actor its media are read for, by the link's catalog row, for a read placed where its
 * file or folder lives (decision 051), as the link's writes are placed. Undefined for no such link and for a
 * collection's (its items span libraries: read over the catalog).
 */
export async function linkCreator(rc: RequestContext, id: string): Promise<Actor | undefined> {
  const found = LINK_ID_PATTERN.test(id) ? await findLinkCreator(rc.db, id) : undefined;
  return found && found.entityType !== "collection" ? actorOf(found.user) : undefined;
}

export function actorOf(user: Pick<UserRow, "id" | "name" | "login" | "isAdmin" | "isRobot">): Actor {
  return { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily: null };
}

/** What a link shares: a file, a folder (with everything below it) or a collection (decision record 034). */
export type SharedType = "asset" | "group" | "collection";

/** The shared item: a live asset, group or collection with its owner (for access checks) and name. */
export interface SharedEntity {
  id: string;
  type: SharedType;
  ownerId: string | null;
  name: string;
  asset?: AssetRow;
}

/** Finds an id as an asset, else as a group, else as a collection; trashed or missing is undefined. */
export async function findEntity(rc: RequestContext, id: string, type?: SharedType): Promise<SharedEntity | undefined> {
  if (type === "collection") return findCollection(rc, id);
  if (type !== "group") {
    const asset = await findAsset(rc.db, id);
    if (asset) return asset.deletedAt == null ? { id, type: "asset", ownerId: asset.ownerId, name: asset.name, asset } : undefined;
  }
  if (type !== "asset") {
    const group = await findGroupNamed(rc.db, id);
    if (group && group.deletedAt == null) return { id, type: "group", ownerId: group.ownerId, name: group.name };
  }
  return type === undefined ? findCollection(rc, id) : undefined;
}

async function findCollection(rc: RequestContext, id: string): Promise<SharedEntity | undefined> {
  const row = await collectionFor(rc.db, id, "");
  return row ? { id, type: "collection", ownerId: row.owner_id, name: row.name } : undefined;
}

/**
 * What `actor` holds on a shared item, as access levels. A collection grants nothing on its files, so for one it is
 * the role alone (decision record 034): any role reads it; sharing it by a public link is changing who has it, which
 * is the owner's and administrators' (`manage`), and they also get `download` here because each file's own
 * download right is checked when a visitor downloads it.
 */
export async function heldMask(rc: RequestContext, actor: Actor, entity: SharedEntity): Promise<number> {
  if (entity.type !== "collection") return entityMask(rc, actor, { id: entity.id, type: entity.type, ownerId: entity.ownerId });
  const role = await requireCollection(rc, actor, entity.id, "view").then(
    (r) => r.role,
    () => null,
  );
  if (role === null) return 0;
  return role === "owner" || role === "admin" ? maskOf(["read", SHARE_LEVEL, "download"]) : maskOf(["read"]);
}

function notFoundOf(type: SharedType): string {
  return type === "asset" ? ru.assets.notFound : type === "group" ? ru.groups.notFound : ru.collections.notFound;
}

/** The time window in epoch ms, checked: end after start (400). */
function parseRange(
  range: [string | null, string | null] | null | undefined,
  now: number,
  creating: boolean,
): [number | null, number | null] {
  const [from, to] = range ?? [null, null];
  const start = from ? Date.parse(from) : null;
  const end = to ? Date.parse(to) : null;
  if (start != null && end != null && end <= start) throw new AppError("BAD_REQUEST", ru.sharing.rangeOrder);
  if (creating && end != null && end <= now) throw new AppError("BAD_REQUEST", ru.sharing.rangePast);
  return [start, end];
}

/**
 * The levels sharing needs (decision 012): `acl` on the item — a public link grants access to anyone, like an
 * access rule does — and `download` for any download right. 404 when the actor cannot even read it, 403 otherwise.
 */
async function requireShareRights(rc: RequestContext, actor: Actor, entity: SharedEntity, mask: number): Promise<void> {
  const held = await heldMask(rc, actor, entity);
  if (!holds(held, "read")) throw new AppError("NOT_FOUND", notFoundOf(entity.type));
  if (!holds(held, SHARE_LEVEL)) throw new AppError("FORBIDDEN", ru.sharing.noShareRight);
  if (wantsDownload(mask) && !holds(held, "download")) {
    throw new AppError("FORBIDDEN", ru.sharing.noDownloadRight);
  }
}

/**
 * `POST /api/sl/create/{id}`: a link to an asset or a group the actor may share (`acl`; and download, for download rights),
 * answered as the full URL. Passwords are stored hashed; listed addresses get the link by email (or the outbox).
 * @example await createShortlink(rc, actor, assetId, { acl: ["read", "download"], password: "s3cret" }, "https://mam.example")
 */
export async function createShortlink(
  rc: RequestContext,
  actor: Actor,
  entityId: string,
  input: CreateShortlinkInput,
  origin: string,
  visitor: Visitor,
): Promise<string> {
  if (entityId === ROOT_GROUP_ID) throw new AppError("BAD_REQUEST", ru.sharing.rootNotShareable);
  const now = Date.now();
  const [notBefore, notAfter] = parseRange(input.time_range, now, true);
  const mask = aclMask(input.acl ?? ["read"]);
  const entity = await findEntity(rc, entityId);
  if (!entity) throw new AppError("NOT_FOUND", ru.errors.notFound);
  await requireShareRights(rc, actor, entity, mask);
  const id = randomToken(16);
  const emails = [...new Set(input.email ?? [])];
  await runBatch(rc.db, [
    insertShortlinkStatement(rc.db, {
      id,
      entityId,
      entityType: entity.type,
      creatorId: actor.id,
      ctime: now,
      mtime: now,
      notBefore,
      notAfter,
      passwordHash: input.password != null ? await hashPassword(input.password) : null,
      acl: mask,
      emails: emails.length > 0 ? emails : null,
    }),
    auditStatement(rc, {
      action: "shortlink.create",
      actorId: actor.id,
      objectType: entity.type,
      objectId: entity.id,
      details: {
        shortlink: id,
        acl: aclNames(mask),
        password: input.password != null,
        not_before: notBefore,
        not_after: notAfter,
        emails: emails.length,
      },
      ip: visitor.ip,
    }),
    // the share in the file's or folder's own history (a collection has none: its audit row above is the record)
    ...(entity.type === "collection"
      ? []
      : [
          fileAuditStatement(rc, {
            actorId: actor.id,
            verb: "share",
            targets: { type: entity.type, id: entity.id },
            details: { shortlink: id, acl: aclNames(mask), password: input.password != null, not_after: notAfter },
          }),
        ]),
  ]);
  const url = shortlinkUrl(origin, id);
  if (emails.length > 0) {
    await sendEmail(rc, {
      to: emails,
      subject: ru.sharing.emailSubject(entity.name),
      text: ru.sharing.emailBody(actor.name, entity.name, url, notAfter != null ? formatMoment(notAfter) : null),
      about: { type: "shortlink", id },
      actorId: actor.id,
    });
  }
  return url;
}

/**
 * `GET /api/sl/for-entity/{id}`: the live links of an item the actor may read. Those who manage its access
 * (`acl`: owners, administrators, rule holders) see everyone's links; others see their own.
 */
export async function linksForEntity(rc: RequestContext, actor: Actor, entityId: string, origin: string): Promise<ShortlinkView[]> {
  const entity = await findEntity(rc, entityId);
  if (!entity || entityId === ROOT_GROUP_ID) throw new AppError("NOT_FOUND", ru.errors.notFound);
  const mask = await heldMask(rc, actor, entity);
  if (!holds(mask, "read")) throw new AppError("NOT_FOUND", ru.errors.notFound);
  const rows = await linksOfEntity(rc.db, entityId, holds(mask, "acl") ? undefined : actor.id);
  return rows.map((r) => toView(origin, r));
}

/** `GET /api/sl/list`: every active link (administrators), newest first. */
export async function listActiveLinks(
  rc: RequestContext,
  actor: Actor,
  origin: string,
  skip = 0,
  take = GROUP_PAGE_SIZE,
): Promise<ShortlinkView[]> {
  if (!actor.isAdmin) throw new AppError("FORBIDDEN", ru.errors.forbidden);
  return (await activeLinks(rc.db, Date.now(), skip, take)).map((r) => toView(origin, r));
}

/**
 * A live link the actor may change or revoke: its creator, an administrator, or whoever holds `acl` on the item.
 * Unknown, malformed and revoked ids, and links of items the actor cannot read, are the same 404.
 */
async function requireManagedLink(rc: RequestContext, actor: Actor, linkId: string): Promise<ShortlinkRow> {
  const link = LINK_ID_PATTERN.test(linkId) ? await findShortlink(rc.db, linkId) : undefined;
  if (!link || link.revokedAt != null) throw new AppError("NOT_FOUND", ru.sharing.notFound);
  if (link.creatorId === actor.id || actor.isAdmin) return link;
  const entity = await findEntity(rc, link.entityId, link.entityType);
  const mask = entity ? await heldMask(rc, actor, entity) : 0;
  if (!holds(mask, "read")) throw new AppError("NOT_FOUND", ru.sharing.notFound);
  if (!holds(mask, "acl")) throw new AppError("FORBIDDEN", ru.sharing.notManager);
  return link;
}

/** `DELETE /api/sl/{id}`: revokes a link at once (its page and every media URL stop working). */
export async function revokeShortlink(
  rc: RequestContext,
  actor: Actor,
  linkId: string,
  visitor: Visitor,
): Promise<{ id: string; revoked: true }> {
  const link = await requireManagedLink(rc, actor, linkId);
  const now = Date.now();
  await rc.db.batch([
    updateShortlinkStatement(rc.db, link.id, { revokedAt: now, revokedBy: actor.id, mtime: now }),
    auditStatement(rc, {
      action: "shortlink.revoke",
      actorId: actor.id,
      objectType: link.entityType,
      objectId: link.entityId,
      details: { shortlink: link.id },
      ip: visitor.ip,
    }),
  ]);
  return { id: link.id, revoked: true };
}

/**
 * `PATCH /api/sl/{id}`: changes the window, the password (null removes it; a change signs out every browser that
 * unlocked it) or the rights; download rights need the creator's download right on the item.
 */
export async function updateShortlink(
  rc: RequestContext,
  actor: Actor,
  linkId: string,
  input: UpdateShortlinkInput,
  origin: string,
  visitor: Visitor,
): Promise<ShortlinkView> {
  const link = await requireManagedLink(rc, actor, linkId);
  const now = Date.now();
  const set: Partial<ShortlinkRow> = { mtime: now };
  if (input.time_range !== undefined) [set.notBefore, set.notAfter] = parseRange(input.time_range, now, false);
  if (input.password !== undefined) set.passwordHash = input.password === null ? null : await hashPassword(input.password);
  if (input.acl !== undefined) {
    set.acl = aclMask(input.acl);
    const creator = await findUserById(rc.db, link.creatorId);
    const entity = await findEntity(rc, link.entityId, link.entityType);
    if (!creator || !entity) throw new AppError("NOT_FOUND", ru.sharing.notFound);
    if (wantsDownload(set.acl) && !holds(await heldMask(rc, actorOf(creator), entity), "download")) {
      throw new AppError("FORBIDDEN", ru.sharing.noDownloadRight);
    }
  }
  await rc.db.batch([
    updateShortlinkStatement(rc.db, link.id, set),
    auditStatement(rc, {
      action: "shortlink.update",
      actorId: actor.id,
      objectType: link.entityType,
      objectId: link.entityId,
      details: {
        shortlink: link.id,
        ...(input.time_range !== undefined ? { not_before: set.notBefore, not_after: set.notAfter } : {}),
        ...(input.password !== undefined ? { password: input.password !== null } : {}),
        ...(set.acl !== undefined ? { acl: aclNames(set.acl) } : {}),
      },
      ip: visitor.ip,
    }),
  ]);
  const [row] = await linksOfEntity(rc.db, link.entityId, link.creatorId).then((rows) => rows.filter((r) => r.link.id === link.id));
  return toView(origin, row);
}
