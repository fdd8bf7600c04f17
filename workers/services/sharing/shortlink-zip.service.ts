/**
 * A shared folder as one ZIP (the files of the folder shown, not its sub-folders): streamed, stored entries, CRC-32
 * computed while each file's original bytes pass through, so nothing is held in memory but one chunk. Offered only
 * when the link allows downloading originals and the creator may still download them.
 */
import { ru } from "../../../shared/i18n/ru";
import { runBatch } from "../../db/repositories/asset.repository";
import { selectReadyVariants } from "../../db/repositories/asset-versions.repository";
import { countUseStatement } from "../../db/repositories/shortlink.repository";
import { AppError } from "../../lib/errors";
import { signLink, verifyLink } from "../../lib/signed-url";
import { accessibleIds, auditDownloadStatement, auditStatement } from "../access";
import type { RequestContext } from "../access";
import { backendFor, listMembers, mainVariant } from "../library";
import {
  centralDirectory,
  crc32,
  dataDescriptor,
  dosDateTime,
  localHeader,
  uniqueEntryName,
  ZIP_MAX_BYTES,
  type ZipEntry,
} from "../tasks/pure";
import { allows } from "./shortlink-acl";
import { closedError, folderInside, resolveLink, unlocked, type OpenLink } from "./shortlink-open.service";
import { LINK_ID_PATTERN, MEDIA_TTL_SECONDS, type Visitor } from "./shortlink.service";

/** Files one archive holds at most (a page of 50 is what the visitor sees; the archive takes the folder's first 500). */
export const SHARED_ZIP_MAX_FILES = 500;

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

interface ZipFile {
  /** the file's id, for its download entry */
  assetId: string;
  /** the file's name in the library (`name` is its unique entry name) */
  assetName: string;
  name: string;
  storageId: string;
  storageKey: string;
  size: number;
  mtime: number;
}

/** The originals of the folder's files the creator may download, named uniquely, within ZIP32's limits. */
async function filesOf(rc: RequestContext, open: OpenLink, folderId: string): Promise<ZipFile[]> {
  const { items } = await listMembers(rc, open.creator, folderId, { type: "asset", take: SHARED_ZIP_MAX_FILES });
  const downloadable = await accessibleIds(
    rc,
    open.creator,
    "asset",
    items.map((m) => m.el_id),
    "download",
  );
  const taken = new Set<string>();
  const files: ZipFile[] = [];
  let total = 0;
  for (const m of items) {
    if (m.el_type !== "asset" || !downloadable.has(m.el_id) || m.el_info.ver === 0) continue;
    const main = mainVariant(await selectReadyVariants(rc.db, m.el_id, m.el_info.ver));
    if (!main) continue;
    total += main.variant.contentSize + 200;
    if (total > ZIP_MAX_BYTES) throw new AppError("CONFLICT", ru.sharing.zipTooLarge);
    files.push({
      assetId: m.el_id,
      assetName: m.el_info.name,
      name: uniqueEntryName(m.el_info.name, taken),
      storageId: main.variant.storageId,
      storageKey: main.variant.storageKey,
      size: main.variant.contentSize,
      mtime: Date.parse(m.el_info.mtime ?? "") || Date.now(),
    });
  }
  return files;
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
  if (open.entity.type !== "group" || !allows(open.mask, "download") || !(await folderInside(rc, open, folderId))) throw denied();
  const files = await filesOf(rc, open, folderId);
  await runBatch(rc.db, [
    countUseStatement(rc.db, open.link.id, "download", Date.now()),
    auditStatement(rc, {
      action: "shortlink.download",
      actorId: null,
      objectType: "group",
      objectId: folderId,
      details: { shortlink: open.link.id, zip: true, files: files.length },
      ip: visitor.ip,
    }),
    // and each file's download, so a file's count includes the ZIPs it went out in
    auditDownloadStatement(rc, {
      actorId: null,
      channel: "zip",
      files: files.map((f) => ({ id: f.assetId, name: f.assetName, folderId })),
      details: { shortlink: open.link.id },
    }),
  ]);
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  rc.waitUntil(writeZip(rc, files, writable.getWriter()));
  const name = `${open.entity.name}.zip`;
  return new Response(readable, {
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

async function writeZip(rc: RequestContext, files: readonly ZipFile[], out: WritableStreamDefaultWriter<Uint8Array>): Promise<void> {
  const entries: ZipEntry[] = [];
  let offset = 0;
  const write = async (bytes: Uint8Array) => {
    await out.write(bytes);
    offset += bytes.length;
  };
  try {
    for (const f of files) {
      const { dosTime, dosDate } = dosDateTime(f.mtime);
      const entry: ZipEntry = { name: f.name, crc: 0, size: 0, offset, dosTime, dosDate };
      await write(localHeader(entry));
      const object = await (await backendFor(rc, f.storageId)).get(f.storageKey);
      if (object?.body) {
        const reader = object.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          entry.crc = crc32(entry.crc, value);
          entry.size += value.length;
          await write(value);
        }
      }
      await write(dataDescriptor(entry));
      entries.push(entry);
    }
    await write(centralDirectory(entries, offset));
    await out.close();
  } catch (error) {
    console.warn(JSON.stringify({ level: "warn", requestId: rc.requestId, message: "shared zip aborted", error: String(error) }));
    await out.abort(error).catch(() => undefined);
  }
}
