import { ru } from "../../../shared/i18n/ru";
import type { ThrottleKind } from "../../../durable-objects/login-throttle.do";
import { findAsset, selectReadyVariants, type ReadyVariant } from "../../db/repositories/asset.repository";
import {
  activeLinks,
  assetInSubtree,
  countUseStatement,
  findGroupNamed,
  findShortlink,
  insertShortlinkStatement,
  linksOfEntity,
  updateShortlinkStatement,
  type ShortlinkListRow,
} from "../../db/repositories/shortlink.repository";
import { findUserById } from "../../db/repositories/user.repository";
import type { AssetRow, ShortlinkRow, UserRow } from "../../db/schema/index";
import { randomToken, timingSafeEqual } from "../../lib/crypto";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { hashPassword, verifyPassword } from "../../lib/password";
import { signLink, verifyLink } from "../../lib/signed-url";
import { canAccess, entityMask } from "../access";
import { holds } from "../access/pure";
import { serveVariant, VIEWABLE_ORDER, type ContentRequest } from "../library";
import { mainVariant } from "../library";
import { auditStatement, recordAudit } from "../access";
import type { Actor, RequestContext } from "../access";
import { sendEmail } from "./email.service";
import { GROUP_PAGE_SIZE, listMembers } from "../library";
import { findPreview, readPreview } from "../media";
import { aclMask, aclNames, allows, viewOnly, wantsDownload, type ShareAcl } from "./shortlink-acl";

/**
 * Shortlinks (SPEC §7): share an asset or a group with anyone holding the URL. A link acts with its creator's
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
const MEDIA_TTL_SECONDS = 3600;
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
  entity_type: "asset" | "group";
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

const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString());
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

function actorOf(user: UserRow): Actor {
  return { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily: null };
}

/** The shared item: a live asset or group with its owner (for access checks) and name. */
interface SharedEntity {
  id: string;
  type: "asset" | "group";
  ownerId: string | null;
  name: string;
  asset?: AssetRow;
}

/** Finds an id as an asset, else as a group; trashed or missing is undefined. */
async function findEntity(rc: RequestContext, id: string, type?: "asset" | "group"): Promise<SharedEntity | undefined> {
  if (type !== "group") {
    const asset = await findAsset(rc.db, id);
    if (asset) return asset.deletedAt == null ? { id, type: "asset", ownerId: asset.ownerId, name: asset.name, asset } : undefined;
  }
  if (type !== "asset") {
    const group = await findGroupNamed(rc.db, id);
    if (group && group.deletedAt == null) return { id, type: "group", ownerId: group.ownerId, name: group.name };
  }
  return undefined;
}

/** The time window in epoch ms, checked: end after start (400). */
function parseRange(range: [string | null, string | null] | null | undefined, now: number, creating: boolean): [number | null, number | null] {
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
  const held = await entityMask(rc, actor, entity);
  if (!holds(held, "read")) throw new AppError("NOT_FOUND", entity.type === "asset" ? ru.assets.notFound : ru.groups.notFound);
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
  await rc.db.batch([
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
      details: { shortlink: id, acl: aclNames(mask), password: input.password != null, not_before: notBefore, not_after: notAfter, emails: emails.length },
      ip: visitor.ip,
    }),
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
  const mask = await entityMask(rc, actor, entity);
  if (!holds(mask, "read")) throw new AppError("NOT_FOUND", ru.errors.notFound);
  const rows = await linksOfEntity(rc.db, entityId, holds(mask, "acl") ? undefined : actor.id);
  return rows.map((r) => toView(origin, r));
}

/** `GET /api/sl/list`: every active link (administrators), newest first. */
export async function listActiveLinks(rc: RequestContext, actor: Actor, origin: string, skip = 0, take = GROUP_PAGE_SIZE): Promise<ShortlinkView[]> {
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
  const mask = entity ? await entityMask(rc, actor, entity) : 0;
  if (!holds(mask, "read")) throw new AppError("NOT_FOUND", ru.sharing.notFound);
  if (!holds(mask, "acl")) throw new AppError("FORBIDDEN", ru.sharing.notManager);
  return link;
}

