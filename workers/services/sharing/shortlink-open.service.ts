/** Using a short link anonymously: opening it (password, limits, expiry) and what it shows (its media: shortlink-media.service.ts). */
import { ru } from "../../../shared/i18n/ru";
import { ipThrottleKey, shortlinkThrottleKey, type ThrottleKind } from "../../../durable-objects/login-throttle.policy";
import type { LibraryShardDO, Written } from "../../../durable-objects/library-shard.do";
import { noLibrarySwitched, openLibraryShard, placeOfId, type LibraryPlace, type ShardPlace } from "../../db/library-directory";
import { callShard, type ShardAnswer } from "../../db/library-shard-call";
import { readCallerCopy, type CallerCopy } from "../../db/repositories/caller-copy.repository";
import { selectReadyVariants } from "../../db/repositories/asset-versions.repository";
import { findShortlink } from "../../db/repositories/shortlink.repository";
import { findUserById } from "../../db/repositories/user.repository";
import { ancestorsOf, findGroup, isInSubtree } from "../../db/repositories/group.repository";
import { previewsOfAssets } from "../../db/repositories/preview.repository";
import type { ShortlinkRow, UserRow } from "../../db/schema/index";
import { timingSafeEqual } from "../../lib/crypto";
import { AppError } from "../../lib/errors";
import { verifyPassword } from "../../lib/password";
import { signLink } from "../../lib/signed-url";
import { canAccess, auditStatement, onShard } from "../access";
import { listItems } from "../collections";
import { holds } from "../access/pure";
import { mainVariant, GROUP_PAGE_SIZE, listMembers, writeBackNow } from "../library";
import type { Actor, RequestContext } from "../access";
import { countLinkUses } from "./link-use";
import { aclNames, allows, viewOnly, type ShareAcl } from "./shortlink-acl";
import { sharedZipUrl } from "./shortlink-zip.service";
import {
  LINK_ID_PATTERN,
  UNLOCK_TTL_SECONDS,
  SHARE_LEVEL,
  MEDIA_TTL_SECONDS,
  type Visitor,
  iso,
  formatMoment,
  actorOf,
  type SharedEntity,
  type SharedType,
  findEntity,
  heldMask,
} from "./shortlink.service";

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
  /** where the shared file or folder's library lives (decision 043): its opens are counted there. Unasked in a shard */
  place?: LibraryPlace;
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
  const found = await linkAndItem(rc, linkId, now, false);
  return "state" in found ? found : openOf(rc, found);
}

/** A link's row, its maker and item as this database has them, and where the item's library lives. */
interface FoundLink {
  link: ShortlinkRow;
  user: UserRow | undefined;
  entity: SharedEntity | undefined;
  place: LibraryPlace | undefined;
  /** the maker's copy, for a read in the item's shard: asked beside the rows once a library may live in one */
  makerCopy: CallerCopy | null;
}

async function linkAndItem(rc: RequestContext, linkId: string, now: number, withMakerCopy: boolean): Promise<FoundLink | ClosedState> {
  const link = LINK_ID_PATTERN.test(linkId) ? await findShortlink(rc.db, linkId) : undefined;
  if (!link) return { state: "not_found" };
  if (link.revokedAt != null) return { state: "revoked" };
  if (link.notBefore != null && now < link.notBefore) return { state: "not_yet", at: link.notBefore };
  if (link.notAfter != null && now >= link.notAfter) return { state: "expired", at: link.notAfter };
  // The place is asked beside the rows (no query at all while no library lives in a shard): counting an open then
  // goes straight where the library lives, without a refused write first (decision 030). In a shard, it is the place.
  const here = onShard(rc);
  const [user, entity, place, makerCopy] = await Promise.all([
    findUserById(rc.db, link.creatorId),
    findEntity(rc, link.entityId, link.entityType),
    here ? undefined : placeOfId(rc.db.$client, link.entityId),
    withMakerCopy && !here && !noLibrarySwitched() && link.entityType !== "collection" ? readCallerCopy(rc.db, link.creatorId) : null,
  ]);
  return { link, user, entity, place, makerCopy };
}

