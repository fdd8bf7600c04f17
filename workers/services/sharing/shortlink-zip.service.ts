/**
 * A shared folder as one ZIP, its sub-folders included with their paths (or a shared collection's items, flat): the product's one streaming Zip64 writer
 * (workers/services/archive), checked as the link's creator, so the archive holds what the creator may still
 * download. Offered only when the link allows downloading originals.
 */
import { ru } from "../../../shared/i18n/ru";
import { countLinkUses } from "./link-use";
import { contentDisposition } from "../../lib/content-disposition";
import { AppError } from "../../lib/errors";
import { signLink, verifyLink } from "../../lib/signed-url";
import { knownPlaceOfId, type LibraryPlace } from "../../db/library-directory";
import { auditStatement, onShard } from "../access";
import type { RequestContext } from "../access";
import { planStream, planZip, withVariants, ZIP_REQUEST_MAX_BYTES, ZIP_REQUEST_MAX_FILES, type ZipPlan, type ZipPlanner } from "../archive";
import { readableCollectionItems } from "../collections";
import { allows } from "./shortlink-acl";
import { closedError, folderInside, resolveLink, unlocked, type OpenLink } from "./shortlink-open.service";
import { LINK_ID_PATTERN, MEDIA_TTL_SECONDS, type SharedType, type Visitor } from "./shortlink.service";

const zipId = (linkId: string, folderId: string) => `${linkId}:zip:${folderId}`;

/** The signed URL of a folder's archive, or null when the link does not allow originals. */
export async function sharedZipUrl(rc: RequestContext, open: OpenLink, folderId: string, now: number): Promise<string | null> {
  if (!allows(open.mask, "download")) return null;
  const exp = (Math.floor(now / 1000 / MEDIA_TTL_SECONDS) + 2) * MEDIA_TTL_SECONDS;
  const params = new URLSearchParams(
    await signLink(rc.config.JWT_SECRET, { purpose: "sl-media", id: zipId(open.link.id, folderId), userId: open.link.id, exp }),
  );
  return `/api/sl/zip/${open.link.id}/${folderId}?${params}`;
}

/** What a link's ZIP holds once every rule of the link is checked, and what counts and names its download. */
export interface SharedZip {
  plan: ZipPlan;
  linkId: string;
  entityId: string;
  entityType: SharedType;
  /** the shared item's name: the archive's */
  name: string;
  /** where the item lives, when the read asked */
  place?: LibraryPlace;
}

/** Plans a link's ZIP: over the catalog (`sharedZipPlan`), or where the folder's library lives (the route). */
export type SharedZipRead = (linkId: string, folderId: string, cookie: string | undefined) => Promise<SharedZip>;

/**
 * What the ZIP of `folderId` through link `linkId` holds: every rule of the link checked again (as for its media), the
 * folder inside the shared one (or the shared collection itself), originals allowed, and the files the creator may
 * download now. Read in the catalog or in the folder's library's shard (`sharedZip`, a routed read placed by the
 * folder), where the files' variants are read with the plan: the catalog's lookup while streaming would read its copy.
 */
export async function sharedZipPlan(
  rc: RequestContext,
  linkId: string,
  folderId: string,
  cookie: string | undefined,
  /** how a collection's items, which span libraries, are planned: where each lives (the route) or here */
  planItems: ZipPlanner = (creator, selection) => planZip(rc, creator, selection, ZIP_REQUEST_MAX_FILES),
): Promise<SharedZip> {
  const denied = () => new AppError("FORBIDDEN", ru.sharing.mediaDenied);
  const open = await resolveLink(rc, linkId);
  if ("state" in open) throw closedError(open);
  if (!(await unlocked(rc, open.link, cookie))) throw closedError({ state: "password" });
  if (!allows(open.mask, "download")) throw denied();
  let planned: ZipPlan;
  if (open.entity.type === "collection") {
    if (folderId !== open.entity.id) throw denied();
    // The items the creator may read now, in collection order; the planner then keeps those he may download.
    const { ids } = await readableCollectionItems(rc, open.creator, folderId, ZIP_REQUEST_MAX_FILES + 1);
    planned = await planItems(open.creator, { assetIds: ids, groupIds: [] });
  } else if (open.entity.type === "group" && (await folderInside(rc, open, folderId))) {
    planned = await planZip(rc, open.creator, { assetIds: [], groupIds: [folderId] }, ZIP_REQUEST_MAX_FILES);
  } else throw denied();
  if (planned.overflow || planned.bytes > ZIP_REQUEST_MAX_BYTES) throw new AppError("CONFLICT", ru.sharing.zipTooLarge);
  const plan = onShard(rc) ? await withVariants(rc, planned) : planned;
  const { link, entity, place } = open;
  return { plan, linkId: link.id, entityId: entity.id, entityType: entity.type, name: entity.name, place };
}

/**
 * `GET /api/sl/zip/{link}/{folder}`: the signed URL must be for this link and folder (checked before any lookup);
 * `read` then plans the archive (`sharedZipPlan`). The download is counted and audited once; each file's download
 * is audited as the archive reaches it.
 */
export async function shortlinkZip(
  rc: RequestContext,
  linkId: string,
  folderId: string,
  params: { u?: string; exp?: string; sig?: string },
  cookie: string | undefined,
  visitor: Visitor,
  read: SharedZipRead = (...args) => sharedZipPlan(rc, ...args),
): Promise<Response> {
  if (!LINK_ID_PATTERN.test(linkId) || !(await verifyLink(rc.config.JWT_SECRET, "sl-media", zipId(linkId, folderId), params)))
    throw new AppError("FORBIDDEN", ru.sharing.mediaDenied);
  const zip = await read(linkId, folderId, cookie);
  const { plan } = zip;
  // Read in a shard, the link is counted there: the folder's place, which the routed read asked, is its item's too.
  const place = zip.place ?? (zip.entityType === "collection" ? undefined : knownPlaceOfId(folderId));
  await countLinkUses(rc, [{ linkId: zip.linkId, entityId: zip.entityId, kind: "download", n: 1, last: Date.now(), place }], [
    auditStatement(rc, {
      action: "shortlink.download",
      actorId: null,
      objectType: zip.entityType,
      objectId: folderId,
      details: { shortlink: zip.linkId, zip: true, files: plan.files.length },
      ip: visitor.ip,
    }),
  ]);
  const body = planStream(rc, { userId: null, via: "link", shortlinkId: zip.linkId, ip: visitor.ip }, plan);
  return new Response(body, {
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": contentDisposition(`${zip.name}.zip`),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
