import type { CollectionInfo, ItemsPage, ListedCollection } from "../../workers/services/collections";
import { apiRequest } from "./api-client";

/** The API's answer shapes, shared with the server's services (type-only imports: no server code ships). */
export type { CollectionInfo, ItemsPage, ListedCollection };

export interface CollectionMember {
  subj: string;
  subj_type: "user" | "group";
  name: string | null;
  role: "view" | "comment" | "edit";
  ctime: string | null;
}

/** Signals other parts of the screen (the sidebar) that the caller's collections changed. */
export const COLLECTIONS_CHANGED = "mam:collections-changed";
export const collectionsChanged = () => window.dispatchEvent(new Event(COLLECTIONS_CHANGED));

export const listCollections = () => apiRequest<{ items: ListedCollection[] }>("/api/collections", { toast: false });
export const getCollection = (id: string) => apiRequest<CollectionInfo>(`/api/collections/${id}`, { toast: false });
export const createCollection = (name: string, description?: string) =>
  apiRequest<CollectionInfo>("/api/collections", { method: "POST", body: { name, description } });
export const updateCollection = (id: string, patch: { name?: string; description?: string }) =>
  apiRequest<CollectionInfo>(`/api/collections/${id}`, { method: "PATCH", body: patch });
export const deleteCollection = (id: string) => apiRequest(`/api/collections/${id}`, { method: "DELETE" });
export const collectionItems = (id: string, skip: number, take: number) =>
  apiRequest<ItemsPage>(`/api/collections/${id}/items`, { query: { skip, take } });
export const addToCollection = (id: string, asset_ids: string[]) =>
  apiRequest<{ added: number }>(`/api/collections/${id}/items`, { method: "POST", body: { asset_ids } });
export const removeFromCollection = (id: string, asset_ids: string[]) =>
  apiRequest(`/api/collections/${id}/remove-items`, { method: "POST", body: { asset_ids } });
export const reorderCollection = (id: string, asset_ids: string[]) =>
  apiRequest(`/api/collections/${id}/order`, { method: "PUT", body: { asset_ids } });
/** The items placed on the map (EXIF GPS) the caller may read, inside `bbox` (west,south,east,north) when given. */
export const collectionLocations = (id: string, bbox: string | null, signal?: AbortSignal) =>
  apiRequest<{ items: { asset_id: string; name: string; lat: number; lon: number }[]; truncated: boolean }>(`/api/collections/${id}/locations`, {
    query: { bbox: bbox ?? undefined },
    signal,
  });
export const collectionMembers = (id: string) => apiRequest<{ items: CollectionMember[] }>(`/api/collections/${id}/members`);
export const shareCollection = (id: string, subj: string, subj_type: "user" | "group", role: CollectionMember["role"]) =>
  apiRequest<CollectionMember>(`/api/collections/${id}/members`, { method: "PUT", body: { subj, subj_type, role } });
export const unshareCollection = (id: string, subj: string) => apiRequest(`/api/collections/${id}/members/${subj}`, { method: "DELETE" });

/** At most this many ids per call (the API's stated maximum). */
export const MAX_IDS_PER_CALL = 1000;
