/**
 * The edge cache of anonymous shared-link answers (issue 27 item 4; docs/security.md «Edge cache»): the `/sl/{id}`
 * page, `GET /api/sl/info/{id}` and the link's preview images go through the Cache API (`caches.default`).
 *
 * Safe by construction:
 * - only links without a password, not revoked and inside their window are ever looked up or stored; a password
 *   link always runs every rule and its unlock cookie (a forged cookie changes nothing: it is never part of a key);
 * - the key is built from what the server checked, never from the raw URL: the link id as stored, the kinds of
 *   query the answer depends on (`page` as a number, `folder` when well-formed, sorted; anything else dropped) and
 *   the `shared` cache revision that triggers bump in the same statement as any change to what a link shows
 *   (migration 0023), so an entry written before a change is never read after it;
 * - only a 200 without Set-Cookie is stored, pages only for requests without a session (the page's root data names
 *   the signed-in user), and entries live at most five minutes and never past the link's end.
 */
import { probeShortlink, type ShortlinkProbe } from "../../db/repositories/shortlink.repository";
import { ifNoneMatch } from "../../lib/http-range";
import { auditStatement, refreshCookieName, type RequestContext } from "../access";
import type { ContentRequest } from "../library";
import { countLinkUses, type LinkUse } from "./link-use";
import { requireMediaSignature, shortlinkMedia, type MediaTargetRead } from "./shortlink-media.service";
import type { MediaKind } from "./shortlink-open.service";
import { LINK_ID_PATTERN, type Visitor } from "./shortlink.service";

/** Answers through the cache say `hit`, `miss` (computed and stored) or `bypass` (not eligible: computed only). */
export const CACHE_STATUS_HEADER = "x-mam-cache";
export type CacheStatus = "hit" | "miss" | "bypass";

/** How long an entry may be read at most (the signed media URLs inside live at least an hour). */
export const EDGE_TTL_SECONDS = 300;

/** The page's CSP nonce the stored HTML was rendered with: replaced by each answer's own nonce on a hit. */
const NONCE_HEADER = "x-mam-nonce";
/** When a stored page stops being served (epoch ms), so a copy kept in memory never outlives the stored entry. */
const EXPIRES_HEADER = "x-mam-expires";
const FOLDER_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const PAGE_PATH = /^\/sl\/([A-Za-z0-9_-]{22})$/;

function edgeCache(): Cache | null {
  return typeof caches === "undefined" ? null : (caches as unknown as { default: Cache }).default;
}

/** Where an eligible answer is stored: its normalised key, lifetime and the link as probed. */
export interface SharedCacheSlot {
  key: Request;
  ttl: number;
  probe: ShortlinkProbe;
}

/**
 * The cache slot of a link's answer, or null when it must not be cached: unknown, revoked, outside its window, or
 * protected by a password. One indexed read (the link and the revision together).
 */
export async function sharedCacheSlot(
  rc: RequestContext,
  origin: string,
  kind: "page" | "info" | "media",
  linkId: string,
  parts: Record<string, string | number | undefined>,
  now = Date.now(),
): Promise<SharedCacheSlot | null> {
  if (!edgeCache() || !LINK_ID_PATTERN.test(linkId)) return null;
  const probe = await probeShortlink(rc.db, linkId);
  if (!probe || probe.locked || probe.revokedAt != null) return null;
  // No trigger bumps the revision when a collection's items, name or roles change: its links are never cached.
  if (probe.entityType === "collection") return null;
  if (probe.notBefore != null && now < probe.notBefore) return null;
  const ttl = Math.min(EDGE_TTL_SECONDS, probe.notAfter == null ? EDGE_TTL_SECONDS : Math.floor((probe.notAfter - now) / 1000));
  if (ttl < 1) return null;
  const url = new URL(`/__edge-cache/sl/${kind}/${probe.id}/r${probe.revision}`, origin);
  for (const name of Object.keys(parts).sort()) {
    const value = parts[name];
    if (value !== undefined && value !== "") url.searchParams.set(name, String(value));
  }
  return { key: new Request(url.href), ttl, probe };
}