/** `DELETE /api/sl/{id}`: revokes a link at once (its page and every media URL stop working). */
export async function revokeShortlink(rc: RequestContext, actor: Actor, linkId: string, visitor: Visitor): Promise<{ id: string; revoked: true }> {
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
    if (wantsDownload(set.acl) && !(await canAccess(rc, actorOf(creator), entity, "download"))) {
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

// ---------------------------------------------------------------------------------------------------------------
// Opening a link (anonymous)

/** Why a link does not open: each state has its own page and status. */
export type ClosedState =
  | { state: "not_found" }
  | { state: "revoked" }
  | { state: "expired"; at: number }
  | { state: "not_yet"; at: number }
  | { state: "password" };

/** A link that opens now, with its creator acting and the rights it still carries. */
export interface OpenLink {
  link: ShortlinkRow;
  creator: Actor;
  entity: SharedEntity;
  /** the link's rights cut down to what the creator holds now */
  mask: number;
}

/** The error an API call answers for a closed state. */
export function closedError(closed: ClosedState): AppError {
  switch (closed.state) {
    case "revoked":
      return new AppError("GONE", ru.sharing.revoked);
    case "expired":
      return new AppError("GONE", ru.sharing.expired(formatMoment(closed.at)));
    case "not_yet":
      return new AppError("FORBIDDEN", ru.sharing.notYet(formatMoment(closed.at)));
    case "password":
      return new AppError("UNAUTHORIZED", ru.sharing.passwordRequired);
    default:
      return new AppError("NOT_FOUND", ru.sharing.notFound);
  }
}

/**
 * Every rule of a link, checked now: it exists and is not revoked, the window is open, its creator exists and is
 * enabled, the item is live and the creator may still read and share it (download rights drop to viewing when the
 * creator lost download). The password is checked separately (`unlocked`).
 */
export async function resolveLink(rc: RequestContext, linkId: string, now = Date.now()): Promise<OpenLink | ClosedState> {
  const link = LINK_ID_PATTERN.test(linkId) ? await findShortlink(rc.db, linkId) : undefined;
  if (!link) return { state: "not_found" };
  if (link.revokedAt != null) return { state: "revoked" };
  if (link.notBefore != null && now < link.notBefore) return { state: "not_yet", at: link.notBefore };
  if (link.notAfter != null && now >= link.notAfter) return { state: "expired", at: link.notAfter };
  const [user, entity] = await Promise.all([findUserById(rc.db, link.creatorId), findEntity(rc, link.entityId, link.entityType)]);
  if (!user || !user.enabled || !entity) return { state: "not_found" };
  const creator = actorOf(user);
  const held = await entityMask(rc, creator, entity);
  if (!holds(held, "read") || !holds(held, SHARE_LEVEL)) return { state: "not_found" };
  const mask = holds(held, "download") ? link.acl : viewOnly(link.acl);
  return { link, creator, entity, mask };
}

async function unlockSignature(rc: RequestContext, link: ShortlinkRow, exp: number): Promise<string> {
  // Bound to the stored hash: changing or removing the password invalidates every unlock cookie of the link.
  const { sig } = await signLink(rc.config.JWT_SECRET, { purpose: "sl-media", id: `unlock:${link.id}:${link.passwordHash}`, userId: link.id, exp });
  return sig;
}

/** Whether a password link is unlocked by this cookie value (`<exp>.<sig>`); links without a password always are. */
export async function unlocked(rc: RequestContext, link: ShortlinkRow, cookie: string | undefined, now = Date.now()): Promise<boolean> {
  if (link.passwordHash == null) return true;
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{1,100})$/.exec(cookie ?? "");
  if (!match) return false;
  const exp = Number(match[1]);
  if (exp * 1000 <= now) return false;
  const expected = new TextEncoder().encode(await unlockSignature(rc, link, exp));
  return timingSafeEqual(expected, new TextEncoder().encode(match[2]));
}

function throttle(rc: RequestContext, key: string) {
  return rc.env.LOGIN_THROTTLE.get(rc.env.LOGIN_THROTTLE.idFromName(key));
}

/**
 * `POST /api/sl/info/{id}` and the page's password form: checks the password of an open link and answers the
 * unlock cookie (value and lifetime). Attempts are throttled per link (5 free, then doubling locks) and per client
 * IP (20 free) with the login throttle's Durable Object under keys of their own; every wrong one is audited.
 */
export async function unlockShortlink(
  rc: RequestContext,
  linkId: string,
  password: string,
  visitor: Visitor,
): Promise<{ cookie: string; maxAge: number }> {
  const open = await resolveLink(rc, linkId);
  if ("state" in open) throw closedError(open);
  const { link } = open;
  if (link.passwordHash == null) return { cookie: "", maxAge: 0 };
  const perLink = throttle(rc, `shortlink:${link.id}`);
  const perIp = visitor.ip ? throttle(rc, `shortlink-ip:${visitor.ip}`) : null;
  const kinds: [ThrottleKind, ThrottleKind] = ["account", "ip"];
  const wait = Math.max(await perLink.begin(kinds[0]), perIp ? await perIp.begin(kinds[1]) : 0);
  if (wait > 0) {
    const seconds = Math.max(1, Math.ceil(wait / 1000));
    throw new AppError("TOO_MANY_REQUESTS", ru.sharing.tooManyAttempts(seconds), { "Retry-After": String(seconds) });
  }
  if (!(await verifyPassword(password, link.passwordHash))) {
    await recordAudit(rc, {
      action: "shortlink.password_failed",
      actorId: null,
      objectType: link.entityType,
      objectId: link.entityId,
      details: { shortlink: link.id },
      ip: visitor.ip,
    });
    throw new AppError("UNAUTHORIZED", ru.sharing.wrongPassword);
  }
  rc.waitUntil(Promise.all([perLink.succeeded(kinds[0]), perIp?.succeeded(kinds[1])]));
  const exp = Math.floor(Date.now() / 1000) + UNLOCK_TTL_SECONDS;
  return { cookie: `${exp}.${await unlockSignature(rc, link, exp)}`, maxAge: UNLOCK_TTL_SECONDS };
}

// ---------------------------------------------------------------------------------------------------------------
// What an open link shows

export type MediaKind = "view" | "original" | "proxy" | "thumb" | "medium";

/** An asset as the public page shows it, with the link's own signed URLs (null where the link does not allow). */
export interface SharedAsset {
  asset_id: string;
  name: string;
  mimetype: string;
  size: number | null;
  thumb_url: string;
  preview_url: string;
  media_url: string;
  download_url: string | null;
  proxy_download_url: string | null;
}

export interface SharedInfo {
  id: string;
  password_required: false;
  entity_type: "asset" | "group";
  entity_id: string;
  name: string;
  creator_name: string;
  acl: ShareAcl[];
  time_range: [string | null, string | null];
  asset?: SharedAsset;
  group?: { items: SharedAsset[]; page: number; page_size: number; has_more: boolean };
}

async function mediaUrl(rc: RequestContext, link: ShortlinkRow, assetId: string, kind: MediaKind, now: number): Promise<string> {
  const exp = (Math.floor(now / 1000 / MEDIA_TTL_SECONDS) + 2) * MEDIA_TTL_SECONDS;
  const params = new URLSearchParams(await signLink(rc.config.JWT_SECRET, { purpose: "sl-media", id: `${link.id}:${assetId}:${kind}`, userId: link.creatorId, exp }));
  return `/api/sl/media/${link.id}/${assetId}/${kind}?${params}`;
}

async function sharedAsset(
  rc: RequestContext,
  open: OpenLink,
  a: { id: string; name: string; mimetype: string; size: number | null },
  now: number,
): Promise<SharedAsset> {
  const url = (kind: MediaKind) => mediaUrl(rc, open.link, a.id, kind, now);
  return {
    asset_id: a.id,
    name: a.name,
    mimetype: a.mimetype,
    size: a.size,
    thumb_url: await url("thumb"),
    preview_url: await url("medium"),
    media_url: await url("view"),
    download_url: allows(open.mask, "download") ? await url("original") : null,
    proxy_download_url: allows(open.mask, "download") || allows(open.mask, "download_proxy") ? await url("proxy") : null,
  };
}

/**
 * Opens a link for a visitor: its rules (`resolveLink`), then the password (the unlock cookie), then counts the
 * open and audits it with the client IP. Answers what the page shows: the asset, or one page (50) of the assets of
 * the group the creator may read.
 */
export async function openShortlink(
  rc: RequestContext,
  linkId: string,
  cookie: string | undefined,
  visitor: Visitor,
  page = 0,
): Promise<SharedInfo | ClosedState> {
  const now = Date.now();
  const open = await resolveLink(rc, linkId, now);
  if ("state" in open) return open;
  if (!(await unlocked(rc, open.link, cookie, now))) return { state: "password" };
  const { link, entity } = open;
  await rc.db.batch([
    countUseStatement(rc.db, link.id, "view", now),
    auditStatement(rc, { action: "shortlink.open", actorId: null, objectType: entity.type, objectId: entity.id, details: { shortlink: link.id, page }, ip: visitor.ip }),
  ]);
  const info: SharedInfo = {
    id: link.id,
    password_required: false,
    entity_type: entity.type,
    entity_id: entity.id,
    name: entity.name,
    creator_name: open.creator.name,
    acl: aclNames(open.mask),
    time_range: [iso(link.notBefore), iso(link.notAfter)],
  };
  if (entity.asset) {
    const variants = entity.asset.latestVersion > 0 ? await selectReadyVariants(rc.db, entity.id, entity.asset.latestVersion) : [];
    const main = mainVariant(variants) ?? variants[0];
    info.asset = await sharedAsset(rc, open, { id: entity.id, name: entity.name, mimetype: entity.asset.mime, size: main?.variant.contentSize ?? null }, now);
  } else {
    const { items } = await listMembers(rc, open.creator, entity.id, { type: "asset", skip: page * GROUP_PAGE_SIZE, take: GROUP_PAGE_SIZE + 1 });
    const visible = items.slice(0, GROUP_PAGE_SIZE).flatMap((m) => (m.el_type === "asset" ? [m] : []));
    info.group = {
      items: await Promise.all(visible.map((m) => sharedAsset(rc, open, { id: m.el_id, name: m.el_info.name, mimetype: m.el_info.mimetype, size: m.el_info.var_size }, now))),
      page,
      page_size: GROUP_PAGE_SIZE,
      has_more: items.length > GROUP_PAGE_SIZE,
    };
  }
  return info;
}

/** Password state of an open link for `GET /api/sl/info/{id}`: only that a password is needed. */
export function isClosed(value: SharedInfo | ClosedState): value is ClosedState {
  return "state" in value;
}

// ---------------------------------------------------------------------------------------------------------------
// Media through a link

function pickVariant(rows: readonly ReadyVariant[], kind: "view" | "original" | "proxy"): ReadyVariant | undefined {
  if (kind === "original") return mainVariant(rows) ?? rows[0];
  const order = kind === "view" ? VIEWABLE_ORDER : (["proxy_highres", "proxy_lowres"] as const);
  for (const type of order) {
    const found = rows.find((r) => r.variant.variantType === type);
    if (found) return found;
  }
  return undefined;
}

/**
 * `GET /api/sl/media/{link}/{asset}/{kind}`: bytes through a link. The signed URL must be for this link, asset and
 * kind and unexpired; then every rule of the link is checked again (revoked, window, creator, item, password
 * cookie), the asset must be the shared one or inside the shared group and readable by the creator, and downloads
 * need the link's download right and the creator's download right now. Views stream inline with Range; downloads
 * are attachments, counted and audited (a ranged continuation is not counted again).
 */
export async function shortlinkMedia(
  rc: RequestContext,
  linkId: string,
  assetId: string,
  kind: MediaKind,
  params: { u?: string; exp?: string; sig?: string },
  cookie: string | undefined,
  req: ContentRequest,
  visitor: Visitor,
): Promise<Response> {
  const denied = () => new AppError("FORBIDDEN", ru.sharing.mediaDenied);
  if (!LINK_ID_PATTERN.test(linkId) || !(await verifyLink(rc.config.JWT_SECRET, "sl-media", `${linkId}:${assetId}:${kind}`, params))) throw denied();
  const open = await resolveLink(rc, linkId);
  if ("state" in open) throw closedError(open);
  if (!(await unlocked(rc, open.link, cookie))) throw closedError({ state: "password" });
  const asset = open.entity.type === "asset" ? open.entity.asset : await findAsset(rc.db, assetId);
  if (!asset || asset.id !== assetId || asset.deletedAt != null) throw denied();
  if (open.entity.type === "group") {
    const inside = await assetInSubtree(rc.db, open.entity.id, assetId);
    if (!inside || !(await canAccess(rc, open.creator, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "read"))) throw denied();
  }
  if (kind === "thumb" || kind === "medium") {
    const preview = await findPreview(rc, open.creator, { assetId, version: asset.latestVersion, size: kind });
    if (req.ifNoneMatch === preview.etag) return new Response(null, { status: 304, headers: { ETag: preview.etag } });
    const object = await readPreview(rc, preview.storageKey);
    return new Response(object.body, {
      headers: { "Content-Type": preview.mimeType, ETag: preview.etag, "Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff" },
    });
  }
  const download = kind !== "view";
  if (download) {
    const allowed = kind === "original" ? allows(open.mask, "download") : allows(open.mask, "download") || allows(open.mask, "download_proxy");
    if (!allowed || !(await canAccess(rc, open.creator, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "download"))) throw denied();
  }
  const rows = asset.latestVersion > 0 ? await selectReadyVariants(rc.db, asset.id, asset.latestVersion) : [];
  const row = pickVariant(rows, kind);
  if (!row) throw new AppError("NOT_FOUND", ru.sharing.noContent);
  const response = await serveVariant(rc, row, { ...req, disposition: download ? "attachment" : "inline" });
  const firstBytes = !req.range || /^bytes=0-/.test(req.range.trim());
  if (download && firstBytes && response.status < 300) {
    await rc.db.batch([
      countUseStatement(rc.db, open.link.id, "download", Date.now()),
      auditStatement(rc, {
        action: "shortlink.download",
        actorId: null,
        objectType: "asset",
        objectId: asset.id,
        details: { shortlink: open.link.id, variant: row.variant.id, kind },
        ip: visitor.ip,
      }),
    ]);
  }
  return response;
}
