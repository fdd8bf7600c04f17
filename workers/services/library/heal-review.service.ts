import { ru } from "../../../shared/i18n/ru";
import { findAsset, runBatch } from "../../db/repositories/asset.repository";
import {
  candidatesOfVersion,
  deleteCandidatesOfSlotStatement,
  findOwnCandidate,
  sharedMakersOfVersion,
  type CandidateSqlRow,
} from "../../db/repositories/heal-candidate.repository";
import { findAssetForPreview, healedStageSql, replacePreviewStatements } from "../../db/repositories/preview.repository";
import { replaceProxyStatements } from "../../db/repositories/video-proxy.repository";
import type { HealKind } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { auditStatement, canAccess, requireEntityAccess } from "../access";
import type { Actor, RequestContext } from "../access";
import { waveformStorageKey } from "../media";
import { r2Backend } from "../storage";
import { deleteUnreferencedObjects } from "./asset-content.service";

/**
 * Heal review (decision 029, «Who sees a heal»): what a browser of someone without `update` made for a version is
 * his alone (heal_candidates) until a user with `update` accepts it. This file answers who made what a version shows
 * and which heals wait, and turns an accepted candidate into the shared picture, proxy or waveform.
 */

interface Person {
  id: string;
  name: string | null;
}

export interface HealState {
  version: number;
  /** the caller holds `update`: he may accept what waits */
  can_accept: boolean;
  /** shared pictures and the proxy made by a person's browser, with who made and who accepted them */
  made: { kind: string; made_by: Person; accepted_by: Person | null }[];
  /** heals awaiting acceptance: every maker's for a caller with `update`, else only the caller's own */
  pending: { kind: HealKind; made_by: Person; ctime: string; mine: boolean }[];
}

/** The version (its number; 0: the latest) of an asset the caller may read, with whether he may update it. */
async function versionFor(rc: RequestContext, actor: Actor, assetId: string, version: number, level: "read" | "update") {
  const asset = await findAssetForPreview(rc.db, assetId, version === 0 ? null : version);
  if (!asset) throw new AppError("NOT_FOUND", ru.assets.notFound);
  const ref = { id: assetId, type: "asset", ownerId: asset.owner_id } as const;
  await requireEntityAccess(rc, actor, ref, level, ru.assets.notFound);
  if (!asset.version_id) throw new AppError("NOT_FOUND", ru.heal.versionNotFound(version));
  const mayUpdate = level === "update" || (await canAccess(rc, actor, ref, "update"));
  return { versionId: asset.version_id, number: version === 0 ? asset.latest_version : version, mayUpdate };
}

/** `GET /api/asset/heal/{id}/{version}`: who made what the version shows, and what waits for acceptance. */
export async function healState(rc: RequestContext, actor: Actor, assetId: string, version: number): Promise<HealState> {
  const v = await versionFor(rc, actor, assetId, version, "read");
  const [shared, pending] = await Promise.all([sharedMakersOfVersion(rc.db, v.versionId), candidatesOfVersion(rc.db, v.versionId)]);
  return {
    version: v.number,
    can_accept: v.mayUpdate,
    made: shared
      .filter((r): r is typeof r & { made_by: string } => r.made_by !== null)
      .map((r) => ({
        kind: r.kind,
        made_by: { id: r.made_by, name: r.maker_name },
        accepted_by: r.accepted_by ? { id: r.accepted_by, name: r.accepted_name } : null,
      })),
    pending: pending
      .filter((c) => v.mayUpdate || c.made_by === actor.id)
      .map((c) => ({
        kind: c.kind,
        made_by: { id: c.made_by, name: c.maker_name },
        ctime: new Date(c.ctime).toISOString(),
        mine: c.made_by === actor.id,
      })),
  };
}

/**
 * `POST /api/asset/heal/{id}/{version}/accept`: a user with `update` makes `maker`'s pending heal of `kind` the one
 * everyone sees — it replaces the shared one of that slot (if any) — and every other pending heal of that slot goes.
 * 404 when the caller cannot read the file or nothing waits, 403 without `update`. Rows first (one batch), objects
 * nobody references afterwards.
 */
