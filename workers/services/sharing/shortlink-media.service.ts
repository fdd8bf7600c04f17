/**
 * Bytes through a shared link's signed media URL (`GET /api/sl/media/{link}/{asset}/{kind}`): what the URL may serve,
 * decided where the file's library lives (a routed read, decision 051), and the serving, counting and audit in the
 * Worker.
 */
import { ru } from "../../../shared/i18n/ru";
import { knownPlaceOfId, type LibraryPlace } from "../../db/library-directory";
import { findAsset, firstFolderOf } from "../../db/repositories/asset.repository";
import { selectReadyVariants, type ReadyVariant } from "../../db/repositories/asset-versions.repository";
import { assetInSubtree } from "../../db/repositories/shortlink.repository";
import { AppError } from "../../lib/errors";
import { ifNoneMatch } from "../../lib/http-range";
import { verifyLink } from "../../lib/signed-url";
import { auditDownloadStatement, canAccess, onShard, type RequestContext } from "../access";
import { collectionHoldsReadable } from "../collections";
import { serveVariant, VIEWABLE_ORDER, type ContentRequest, mainVariant } from "../library";
import { findPreview, readPreview } from "../media";
import { countLinkUses } from "./link-use";
import { allows } from "./shortlink-acl";
import { closedError, resolveLink, unlocked, type MediaKind } from "./shortlink-open.service";
import { LINK_ID_PATTERN, type SharedType } from "./shortlink.service";

/** What a media URL serves once every rule of its link is checked: a preview image, or a variant's bytes. */
export type MediaTarget =
  | { kind: "preview"; etag: string; storageKey: string; mimeType: string }
  | {
      kind: "variant";
      row: ReadyVariant;
      /** the file, as its download's audit entry names it (with its folder when read in a shard) */
      file: { id: string; name: string; folderId?: string };
      /** the link and its item, which count its downloads; where the item lives when the catalog read asked it */
      linkId: string;
      entityId: string;
      entityType: SharedType;
      place?: LibraryPlace;
      download: boolean;
    };

/** Finds what a media URL serves: over the catalog (`sharedMediaTarget`), or where the file's library lives (the route). */
export type MediaTargetRead = (linkId: string, assetId: string, kind: MediaKind, cookie: string | undefined) => Promise<MediaTarget>;

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
 * What a media URL of link `linkId` for file `assetId` serves, every rule of the link checked again (revoked, window,
 * creator, item, password cookie): the file must be the shared one, inside the shared folder or an item of the shared
 * collection, and readable by the creator; a download needs the link's download right and the creator's download
 * right now. Read in the catalog or in the file's library's shard (`sharedMedia`, a routed read placed by the file).
 */
export async function sharedMediaTarget(
  rc: RequestContext,
  linkId: string,
  assetId: string,
  kind: MediaKind,
  cookie: string | undefined,
): Promise<MediaTarget> {
  const denied = () => new AppError("FORBIDDEN", ru.sharing.mediaDenied);
  const open = await resolveLink(rc, linkId);
  if ("state" in open) throw closedError(open);
  if (!(await unlocked(rc, open.link, cookie))) throw closedError({ state: "password" });
  const asset = open.entity.type === "asset" ? open.entity.asset : await findAsset(rc.db, assetId);
  if (!asset || asset.id !== assetId || asset.deletedAt != null) throw denied();
  if (open.entity.type === "collection" && !(await collectionHoldsReadable(rc, open.creator, open.entity.id, assetId))) throw denied();
  if (open.entity.type === "group") {
    const inside = await assetInSubtree(rc.db, open.entity.id, assetId);
    if (!inside || !(await canAccess(rc, open.creator, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "read"))) throw denied();
  }
  if (kind === "thumb" || kind === "medium") {
    const { etag, storageKey, mimeType } = await findPreview(rc, open.creator, { assetId, version: asset.latestVersion, size: kind });
    return { kind: "preview", etag, storageKey, mimeType };
  }
  const download = kind !== "view";
  if (download) {
    const allowed =
      kind === "original" ? allows(open.mask, "download") : allows(open.mask, "download") || allows(open.mask, "download_proxy");
    if (!allowed || !(await canAccess(rc, open.creator, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "download")))
      throw denied();
  }
  const [rows, folderId] = await Promise.all([
    asset.latestVersion > 0 ? selectReadyVariants(rc.db, asset.id, asset.latestVersion) : [],
    // Read in a shard, the folder its download's audit entry names (the catalog's own lookup reads its copy).
    download && onShard(rc) ? firstFolderOf(rc.db, asset.id) : undefined,
  ]);
  const row = pickVariant(rows, kind);
  if (!row) throw new AppError("NOT_FOUND", ru.sharing.noContent);
  const { link, entity, place } = open;
  return {
    kind: "variant",
    row,
    file: { id: asset.id, name: asset.name, folderId },
    linkId: link.id,
    entityId: entity.id,
    entityType: entity.type,
    place,
    download,
  };
}

