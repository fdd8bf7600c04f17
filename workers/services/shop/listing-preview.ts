import { findAssetForPreview, findPreviewForAsset } from "../../db/repositories/preview.repository";
import { deleteWatermarksOfVersionSql } from "../../db/repositories/shop.repository";
import type { Statement } from "../../db/repositories/asset.repository";
import { variants } from "../../db/schema/index";
import { newId } from "../../lib/ids";
import type { RequestContext } from "../access";
import { DECODABLE_TYPES, decodeImage, encodeJpeg, fitInside, resizePixels, type DecodableType } from "../imaging";
import { imageInfo } from "../media";
import { paintWatermark } from "./watermark";

/** Longest side of the catalogue's watermarked preview: big enough for the grid and a closer look, no bigger. */
const BOX = { width: 960, height: 960 };
const QUALITY = 78;
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
 * latest version (medium, else thumb): decoded, fitted into 960 px, striped (watermark.ts), stored in R2 and
 * recorded as the version's `watermarked` variant (SPEC §3 variant types). Null when the asset has no image preview
 * yet (the catalogue then shows an icon) or its preview cannot be decoded; the listing itself never fails for it.
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
    if (!preview?.storage_key || !DECODABLE_TYPES.includes(preview.mime_type as DecodableType)) continue;
    const object = await rc.env.MEDIA.get(preview.storage_key);
    if (!object) continue;
    try {
      const pixels = await decodeImage(preview.mime_type as DecodableType, new Uint8Array(await object.arrayBuffer()));
      const fit = fitInside(pixels.width, pixels.height, BOX);
      const jpeg = await encodeJpeg(paintWatermark(await resizePixels(pixels, fit.width, fit.height, { alpha: false })), QUALITY);
      const now = Date.now();
      const id = newId(now);
      const key = shopPreviewKey(asset.id, id);
      await rc.env.MEDIA.put(key, jpeg, { httpMetadata: { contentType: "image/jpeg" } });
      const info = imageInfo(jpeg);
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
            name: info ? `${info.width}×${info.height}` : "watermarked",
            mimeType: "image/jpeg",
            format: "jpeg",
            fileName: `${asset.name}.watermarked.jpg`,
            contentSize: jpeg.length,
            storageId: OWN_STORAGE,
            storageKey: key,
            techProps: info ? { width: info.width, height: info.height } : null,
            userId,
            ctime: now,
          }),
        );
      }
      return { key, statements };
    } catch (error) {
      console.warn(
        JSON.stringify({ level: "warn", requestId: rc.requestId, message: "shop preview not made", asset: asset.id, error: String(error) }),
      );
      return null;
    }
  }
  return null;
}