async function read(slot: SharedCacheSlot): Promise<Response | undefined> {
  return edgeCache()?.match(slot.key);
}

/** Stores a copy for at most the slot's lifetime; only a 200 without Set-Cookie ever is. */
function store(rc: RequestContext, slot: SharedCacheSlot, body: BodyInit, headers: HeadersInit, status: number, setCookie: boolean): void {
  const cache = edgeCache();
  if (!cache || status !== 200 || setCookie) return;
  const stored = new Headers(headers);
  stored.set("Cache-Control", `public, max-age=${slot.ttl}`);
  stored.delete(CACHE_STATUS_HEADER);
  stored.delete("set-cookie");
  rc.waitUntil(cache.put(slot.key, new Response(body, { status: 200, headers: stored })));
}

/** How long opens answered from the cache are gathered before they are written together. */
const COUNT_FLUSH_MS = 250;

interface CachedOpen {
  probe: ShortlinkProbe;
  page: number;
  ip: string | null;
  at: number;
}

/** Opens answered from the cache in this isolate and not yet written; the flush that will write them is scheduled. */
let pendingOpens: CachedOpen[] = [];
let flushScheduled = false;

/**
 * An answer from the cache is still an open: counted and audited like `openShortlink` does, after the answer. The
 * opens of the next quarter second are gathered and written in one batch (one counter update per link, one audit
 * row per open), from the `waitUntil` of the request that started the window — the same guarantee as a write of
 * its own, at one round trip for many opens instead of one each.
 */
function countCachedOpen(rc: RequestContext, probe: ShortlinkProbe, page: number, visitor: Visitor): void {
  pendingOpens.push({ probe, page, ip: visitor.ip, at: Date.now() });
  if (flushScheduled) return;
  flushScheduled = true;
  rc.waitUntil(new Promise((resolve) => setTimeout(resolve, COUNT_FLUSH_MS)).then(() => flushOpens(rc)));
}

async function flushOpens(rc: RequestContext): Promise<void> {
  const opens = pendingOpens;
  pendingOpens = [];
  flushScheduled = false;
  if (opens.length === 0) return;
  const perLink = new Map<string, LinkUse>();
  for (const open of opens) {
    const seen = perLink.get(open.probe.id) ?? { linkId: open.probe.id, entityId: open.probe.entityId, kind: "view" as const, n: 0, last: 0 };
    perLink.set(open.probe.id, { ...seen, n: seen.n + 1, last: Math.max(seen.last, open.at) });
  }
  const audits = opens.map((open) =>
    auditStatement(rc, {
      action: "shortlink.open",
      actorId: null,
      objectType: open.probe.entityType,
      objectId: open.probe.entityId,
      details: { shortlink: open.probe.id, page: open.page },
      ip: open.ip,
    }),
  );
  await countLinkUses(rc, [...perLink.values()], audits);
}

/** The parts of a page or info query an answer depends on, normalised; null when `folder` is malformed. */
export function viewParts(params: URLSearchParams): { page: number; folder?: string } | null {
  const page = Math.min(100_000, Math.max(0, Number.parseInt(params.get("page") ?? "0", 10) || 0));
  const folder = params.get("folder") ?? undefined;
  if (folder !== undefined && !FOLDER_PATTERN.test(folder)) return null;
  return { page, folder };
}

/**
 * Remix answers the same path with loader data instead of the document when asked by a query parameter (`_data`,
 * and single fetch's `_routes`): those answers are not the page the cache holds, and the key drops unknown
 * parameters, so they must never be looked up nor stored.
 */
const DATA_REQUEST_PARAMS = ["_data", "_routes"];

function isDataRequest(params: URLSearchParams): boolean {
  return DATA_REQUEST_PARAMS.some((name) => params.has(name));
}

function hasCookie(request: Request, name: string): boolean {
  return (request.headers.get("cookie") ?? "").split(";").some((part) => part.trim().startsWith(`${name}=`));
}

/**
 * A page entry as the isolate keeps it: the HTML already cut at its nonce (an answer joins the pieces with its own),
 * the headers to answer with, and when it stops being served.
 */