/** A media URL signed for this link, file and kind, unexpired (checked before any lookup); else 403. */
export async function requireMediaSignature(
  rc: RequestContext,
  linkId: string,
  assetId: string,
  kind: MediaKind,
  params: { u?: string; exp?: string; sig?: string },
): Promise<void> {
  if (!LINK_ID_PATTERN.test(linkId) || !(await verifyLink(rc.config.JWT_SECRET, "sl-media", `${linkId}:${assetId}:${kind}`, params)))
    throw new AppError("FORBIDDEN", ru.sharing.mediaDenied);
}

/**
 * `GET /api/sl/media/{link}/{asset}/{kind}`: bytes through a link. The signed URL must be for this link, file and
 * kind and unexpired (checked before any lookup); `target` then finds what it serves (`sharedMediaTarget`). Views
 * stream inline with Range; downloads are attachments, counted and audited (a ranged continuation is not counted
 * again).
 */
export async function shortlinkMedia(
  rc: RequestContext,
  linkId: string,
  assetId: string,
  kind: MediaKind,
  params: { u?: string; exp?: string; sig?: string },
  cookie: string | undefined,
  req: ContentRequest,
  target: MediaTargetRead = (...args) => sharedMediaTarget(rc, ...args),
): Promise<Response> {
  await requireMediaSignature(rc, linkId, assetId, kind, params);
  const found = await target(linkId, assetId, kind, cookie);
  if (found.kind === "preview") {
    if (ifNoneMatch(req.ifNoneMatch, found.etag)) return new Response(null, { status: 304, headers: { ETag: found.etag } });
    const object = await readPreview(rc, found.storageKey);
    return new Response(object.body, {
      headers: {
        "Content-Type": found.mimeType,
        ETag: found.etag,
        "Cache-Control": "private, max-age=3600",
        "X-Content-Type-Options": "nosniff",
      },
    });
  }
  const { row, file, download } = found;
  const response = await serveVariant(rc, row, { ...req, disposition: download ? "attachment" : "inline" });
  const firstBytes = !req.range || /^bytes=0-/.test(req.range.trim());
  if (download && firstBytes && response.status < 300) {
    // Read in a shard, the link is counted there: the file's place, which the routed read asked, is its folder's too.
    const place = found.place ?? (found.entityType === "collection" ? undefined : knownPlaceOfId(file.id));
    const use = { linkId: found.linkId, entityId: found.entityId, kind: "download" as const, n: 1, last: Date.now(), place };
    await countLinkUses(
      rc,
      [use],
      [
        // the file's download, by an anonymous visitor through the link (its id names the link)
        auditDownloadStatement(rc, {
          actorId: null,
          channel: "link",
          files: [file],
          details: { shortlink: found.linkId, variant: row.variant.variantType, kind },
        }),
      ],
    );
  }
  return response;
}
