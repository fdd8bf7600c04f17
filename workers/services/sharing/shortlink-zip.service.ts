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
import { auditStatement } from "../access";
import type { RequestContext } from "../access";
import { planStream, planZip, ZIP_REQUEST_MAX_BYTES, ZIP_REQUEST_MAX_FILES } from "../archive";
import { readableCollectionItems } from "../collections";
import { allows } from "./shortlink-acl";
import { closedError, folderInside, resolveLink, unlocked, type OpenLink } from "./shortlink-open.service";
import { LINK_ID_PATTERN, MEDIA_TTL_SECONDS, type Visitor } from "./shortlink.service";

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

/**
 * `GET /api/sl/zip/{link}/{folder}`: the signed URL must be for this link and folder; every rule of the link is
 * checked again (as for its media), the folder must lie inside the shared one, and the link must allow originals.
 * The download is counted and audited once.
 */
export async function shortlinkZip(
  rc: RequestContext,
  linkId: string,
  folderId: string,
  params: { u?: string; exp?: string; sig?: string },
  cookie: string | undefined,
  visitor: Visitor,
): Promise<Response> {
  const denied = () => new AppError("FORBIDDEN", ru.sharing.mediaDenied);
  if (!LINK_ID_PATTERN.test(linkId) || !(await verifyLink(rc.config.JWT_SECRET, "sl-media", zipId(linkId, folderId), params)))
    throw denied();
  const open = await resolveLink(rc, linkId);
  if ("state" in open) throw closedError(open);
  if (!(await unlocked(rc, open.link, cookie))) throw closedError({ state: "password" });
  if (!allows(open.mask, "download")) throw denied();
  let selection: { assetIds: string[]; groupIds: string[] };
  if (open.entity.type === "collection") {
    if (folderId !== open.entity.id) throw denied();
    // The items the creator may read now, in collection order; the planner then keeps those he may download.
    const { ids } = await readableCollectionItems(rc, open.creator, folderId, ZIP_REQUEST_MAX_FILES + 1);
    selection = { assetIds: ids, groupIds: [] };
  } else if (open.entity.type === "group" && (await folderInside(rc, open, folderId))) {
    selection = { assetIds: [], groupIds: [folderId] };
  } else throw denied();
  const plan = await planZip(rc, open.creator, selection, ZIP_REQUEST_MAX_FILES);
  if (plan.overflow || plan.bytes > ZIP_REQUEST_MAX_BYTES) throw new AppError("CONFLICT", ru.sharing.zipTooLarge);
  await countLinkUses(rc, [{ linkId: open.link.id, entityId: open.entity.id, kind: "download", n: 1, last: Date.now() }], [
    auditStatement(rc, {
      action: "shortlink.download",
      actorId: null,
      objectType: open.entity.type,
      objectId: folderId,
      details: { shortlink: open.link.id, zip: true, files: plan.files.length },
      ip: visitor.ip,
    }),
  ]);
  const body = planStream(rc, { userId: null, via: "link", shortlinkId: open.link.id, ip: visitor.ip }, plan);
  return new Response(body, {
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": contentDisposition(`${open.entity.name}.zip`),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
