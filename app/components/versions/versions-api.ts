import { apiRequest } from "../../lib/api-client";

/** Version management calls of the viewer (workers/api/routes/asset-versions.routes.ts). */

export const restoreVersion = (assetId: string, version: number) =>
  apiRequest<{ asset_id: string; version: number; version_id: string; restored_from: number }>(`/api/asset/restore-version/${assetId}`, {
    method: "POST",
    body: { version },
  });

export const deleteVersion = (assetId: string, version: number) =>
  apiRequest<{ latest: number }>(`/api/asset/version/${assetId}/${version}`, { method: "DELETE" });

export const setVersionComment = (assetId: string, version: number, desc: string | null) =>
  apiRequest<{ version: number; desc: string | null }>(`/api/asset/version/${assetId}/${version}`, { method: "PATCH", body: { desc } });

/** Removes a version create-version made that never received bytes (409 once they began to arrive). */
export const dropEmptyVersion = (assetId: string, version: number) =>
  apiRequest<{ dropped: number; versions: number[] }>(`/api/asset/drop-empty-version/${assetId}`, { method: "POST", body: { version } });
