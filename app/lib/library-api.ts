import type { AssetInfo, GroupRef, VersionEntry as VersionRow, Group as GroupInfo, GroupMember } from "../../workers/services/library";
import type { GroupTreeNode as TreeNode } from "../../workers/services/library/pure";
import { apiCall, apiRequest } from "./api-client";

/** The API's answer shapes, shared with the server's services (type-only imports: no server code ships). */
export type { AssetInfo, GroupInfo, GroupMember, TreeNode, VersionRow };

export interface Tag {
  tag_id: string;
  tag_name: string;
}

export type SortKey = "name" | "mtime" | "size";
export type SortOrder = "asc" | "desc";

export interface MembersQuery {
  type?: "asset" | "group";
  sort: SortKey;
  order: SortOrder;
  take?: number;
  after?: string | null;
  /** only files with this review status of their latest version ("none": undecided) */
  review?: string | null;
}

/** One page of members plus the cursor of the next page (null when the page was the last). */
export async function fetchMembers(groupId: string, query: MembersQuery, signal?: AbortSignal) {
  const take = query.take ?? 50;
  const { data, headers } = await apiCall<GroupMember[]>(`/api/group/members/${groupId}`, {
    query: { type: query.type, sort: query.sort, order: query.order, take, after: query.after ?? undefined, review: query.review ?? undefined },
    signal,
  });
  const next = headers.get("x-next-cursor");
  return { items: data, next: data.length < take ? null : next };
}

/** `toast: false` where the screen answers a failure itself (the not-found page). */
export const getGroup = (id: string, options: { toast?: boolean } = {}) => apiRequest<GroupInfo>(`/api/group/get/${id}`, options);
/** The folder tree only (the move dialog picks a folder): no files, so the server may answer it from its cache. */
export const groupTree = (id: string) => apiRequest<TreeNode>(`/api/group/subtree/${id}`, { query: { assets: false } });
export const createGroup = (parent: string, group_name: string) =>
  apiRequest<{ group_id: string }>("/api/group/create", { method: "POST", body: { parent, group_name } });
export const renameGroup = (id: string, group_name: string) =>
  apiRequest(`/api/group/update/${id}`, { method: "PATCH", body: { group_name } });
export const trashGroup = (id: string) => apiRequest(`/api/group/delete/${id}`, { method: "DELETE" });
export const restoreGroup = (id: string) => apiRequest(`/api/group/restore/${id}`, { method: "POST" });
export const moveMembers = (from: string, to: string, ids: string[]) =>
  apiRequest(`/api/group/move-members/${from}/${to}`, { method: "POST", body: { ids } });

export const renameAsset = (id: string, asset_name: string) => apiRequest(`/api/asset/${id}`, { method: "PATCH", body: { asset_name } });
export const trashAsset = (id: string) => apiRequest(`/api/asset/${id}`, { method: "DELETE" });
export const restoreAsset = (id: string) => apiRequest(`/api/asset/restore/${id}`, { method: "POST" });
export const copyAsset = (id: string, group: string) =>
  apiRequest<{ asset_id: string }>(`/api/asset/copy/${id}/${group}`, { method: "POST" });

export const listTags = (q?: string) => apiRequest<(Tag & { count: number })[]>("/api/tags/list", { query: { q, take: 200 } });
export const createTag = (tag_name: string) => apiRequest<{ tag_id: string }>("/api/tags/create", { method: "POST", body: { tag_name } });
export const attachTags = (tag_ids: string[], entities: { id: string; type: "asset" | "group" }[]) =>
  apiRequest("/api/tags/attach", { method: "POST", body: { tag_ids, entities } });
export const detachTags = (tag_ids: string[], entities: { id: string; type: "asset" | "group" }[]) =>
  apiRequest("/api/tags/detach", { method: "POST", body: { tag_ids, entities } });

/**
 * A signed, expiring link to a variant's bytes (inline for players, attachment for downloads). Its file, when known,
 * is named: the link is then made where the file's library lives.
 */
export const playLink = (variantId: string, fileId: string | undefined, disposition?: "attachment") =>
  apiRequest<{ link: string; expire: string }>(`/api/asset/content/play-variant/${variantId}`, {
    method: "POST",
    query: { a: fileId },
    body: disposition ? { disposition } : {},
  });

/**
 * A signed link (works in `<img src>`) to an asset's 1280 px preview, or null when it has none: asked through the
 * list call so a missing preview is a null, not a failing request.
 */
export async function mediumPreviewLink(assetId: string): Promise<string | null> {
  const { list } = await apiRequest<{ base_url: string; list: { asset_id: string; preview: string | null }[] }>(
    "/api/asset/content/preview-by-list",
    { method: "POST", body: { ids: [assetId], size: "medium" }, toast: false },
  );
  return list[0]?.preview ?? null;
}

/** Where a trashed item was: the folder a restore puts it back into. */
export interface TrashLocation {
  group_id: string;
  group_name: string;
}

/** Deletes trashed folders and files for good, in the background (the `purge` task; at most 500 per call). */
export const purgeTrashed = (entities: { id: string; type: "group" | "asset" }[]) =>
  apiRequest<{ job_id: string }>("/api/tasklist/enqueue-task/purge", { method: "POST", body: { entities } });

/** Trash of the signed-in user: groups and assets, restorable for 30 days. */
export async function fetchTrash() {
  const [groups, assets] = await Promise.all([
    apiRequest<{ group_id: string; group_name: string; deleted_at: string; location: TrashLocation | null }[]>("/api/group/trash"),
    apiRequest<{ asset_id: string; name: string; mimetype: string; deleted_at: string; location: TrashLocation | null }[]>("/api/asset/trash"),
  ]);
  return { groups, assets };
}

export const getAsset = (id: string, options: { toast?: boolean } = {}) =>
  apiRequest<AssetInfo>(`/api/asset/${id}`, { query: { info: true, tags: true }, ...options });
export const assetVersions = (id: string) => apiRequest<VersionRow[]>(`/api/asset/versions/${id}`);
export const assetGroups = (id: string) => apiRequest<GroupRef[]>(`/api/asset/member-of/${id}`);

/** Starts a browser download of a variant through a signed attachment link. */
export async function downloadVariant(fileId: string, variantId: string) {
  const { link } = await playLink(variantId, fileId, "attachment");
  const a = document.createElement("a");
  a.href = link;
  a.rel = "noopener";
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/** A folder's photos that carry a position (GET /api/group/locations/{id}), for the map view. */
export const groupLocations = (groupId: string, bbox: string | null, signal?: AbortSignal) =>
  apiRequest<{ items: { asset_id: string; name: string; lat: number; lon: number }[]; truncated: boolean }>(`/api/group/locations/${groupId}`, {
    query: { bbox: bbox ?? undefined },
    signal,
  });
