/**
 * The state of a version create-version made (issue 29), from its upload's variant. Pure: the listing derives it,
 * unit tests check it.
 */
import type { VersionState } from "./asset-shapes";

export interface UploadProgress {
  status: "pending" | "saving" | "ready" | "aborted";
  /** set once a multipart upload has begun at the storage (parts may be stored) */
  uploadId: string | null;
  /** set for the multipart form */
  partSize: number | null;
  /** for the single form: set while its PUT streams the bytes in */
  progressAt: number | null;
}

/**
 * `ready` once committed; `uploading` while bytes arrive (a single PUT under way, a multipart upload begun, or its
 * stored object being hashed); else `empty`: no byte of it has arrived, and drop-empty-version may remove it.
 */
export function uploadState(u: UploadProgress): VersionState {
  if (u.status === "ready") return "ready";
  if (u.status === "saving" || u.uploadId !== null) return "uploading";
  if (u.partSize === null && u.progressAt !== null) return "uploading";
  return "empty";
}
