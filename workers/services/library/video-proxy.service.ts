import { ru } from "../../../shared/i18n/ru";
import { selectReadyVariants } from "../../db/repositories/asset-versions.repository";
import { returnedRows, runBatch } from "../../db/repositories/asset.repository";
import { healProxyStatements, replaceProxyStatements, type ProxyRow } from "../../db/repositories/video-proxy.repository";
import { putCandidateStatements } from "../../db/repositories/heal-candidate.repository";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { canAccess, outsideHold } from "../access";
import type { Actor, RequestContext } from "../access";
import { backendFor, deleteUnreferencedObjects, pendingProxyPlayLink } from "./asset-content.service";
import { mainVariant, requireAsset } from "./asset.service";
import { storeStream } from "./asset-upload.service";
import { VIDEO_PROXY_MAX_BYTES, sniffVideoProxy, videoProxyExtension, videoProxyMime } from "./video-proxy-limits";

export interface VideoProxyUpload {
  assetId: string;
  /** version number; omitted: the latest */
  version?: number;
  /** heal on view: `read` suffices, stored only when the version has no proxy yet; without it `update`, replacing */
  heal?: boolean;
  contentType: string | undefined;
  contentLength: string | undefined;
  body: ReadableStream<Uint8Array> | null;
}

export interface StoredVideoProxy {
  variant_id: string;
  version: number;
  variant_type: "proxy_lowres";
  mime_type: string;
  content_size: number;
  replaced: boolean;
  /** a heal by a caller without `update`: played to him alone until a user with `update` accepts it */
  pending: boolean;
  /** for a pending proxy: a play link signed for its maker */
  link?: string;
}

const MIB = 1024 * 1024;

/**
 * Stores a browser-made playable copy of a video version as its `proxy_lowres` variant (decision 029, «The proxy
 * maker»). Without `heal` the caller needs `update` and replaces an earlier proxy; with `heal` `read` suffices and it
 * is stored only while the version has none (409 otherwise: first writer wins). Checks in order: asset and rights
 * (404/403), version (404), a video (400), an existing proxy when healing (409), type (415), length (411/413/400).
 * Commit after upload: the bytes stream into the version's storage first, their header is checked (400), then one
 * D1 batch inserts (or swaps) the row; a refusal after the write deletes the bytes, so nothing half-made is left.
 */
export async function uploadVideoProxy(rc: RequestContext, actor: Actor, input: VideoProxyUpload): Promise<StoredVideoProxy> {
  const refuse = async (error: AppError): Promise<never> => {
    await input.body?.cancel().catch(() => undefined);
    throw error;
  };
  const asset = await requireAsset(rc, actor, input.assetId, input.heal ? "read" : "update").catch(async (error: unknown) => {
    await input.body?.cancel().catch(() => undefined);
    throw error;
  });
  // A heal by someone without `update` is his alone until accepted (decision 029, «Who sees a heal»).
  const pending = input.heal === true && !(await canAccess(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "update"));
  const number = input.version ?? asset.latestVersion;
  const rows = number > 0 ? await selectReadyVariants(rc.db, asset.id, number) : [];
  const main = mainVariant(rows);
  if (!main) return refuse(new AppError("NOT_FOUND", ru.catalog.previewVersionNotFound(number)));
  const isVideo = (mime: string) => mime.toLowerCase().startsWith("video/");
  if (!isVideo(asset.mime) && !isVideo(main.variant.mimeType)) return refuse(new AppError("BAD_REQUEST", ru.videoProxy.notVideo));
  // Cheap refusal before any byte is stored; the conditional insert below still settles a race.
  if (input.heal && rows.some((r) => r.variant.variantType === "proxy_lowres"))
    return refuse(new AppError("CONFLICT", ru.videoProxy.exists));

  const mime = videoProxyMime(input.contentType);
  if (!mime) return refuse(new AppError("UNSUPPORTED_MEDIA_TYPE", ru.videoProxy.type));
  const declared = Number(input.contentLength);
  if (input.contentLength === undefined || !Number.isSafeInteger(declared) || declared < 0) {
    return refuse(new AppError("LENGTH_REQUIRED", ru.assets.lengthRequired));
  }
  if (declared > VIDEO_PROXY_MAX_BYTES)
    return refuse(new AppError("PAYLOAD_TOO_LARGE", ru.videoProxy.tooLarge(VIDEO_PROXY_MAX_BYTES / MIB)));
  if (declared === 0 || !input.body) return refuse(new AppError("BAD_REQUEST", ru.videoProxy.empty));

  const now = Date.now();
  const id = newId(now);
  const ext = videoProxyExtension(mime);
  const storageId = main.variant.storageId;
  const storageKey = `assets/${asset.id}/${id}`;
  const sha256 = await outsideHold(rc, () => storeStream(rc, { storageId, storageKey, mimeType: mime }, declared, input.body));
  const backend = await backendFor(rc, storageId);
  const drop = () => backend.delete([storageKey]).catch(() => undefined);
  const head = await backend.get(storageKey, { offset: 0, length: 64 });
  const headBytes = head?.body ? new Uint8Array(await new Response(head.body).arrayBuffer()) : new Uint8Array(0);
  if (!sniffVideoProxy(headBytes, mime)) {
    await drop();
    throw new AppError("BAD_REQUEST", ru.videoProxy.corrupt(mime));
  }

  const fileName = ru.videoProxy.fileName(asset.name.replace(/\.[^.]*$/, ""), ext);
  const row: ProxyRow = {
    id,
    assetId: asset.id,
    versionId: main.versionId,
    name: fileName,
    mimeType: mime,
    format: ext,
    fileName,
    contentSize: declared,
    sha256,
    storageId,
    storageKey,
    // Who made it (decision 029): a healer is anyone who may look, so the maker is recorded beside the bytes.
    techProps: { maker: input.heal ? "browser-heal" : "browser" },
    userId: actor.id,
    madeBy: actor.id,
    acceptedBy: actor.id,
    ctime: now,
  };
  let replaced: { storage_id: string; storage_key: string }[] = [];
  try {
    if (pending) {
      const [dropped] = await runBatch(
        rc.db,
        putCandidateStatements({
          id,
          assetId: asset.id,
          versionId: main.versionId,
          kind: "proxy",
          madeBy: actor.id,
          storageId,
          storageKey,
          mimeType: mime,
          width: null,
          height: null,
          contentSize: declared,
          sha256,
          maker: "browser-heal",
          ctime: now,
        }),
      );
      // The maker's earlier pending proxy of this version gives way (one per maker); its bytes go with it.
      replaced = (dropped.results ?? []) as { storage_id: string; storage_key: string }[];
    } else if (input.heal) {
      const [inserted] = await runBatch(rc.db, healProxyStatements(row));
      if (returnedRows(inserted) === 0) throw new AppError("CONFLICT", ru.videoProxy.exists);
    } else {
      const [dropped] = await runBatch(rc.db, replaceProxyStatements(row));
      replaced = (dropped.results ?? []) as { storage_id: string; storage_key: string }[];
    }
  } catch (error) {
    await drop();
    throw error;
  }
  // Replaced objects go only when no other variant (a copy of this file) still references them.
  await deleteUnreferencedObjects(
    rc,
    replaced.map((r) => ({ storageId: r.storage_id, storageKey: r.storage_key })),
  );
  return {
    variant_id: id,
    version: main.version,
    variant_type: "proxy_lowres",
    mime_type: mime,
    content_size: declared,
    replaced: !pending && replaced.length > 0,
    pending,
    ...(pending ? { link: (await pendingProxyPlayLink(rc, actor, asset.id, id)).link } : {}),
  };
}