interface HeldPage {
  pieces: string[];
  headers: [string, string][];
  expires: number;
  bytes: number;
}

/**
 * The isolate's copies of pages it stored or read from `caches.default`, under the same key (link id, revision,
 * normalised query): an entry is only ever looked up after this request's probe said the link is open and named the
 * revision, exactly like the shared cache, so it adds no staleness; it saves the shared cache's lookup and the copy
 * of the body on a hit (issue 27 item 6). Bounded: the most recently stored pages, up to HELD_MAX_BYTES.
 */
const held = new Map<string, HeldPage>();
const HELD_MAX_ENTRIES = 64;
const HELD_MAX_BYTES = 4 * 1024 * 1024;
let heldBytes = 0;

function holdPage(key: string, page: HeldPage): void {
  if (page.bytes > HELD_MAX_BYTES / 8) return;
  const previous = held.get(key);
  if (previous) {
    held.delete(key);
    heldBytes -= previous.bytes;
  }
  held.set(key, page);
  heldBytes += page.bytes;
  for (const [oldest, entry] of held) {
    if (held.size <= HELD_MAX_ENTRIES && heldBytes <= HELD_MAX_BYTES) break;
    held.delete(oldest);
    heldBytes -= entry.bytes;
  }
}

function heldPage(key: string, now: number): HeldPage | undefined {
  const page = held.get(key);
  if (!page || page.expires > now) return page;
  held.delete(key);
  heldBytes -= page.bytes;
  return undefined;
}

/** A page to keep: its HTML cut at `nonce`, its answer headers without the cache's own. */
function pageToHold(html: string, nonce: string | null, headers: Headers, expires: number): HeldPage {
  const kept: [string, string][] = [];
  for (const [name, value] of headers) {
    if (name !== NONCE_HEADER && name !== EXPIRES_HEADER && name !== "cache-control" && name !== "content-length") kept.push([name, value]);
  }
  kept.push(["cache-control", "no-store"], [CACHE_STATUS_HEADER, "hit"]);
  return { pieces: nonce ? html.split(nonce) : [html], headers: kept, expires, bytes: html.length * 2 };
}

/**
 * The `/sl/{id}` page through the cache. `render` is the page as Remix answers it with this request's nonce; a hit
 * answers the stored HTML with its nonce replaced by this answer's own, so a nonce is never served twice. The
 * isolate's copy (`held`) is tried first, then the shared cache; both only under the key this request's probe built.
 */
export async function cachedSharedPage(
  rc: RequestContext,
  request: Request,
  nonce: string,
  render: () => Promise<Response>,
): Promise<Response> {
  const url = new URL(request.url);
  const id = PAGE_PATH.exec(url.pathname)?.[1];
  const parts = viewParts(url.searchParams);
  const signedIn = request.headers.has("authorization") || hasCookie(request, refreshCookieName(url));
  const slot =
    request.method === "GET" && id && parts && !signedIn && !isDataRequest(url.searchParams)
      ? await sharedCacheSlot(rc, url.origin, "page", id, { page: parts.page, folder: parts.folder })
      : null;
  if (slot) {
    const now = Date.now();
    let page = heldPage(slot.key.url, now);
    if (!page) {
      const hit = await read(slot);
      if (hit) {
        // Entries stored before the expiry header existed live their Cache-Control; the copy then lives the slot's.
        const expires = Math.min(Number(hit.headers.get(EXPIRES_HEADER)) || Infinity, now + slot.ttl * 1000);
        page = pageToHold(await hit.text(), hit.headers.get(NONCE_HEADER), hit.headers, expires);
        holdPage(slot.key.url, page);
      }
    }
    if (page) {
      countCachedOpen(rc, slot.probe, parts?.page ?? 0, { ip: request.headers.get("cf-connecting-ip") });
      return new Response(page.pieces.join(nonce), { status: 200, headers: page.headers });
    }
  }
  const response = await render();
  const contentType = response.headers.get("content-type") ?? "";
  if (!slot || response.status !== 200 || !contentType.startsWith("text/html") || response.headers.has("set-cookie")) {
    const answer = new Response(response.body, response);
    answer.headers.set(CACHE_STATUS_HEADER, "bypass");
    return answer;
  }
  const html = await response.text();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  const expires = Date.now() + slot.ttl * 1000;
  store(rc, slot, html, [...headers, [NONCE_HEADER, nonce], [EXPIRES_HEADER, String(expires)]], 200, false);
  holdPage(slot.key.url, pageToHold(html, nonce, headers, expires));
  headers.set(CACHE_STATUS_HEADER, "miss");
  return new Response(html, { status: 200, headers });
}

