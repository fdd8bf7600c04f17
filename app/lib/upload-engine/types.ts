/**
 * The upload queue item as the server's per-user queue stores it (GET /api/uploads, the WebSocket messages) and
 * the statuses of SPEC §4. The browser keeps no queue of its own: every tab shows the server's items.
 */

import type { UploadItem, UploadStatus } from "../../../durable-objects/upload-queue.rules";

/** The queue's item and statuses, as the server defines them (type-only: none of its code reaches the browser). */
export type { UploadItem, UploadStatus };

/** Statuses of an item whose upload is under way somewhere (an engine in some tab drives it). */
export const ACTIVE_STATUSES: ReadonlySet<UploadStatus> = new Set<UploadStatus>(["busy", "uploading", "uploaded", "saving"]);
/** Statuses that end an item: the queue is finished when every item has one of them (SPEC §4). */
export const FINAL_STATUSES: ReadonlySet<UploadStatus> = new Set<UploadStatus>(["completed", "error"]);

/** What the browser sends to queue a file (POST /api/uploads). */
export interface NewUploadItem {
  id: string;
  fileName: string;
  size: number;
  /** the target folder (null: a new version of a file opened outside any folder) */
  groupId: string | null;
  /** the file is a new version of this asset */
  versionOf?: string;
}

/** The fields a tab may change on an item (PATCH /api/uploads/{id}); illegal status transitions answer 409. */
export type UploadPatch = Partial<Pick<UploadItem, "status" | "progress" | "speed" | "error" | "assetId" | "variantId" | "uploadId">>;

/** A new item id: 32 lowercase hex characters, like every other id of the product. */
export function newUploadId(): string {
  return crypto.randomUUID().replace(/-/g, "");
}
