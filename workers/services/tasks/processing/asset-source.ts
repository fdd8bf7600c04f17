import { findAsset } from "../../../db/repositories/asset.repository";
import { selectReadyVariants, type ReadyVariant } from "../../../db/repositories/asset-versions.repository";
import type { AssetRow, TaskEntityRef } from "../../../db/schema/index";
import { backendFor, mainVariant } from "../../library";
import type { RequestContext } from "../../access";

/** An asset a processing step works on, with the main ready variant of its latest version. */
export interface AssetSource {
  asset: AssetRow;
  main: ReadyVariant;
}

/**
 * The live asset and the main variant of its latest version; null when the asset is gone, trashed, or has no
 * committed bytes yet (nothing to process).
 */
export async function loadAssetSource(
  rc: RequestContext,
  assetId: string,
): Promise<{ asset: AssetRow | null; source: AssetSource | null }> {
  const asset = (await findAsset(rc.db, assetId)) ?? null;
  if (!asset || asset.deletedAt != null) return { asset: null, source: null };
  const main = mainVariant(await selectReadyVariants(rc.db, assetId, "latest"));
  return { asset, source: main ? { asset, main } : null };
}

/**
 * The bytes of a variant, at most `maxBytes` from the start (a Range read when the object is larger); null when the
 * object is missing from its storage.
 */
export async function readVariantBytes(rc: RequestContext, source: AssetSource, maxBytes: number): Promise<Uint8Array | null> {
  const v = source.main.variant;
  const backend = await backendFor(rc, v.storageId);
  const object = await backend.get(v.storageKey, v.contentSize > maxBytes ? { offset: 0, length: maxBytes } : undefined);
  if (!object?.body) return null;
  return new Uint8Array(await new Response(object.body).arrayBuffer());
}

/** The bytes of a range of a variant (for formats whose index sits at the end, e.g. an MP4 with `moov` last). */
export async function readVariantRange(
  rc: RequestContext,
  source: AssetSource,
  offset: number,
  length: number,
): Promise<Uint8Array | null> {
  const v = source.main.variant;
  const object = await (await backendFor(rc, v.storageId)).get(v.storageKey, { offset, length });
  if (!object?.body) return null;
  return new Uint8Array(await new Response(object.body).arrayBuffer());
}

/** The asset ids among task entities, in order, without repeats. */
export function assetIdsOf(entities: readonly TaskEntityRef[]): string[] {
  return [...new Set(entities.filter((e) => e.type === "asset").map((e) => e.id))];
}