/**
 * `GET /api/sl/info/{id}` through the cache: the stored JSON on a hit (the open counted), else null and the slot
 * to store the computed answer in (`storeSharedInfo`).
 */
export async function cachedSharedInfo(
  rc: RequestContext,
  origin: string,
  id: string,
  view: { page: number; folder?: string },
  visitor: Visitor,
): Promise<{ hit: Response | null; slot: SharedCacheSlot | null }> {
  const slot = await sharedCacheSlot(rc, origin, "info", id, { page: view.page, folder: view.folder });
  const hit = slot && (await read(slot));
  if (!slot || !hit) return { hit: null, slot };
  countCachedOpen(rc, slot.probe, view.page, visitor);
  const headers = new Headers(hit.headers);
  headers.set("Cache-Control", "no-store");
  headers.set(CACHE_STATUS_HEADER, "hit");
  return { hit: new Response(hit.body, { status: 200, headers }), slot };
}

/** Stores an open link's info answer (never a password answer: those links have no slot). */
export function storeSharedInfo(rc: RequestContext, slot: SharedCacheSlot, info: unknown): void {
  store(rc, slot, JSON.stringify(info), { "Content-Type": "application/json", "X-Robots-Tag": "noindex" }, 200, false);
}

/**
 * `GET /api/sl/media/…` through the cache for previews (thumb, medium): the signature is checked first (the key
 * does not hold it), then a hit answers the stored image, or 304 when If-None-Match names its ETag. Views and
 * downloads are never cached: they stream ranges of large objects, and downloads are counted.
 */
export async function cachedShortlinkMedia(
  rc: RequestContext,
  origin: string,
  linkId: string,
  assetId: string,
  kind: MediaKind,
  params: { u?: string; exp?: string; sig?: string },
  cookie: string | undefined,
  req: ContentRequest,
  /** what the URL serves, found where the file's library lives (the route's routed read) */
  target?: MediaTargetRead,
): Promise<Response> {
  const preview = kind === "thumb" || kind === "medium";
  if (!preview) return shortlinkMedia(rc, linkId, assetId, kind, params, cookie, req, target);
  await requireMediaSignature(rc, linkId, assetId, kind, params);
  const slot = await sharedCacheSlot(rc, origin, "media", linkId, { asset: assetId, kind });
  const hit = slot && (await read(slot));
  if (hit) {
    const etag = hit.headers.get("etag") ?? "";
    const headers = new Headers(hit.headers);
    headers.set("Cache-Control", "private, max-age=3600");
    headers.set(CACHE_STATUS_HEADER, "hit");
    if (etag && ifNoneMatch(req.ifNoneMatch, etag)) {
      await hit.body?.cancel();
      return new Response(null, { status: 304, headers: { ETag: etag, "Cache-Control": "private, max-age=3600", [CACHE_STATUS_HEADER]: "hit" } });
    }
    return new Response(hit.body, { status: 200, headers });
  }
  const response = await shortlinkMedia(rc, linkId, assetId, kind, params, cookie, req, target);
  if (!slot || response.status !== 200 || !response.body) {
    const answer = new Response(response.body, response);
    answer.headers.set(CACHE_STATUS_HEADER, slot ? "miss" : "bypass");
    return answer;
  }
  const [forClient, forCache] = response.body.tee();
  store(rc, slot, forCache, response.headers, 200, response.headers.has("set-cookie"));
  const answer = new Response(forClient, response);
  answer.headers.set(CACHE_STATUS_HEADER, "miss");
  return answer;
}