/** The rest of a link's rules on what `linkAndItem` found: its maker enabled, its item live, his rights on it now. */
async function openOf(rc: RequestContext, { link, user, entity, place }: FoundLink): Promise<OpenLink | ClosedState> {
  if (!user || !user.enabled || !entity) return { state: "not_found" };
  const creator = actorOf(user);
  const held = await heldMask(rc, creator, entity);
  if (!holds(held, "read") || !holds(held, SHARE_LEVEL)) return { state: "not_found" };
  const mask = holds(held, "download") ? link.acl : viewOnly(link.acl);
  return { link, creator, entity, mask, place };
}

async function unlockSignature(rc: RequestContext, link: ShortlinkRow, exp: number): Promise<string> {
  // Bound to the stored hash: changing or removing the password invalidates every unlock cookie of the link.
  const { sig } = await signLink(rc.config.JWT_SECRET, {
    purpose: "sl-media",
    id: `unlock:${link.id}:${link.passwordHash}`,
    userId: link.id,
    exp,
  });
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
 * unlock cookie (value and lifetime). Attempts are throttled per (link, client address) — 5 free, then doubling
 * locks, so failing from one address never locks the link for visitors elsewhere — and per client address (20 free)
 * with the login throttle's Durable Object under keys of their own; every wrong one is audited, and so is the
 * failure that starts a lock (`shortlink.password_locked`).
 */
async function unlockShortlink(
  rc: RequestContext,
  linkId: string,
  password: string,
  visitor: Visitor,
): Promise<{ cookie: string; maxAge: number }> {
  const open = await resolveLink(rc, linkId);
  if ("state" in open) throw closedError(open);
  const { link } = open;
  if (link.passwordHash == null) return { cookie: "", maxAge: 0 };
  const perLink = throttle(rc, shortlinkThrottleKey(link.id, visitor.ip));
  const perIp = visitor.ip ? throttle(rc, `shortlink-${ipThrottleKey(visitor.ip)}`) : null;
  const kinds: [ThrottleKind, ThrottleKind] = ["account", "ip"];
  const wait = Math.max(await perLink.begin(kinds[0]), perIp ? await perIp.begin(kinds[1]) : 0);
  if (wait > 0) {
    const seconds = Math.max(1, Math.ceil(wait / 1000));
    throw new AppError("TOO_MANY_REQUESTS", ru.sharing.tooManyAttempts(seconds), { "Retry-After": String(seconds) });
  }
  if (!(await verifyPassword(password, link.passwordHash))) {
    // `begin` counted this attempt before the check: a lock in place now is the one this failure started
    const [linkLock, ipLock] = await Promise.all([perLink.retryAfterMs(), perIp?.retryAfterMs() ?? 0]);
    const failed = { actorId: null, objectType: link.entityType, objectId: link.entityId, ip: visitor.ip };
    await rc.db.batch([
      auditStatement(rc, { ...failed, action: "shortlink.password_failed", details: { shortlink: link.id } }),
      ...(linkLock > 0 || ipLock > 0
        ? [
            auditStatement(rc, {
              ...failed,
              action: "shortlink.password_locked",
              details: { shortlink: link.id, scope: linkLock > 0 ? "link_address" : "address", seconds: Math.ceil(Math.max(linkLock, ipLock) / 1000) },
            }),
          ]
        : []),
    ]);
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
  /** null when the file has no preview: the page shows the type's icon and asks for nothing */
  thumb_url: string | null;
  preview_url: string | null;
  media_url: string;
  download_url: string | null;
  proxy_download_url: string | null;
}

export interface SharedInfo {
  id: string;
  password_required: false;
  entity_type: SharedType;
  entity_id: string;
  name: string;
  creator_name: string;
  acl: ShareAcl[];
  time_range: [string | null, string | null];
  asset?: SharedAsset;
  /** a folder's page; a collection's page has the same shape (no sub-folders, its items in collection order) */
  group?: SharedFolderPage;
}

/** A folder inside a shared folder (the shared one included). */
export interface SharedFolder {
  group_id: string;
  name: string;
}

/** One page of the folder a visitor is in: its sub-folders first, then its files (50 a page). */
export interface SharedFolderPage {
  /** the folder shown: the shared one or a folder below it */
  folder_id: string;
  /** from the shared folder down to the one shown (never above the shared folder) */
  path: SharedFolder[];
  folders: SharedFolder[];
  items: SharedAsset[];
  page: number;
  page_size: number;
  has_more: boolean;
  /** the folder's files as one ZIP, when the link allows originals */
  zip_url: string | null;
}

async function mediaUrl(rc: RequestContext, link: ShortlinkRow, assetId: string, kind: MediaKind, now: number): Promise<string> {
  const exp = (Math.floor(now / 1000 / MEDIA_TTL_SECONDS) + 2) * MEDIA_TTL_SECONDS;
  const params = new URLSearchParams(
    // The link's own id stands in the user slot: an anonymous URL never names the creator.
    await signLink(rc.config.JWT_SECRET, { purpose: "sl-media", id: `${link.id}:${assetId}:${kind}`, userId: link.id, exp }),
  );
  return `/api/sl/media/${link.id}/${assetId}/${kind}?${params}`;
}

async function sharedAsset(
  rc: RequestContext,
  open: OpenLink,
  a: { id: string; name: string; mimetype: string; size: number | null; hasPreview: boolean },
  now: number,
): Promise<SharedAsset> {
  const url = (kind: MediaKind) => mediaUrl(rc, open.link, a.id, kind, now);
  return {
    asset_id: a.id,
    name: a.name,
    mimetype: a.mimetype,
    size: a.size,
    thumb_url: a.hasPreview ? await url("thumb") : null,
    preview_url: a.hasPreview ? await url("medium") : null,
    media_url: await url("view"),
    download_url: allows(open.mask, "download") ? await url("original") : null,
    proxy_download_url: allows(open.mask, "download") || allows(open.mask, "download_proxy") ? await url("proxy") : null,
  };
}

/**
 * Opens a link for a visitor: its rules (`resolveLink`), then the password (the unlock cookie), then counts the
 * open and audits it with the client IP. Answers what the page shows: the asset, or one page (50) of a folder the
 * creator may read — the shared one, or `folder` below it (anything outside the shared subtree is not found).
 */
export async function openShortlink(
  rc: RequestContext,
  linkId: string,
  cookie: string | undefined,
  visitor: Visitor,
  page = 0,
  folder?: string,
): Promise<SharedInfo | ClosedState> {
  const now = Date.now();
  const found = await linkAndItem(rc, linkId, now, true);
  if ("state" in found) return found;
  if (found.place?.place === "shard" && found.makerCopy) {
    const there = await openInShard(rc, found.place, found.makerCopy, found.link, { cookie, visitor, page, folder });
    if (there) return there;
  }
  const open = await openOf(rc, found);
  if ("state" in open) return open;
  if (!(await unlocked(rc, open.link, cookie, now))) return { state: "password" };
  const { link, entity, place } = open;
  const shown = folder ?? entity.id;
  if (folder !== undefined && (entity.type !== "group" || !(await folderInside(rc, open, folder)))) return { state: "not_found" };
  // The count and the audit row are written while the page's own rows are read (decision 030): nothing read
  // below depends on them, and the answer still waits for the write.
  const counted = countLinkUses(rc, [{ linkId: link.id, entityId: entity.id, kind: "view", n: 1, last: now, place }], [
    auditStatement(rc, {
      action: "shortlink.open",
      actorId: null,
      objectType: entity.type,
      objectId: entity.id,
      details: { shortlink: link.id, page },
      ip: visitor.ip,
    }),
  ]);
  counted.catch(() => {});
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
    const [variants, [thumb]] = await Promise.all([
      entity.asset.latestVersion > 0 ? selectReadyVariants(rc.db, entity.id, entity.asset.latestVersion) : [],
      previewsOfAssets(rc.db, [entity.id], "thumb", null),
      counted,
    ]);
    const main = mainVariant(variants) ?? variants[0];
    const hasPreview = thumb?.preview_id != null;
    info.asset = await sharedAsset(
      rc,
      open,
      { id: entity.id, name: entity.name, mimetype: entity.asset.mime, size: main?.variant.contentSize ?? null, hasPreview },
      now,
    );
  } else if (entity.type === "collection") {
    // The creator's items only, through the same rights filter as the collection's own page, checked now.
    const [{ total, items }] = await Promise.all([
      listItems(rc, open.creator, entity.id, { skip: page * GROUP_PAGE_SIZE, take: GROUP_PAGE_SIZE }),
      counted,
    ]);
    info.group = {
      folder_id: entity.id,
      path: [{ group_id: entity.id, name: entity.name }],
      folders: [],
      items: await Promise.all(
        items.map((m) =>
          sharedAsset(rc, open, { id: m.asset_id, name: m.name, mimetype: m.mimetype, size: m.var_size, hasPreview: m.preview !== null }, now),
        ),
      ),
      page,
      page_size: GROUP_PAGE_SIZE,
      has_more: (page + 1) * GROUP_PAGE_SIZE < total,
      zip_url: total > 0 ? await sharedZipUrl(rc, open, entity.id, now) : null,
    };
  } else {
    const [{ items }] = await Promise.all([
      listMembers(rc, open.creator, shown, { skip: page * GROUP_PAGE_SIZE, take: GROUP_PAGE_SIZE + 1 }),
      counted,
    ]);
    const onPage = items.slice(0, GROUP_PAGE_SIZE);
    const files = onPage.flatMap((m) => (m.el_type === "asset" ? [m] : []));
    info.group = {
      folder_id: shown,
      path: await pathFrom(rc, entity.id, shown),
      folders: onPage.flatMap((m) => (m.el_type === "group" ? [{ group_id: m.el_id, name: m.el_info.name }] : [])),
      items: await Promise.all(
        files.map((m) =>
          sharedAsset(
            rc,
            open,
            {
              id: m.el_id,
              name: m.el_info.name,
              mimetype: m.el_info.mimetype,
              size: m.el_info.var_size,
              hasPreview: m.el_info.preview !== null,
            },
            now,
          ),
        ),
      ),
      page,
      page_size: GROUP_PAGE_SIZE,
      has_more: items.length > GROUP_PAGE_SIZE,
      zip_url: onPage.length > 0 ? await sharedZipUrl(rc, open, shown, now) : null,
    };
  }
  return info;
}

/** What a visitor asks of an open link: his unlock cookie and address, the page, and a folder below the shared one. */
export interface LinkView {
  cookie: string | undefined;
  visitor: Visitor;
  page: number;
  folder?: string;
}

type OpeningShard = Pick<LibraryShardDO, "openLink" | "unlockLink" | "writeback" | "writtenBack">;

/**
 * A link to a file or folder of a library that lives in its shard, opened there (decision 051): the link's row, its
 * maker's rights, the unlock cookie and the page's rows read, the open counted and audited, in one call carrying the
 * maker's copy. What it wrote reaches the catalog by the writeback after the answer. Null: the catalog's copy answers
 * (a file listed in another library too, a change across holding the library).
 */
function openInShard(
  rc: RequestContext,
  place: ShardPlace,
  maker: CallerCopy,
  link: ShortlinkRow,
  view: LinkView,
): Promise<SharedInfo | ClosedState | null> {
  return inLinkShard(rc, place, maker, (shard, actor) => shard.openLink(maker, actor, place.library, link.id, link.entityId, view));
}

/** One call to the shard of a link's item as its maker; what the call wrote is written back after the answer. */
async function inLinkShard<T>(
  rc: RequestContext,
  place: ShardPlace,
  maker: CallerCopy,
  call: (shard: OpeningShard, actor: Actor) => Promise<ShardAnswer<Written<T> | null>>,
): Promise<T | null> {
  const shard = (await openLibraryShard(rc.env, place)) as unknown as OpeningShard;
  const done = await callShard(place.name, () => call(shard, actorOf(maker.user)), rc.dbSession.meter);
  if (!done) return null;
  rc.waitUntil(writeBackNow(rc, shard, place.library, done.writeback));
  return done.value;
}

/** A password accepted: the unlock cookie (empty for a link without one), its lifetime, and the page when asked. */
export interface Unlocked {
  cookie: string;
  maxAge: number;
  info?: SharedInfo | ClosedState;
}

/** Which page of a link an unlock opens with its cookie (the API's answer; the page's form reloads instead). */
export type UnlockedPage = { page: number; folder?: string } | undefined;

/** The password checked (`unlockShortlink`), then, when asked, the page opened with the cookie it answers. */
export async function unlockAndOpen(rc: RequestContext, linkId: string, password: string, visitor: Visitor, page: UnlockedPage): Promise<Unlocked> {
  const { cookie, maxAge } = await unlockShortlink(rc, linkId, password, visitor);
  if (!page) return { cookie, maxAge };
  return { cookie, maxAge, info: await openShortlink(rc, linkId, cookie || undefined, visitor, page.page, page.folder) };
}

/**
 * `POST /api/sl/info/{id}` and the page's password form: a link to a library that lives in its shard is unlocked
 * there (decision 051) — the password checked against the shard's row, a wrong one audited there (its rows written
 * back like an open's), and the page opened in the same call; anything else over the catalog.
 */
export async function unlockLink(rc: RequestContext, linkId: string, password: string, visitor: Visitor, page: UnlockedPage): Promise<Unlocked> {
  // Until a library lives in a shard, no read ahead of the catalog's own.
  const found = noLibrarySwitched() ? null : await linkAndItem(rc, linkId, Date.now(), true);
  if (found && !("state" in found) && found.place?.place === "shard" && found.makerCopy) {
    const { place, link, makerCopy } = found;
    const there = await inLinkShard(rc, place, makerCopy, (shard, actor) =>
      shard.unlockLink(makerCopy, actor, place.library, link.id, link.entityId, password, visitor, page),
    );
    if (there) {
      if (!there.ok) throw new AppError(there.code, there.message, there.headers);
      return there.value;
    }
  }
  return unlockAndOpen(rc, linkId, password, visitor, page);
}

/** Whether `folder` is a live folder inside the shared one (or the shared one) that the creator may read. */
export async function folderInside(rc: RequestContext, open: OpenLink, folder: string): Promise<boolean> {
  if (!LINK_FOLDER_PATTERN.test(folder) || !(await isInSubtree(rc.db, open.entity.id, folder))) return false;
  const row = await findGroup(rc.db, folder);
  if (!row || row.deletedAt != null) return false;
  return canAccess(rc, open.creator, { id: row.id, type: "group", ownerId: row.ownerId }, "read");
}

/** Breadcrumbs from the shared folder down to `folder`: the folders above the shared one are never named. */
async function pathFrom(rc: RequestContext, sharedId: string, folder: string): Promise<SharedFolder[]> {
  const chain = await ancestorsOf(rc.db, folder);
  const start = chain.findIndex((a) => a.id === sharedId);
  return chain.slice(Math.max(0, start)).map((a) => ({ group_id: a.id, name: a.name }));
}

/** What a folder id in a visitor's URL may look like (checked before any lookup). */
const LINK_FOLDER_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Password state of an open link for `GET /api/sl/info/{id}`: only that a password is needed. */
export function isClosed(value: SharedInfo | ClosedState): value is ClosedState {
  return "state" in value;
}