export async function acceptHeal(
  rc: RequestContext,
  actor: Actor,
  input: { assetId: string; version: number; kind: HealKind; maker: string },
): Promise<{ kind: HealKind; made_by: string; accepted_by: string }> {
  const v = await versionFor(rc, actor, input.assetId, input.version, "update");
  const candidate = await findOwnCandidate(rc.db, v.versionId, input.kind, input.maker);
  if (!candidate) throw new AppError("NOT_FOUND", ru.heal.candidateNotFound);
  let dropped: { storage_id: string; storage_key: string }[];
  if (candidate.kind === "proxy") dropped = await acceptProxy(rc, actor, candidate);
  else if (candidate.kind === "waveform") dropped = await acceptWaveformCandidate(rc, actor, candidate);
  else dropped = await acceptPicture(rc, actor, candidate);
  // The accepted bytes stay (they are the shared copy now, except a waveform's, which was copied); the rest go.
  const keep = candidate.kind === "waveform" ? "" : candidate.storage_key;
  const gone = dropped.filter((r) => r.storage_key !== keep);
  await deleteUnreferencedObjects(
    rc,
    gone.map((r) => ({ storageId: r.storage_id, storageKey: r.storage_key })),
  );
  return { kind: candidate.kind, made_by: candidate.made_by, accepted_by: actor.id };
}

type Dropped = { storage_id: string; storage_key: string }[];
/** The audit entry of an acceptance, in the same batch as the change: who let everyone see whose heal. */
const acceptedEntry = (rc: RequestContext, actor: Actor, c: CandidateSqlRow) =>
  auditStatement(rc, {
    action: "asset.heal_accept",
    actorId: actor.id,
    objectType: "asset",
    objectId: c.asset_id,
    details: { version_id: c.version_id, kind: c.kind, made_by: c.made_by },
  });

/** Rows a batch's `returning` answered, by their column names. */
const droppedRows = (result: { results?: unknown[] } | undefined): Dropped => (result?.results ?? []) as Dropped;

async function acceptPicture(rc: RequestContext, actor: Actor, c: CandidateSqlRow): Promise<Dropped> {
  const [replaced, , slot] = await runBatch(rc.db, [
    ...replacePreviewStatements(rc.db, {
      // The candidate's id: the maker's signed links keep pointing at the same picture.
      id: c.id,
      assetId: c.asset_id,
      versionId: c.version_id,
      size: c.kind,
      mimeType: c.mime_type,
      width: c.width,
      height: c.height,
      contentSize: c.content_size,
      storageKey: c.storage_key,
      maker: c.maker ?? "browser",
      madeBy: c.made_by,
      acceptedBy: actor.id,
      ctime: Date.now(),
    }),
    deleteCandidatesOfSlotStatement(c.version_id, c.kind),
    acceptedEntry(rc, actor, c),
    ...(c.kind === "thumb" ? [healedStageSql(c.version_id)] : []),
  ]);
  // Previews always live in the default R2 storage, as the candidate's picture does.
  return [...droppedRows(replaced).map((r) => ({ storage_id: c.storage_id, storage_key: r.storage_key })), ...droppedRows(slot)];
}

async function acceptProxy(rc: RequestContext, actor: Actor, c: CandidateSqlRow): Promise<Dropped> {
  const asset = await findAsset(rc.db, c.asset_id);
  const ext = c.mime_type === "video/mp4" ? "mp4" : "webm";
  const fileName = ru.videoProxy.fileName((asset?.name ?? "video").replace(/\.[^.]*$/, ""), ext);
  const [replaced, , slot] = await runBatch(rc.db, [
    ...replaceProxyStatements({
      id: c.id,
      assetId: c.asset_id,
      versionId: c.version_id,
      name: fileName,
      mimeType: c.mime_type,
      format: ext,
      fileName,
      contentSize: c.content_size,
      sha256: c.sha256,
      storageId: c.storage_id,
      storageKey: c.storage_key,
      techProps: { maker: "browser-heal" },
      userId: c.made_by,
      madeBy: c.made_by,
      acceptedBy: actor.id,
      ctime: Date.now(),
    }),
    deleteCandidatesOfSlotStatement(c.version_id, "proxy"),
    acceptedEntry(rc, actor, c),
  ]);
  return [...droppedRows(replaced), ...droppedRows(slot)];
}

async function acceptWaveformCandidate(rc: RequestContext, actor: Actor, c: CandidateSqlRow): Promise<Dropped> {
  const media = r2Backend(rc.env.MEDIA);
  const object = await media.get(c.storage_key);
  if (!object?.body) throw new AppError("NOT_FOUND", ru.heal.candidateNotFound);
  const bytes = new Uint8Array(await new Response(object.body).arrayBuffer());
  await media.put(waveformStorageKey(c.asset_id, c.version_id), bytes, { contentType: "application/json", size: bytes.length });
  const [slot] = await runBatch(rc.db, [deleteCandidatesOfSlotStatement(c.version_id, "waveform"), acceptedEntry(rc, actor, c)]);
  return droppedRows(slot);
}
