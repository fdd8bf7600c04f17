import { findAssetForPreview, findPreviewForAsset } from "../../db/repositories/preview.repository";
import { deleteWatermarksOfVersionSql } from "../../db/repositories/shop.repository";
import type { Statement } from "../../db/repositories/asset.repository";
import { variants } from "../../db/schema/index";
import { newId } from "../../lib/ids";
import type { RequestContext } from "../access";
import { decode } from "../../lib/decoder";

/** The storage id processing uses for objects in the Worker's own R2 bucket. */
const OWN_STORAGE = "0".repeat(32);

export function shopPreviewKey(assetId: string, id: string): string {
  return `shop/previews/${assetId}/${id}`;
}

export interface WatermarkedPreview {
  key: string;
  /** the version's `watermarked` variant, swapped in the caller's batch */
  statements: Statement[];
}

/**
 * The watermarked preview of an asset listed for sale, made from the preview processing already made for its
 * latest version (medium, else thumb): decoded, fitted into 960 px, striped (watermarked-jpeg.ts, in the media
 * Worker), stored in R2 and recorded as the version's `watermarked` variant (SPEC §3 variant types). Null when the
 * asset has no image preview yet (the catalogue then shows an icon) or its preview cannot be decoded; the listing
 * itself never fails for it.
 */
export async function makeWatermarkedPreview(
  rc: RequestContext,
  asset: { id: string; name: string },
  userId: string,
): Promise<WatermarkedPreview | null> {
  const found = await findAssetForPreview(rc.db, asset.id, null);
  if (!found) return null;
  for (const size of ["medium", "thumb"]) {
    const preview = await findPreviewForAsset(rc.db, asset.id, found.latest_version, size);
    if (!preview?.storage_key) continue;
    const now = Date.now();
    const id = newId(now);
    const key = shopPreviewKey(asset.id, id);
    let made: { width: number; height: number; size: number } | null;
    try {
      // Decoded, striped and encoded by the media Worker, which reads the preview and writes `key` itself.
      made = await decode(rc.env, (decoder) => decoder.shopPreview(preview.storage_key!, preview.mime_type ?? "", key));
    } catch (error) {
      console.warn(
        JSON.stringify({ level: "warn", requestId: rc.requestId, message: "shop preview not made", asset: asset.id, error: String(error) }),
      );
      return null;
    }
    // No object behind the row, or a type the codecs do not decode: the next size may do.
    if (!made) continue;
    const statements: Statement[] = [];
    if (found.version_id) {
      statements.push(
        deleteWatermarksOfVersionSql(found.version_id),
        rc.db.insert(variants).values({
          id,
          assetId: asset.id,
          versionId: found.version_id,
          variantType: "watermarked",
          status: "ready",
          name: `${made.width}×${made.height}`,
          mimeType: "image/jpeg",
          format: "jpeg",
          fileName: `${asset.name}.watermarked.jpg`,
          contentSize: made.size,
          storageId: OWN_STORAGE,
          storageKey: key,
          techProps: { width: made.width, height: made.height },
          userId,
          ctime: now,
        }),
      );
    }
    return { key, statements };
  }
  return null;
}
