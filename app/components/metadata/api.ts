import type {
  FieldTemplateInfo,
  FieldValueInfo,
  ListInfo,
  ListRecord,
  TaxonNode,
  TreeInfo,
  AssetClassInfo,
} from "../../../workers/services/metadata";
import { apiRequest } from "../../lib/api-client";

/** The metadata API as the screens use it; answer shapes come from the services (type-only imports). */
export type { AssetClassInfo, FieldTemplateInfo, FieldValueInfo, ListInfo, ListRecord, TaxonNode, TreeInfo };

export type TemplateInput = Pick<
  FieldTemplateInfo,
  "field_def_name" | "field_type" | "field_priority" | "field_def_extsys" | "field_def_extsys_key"
> & {
  field_setup: Record<string, unknown>;
};

export const listTemplates = () => apiRequest<FieldTemplateInfo[]>("/api/fields/templates", { query: { take: 500 } });
export const templatesByIds = (ids: string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : apiRequest<FieldTemplateInfo[]>("/api/fields/templates-by-ids", { method: "POST", body: { ids } });
export const createTemplate = (input: TemplateInput) =>
  apiRequest<FieldTemplateInfo>("/api/fields/template", { method: "POST", body: input });
export const changeTemplate = (id: string, input: Partial<TemplateInput>) =>
  apiRequest<FieldTemplateInfo>(`/api/fields/template/${id}`, { method: "PATCH", body: input });
export const deleteTemplate = (id: string, force: boolean, toast = true) =>
  apiRequest(`/api/fields/template/${id}`, { method: "DELETE", query: { force }, toast });

export const valuesFor = (id: string) => apiRequest<FieldValueInfo[]>(`/api/fields/for-entity/${id}`);
export const createValue = (
  id: string,
  body: { def_id: string; asset_version_id: string | null; data: unknown; pts?: [number, number] | null },
) => apiRequest<FieldValueInfo>(`/api/fields/create/${id}`, { method: "POST", body });
export const deleteValue = (id: string, fid: string) => apiRequest(`/api/fields/delete/${id}/${fid}`, { method: "DELETE" });
export const applyFields = (
  id: string,
  body: { asset_class?: string | null; values: { field_id?: string; def_id: string; data: unknown }[]; remove: string[] },
) => apiRequest<FieldValueInfo[]>(`/api/fields/apply/${id}`, { method: "POST", body });
export const bulkSet = (body: { def_id: string; entity_ids: string[]; data: unknown; mode: "replace" | "add" }) =>
  apiRequest<{ changed: number }>("/api/fields/bulk-set", { method: "POST", body });

export const classesByIds = (ids: string[]) => apiRequest<AssetClassInfo[]>("/api/asset/class-by-ids", { method: "POST", body: { ids } });
export const listClasses = () => apiRequest<AssetClassInfo[]>("/api/asset/class/list", { query: { take: 500 } });
export const createClass = (name: string, def_fields: string[]) =>
  apiRequest<{ id: string }>("/api/asset/class/create", { method: "POST", body: { name, def_fields } });
export const changeClass = (id: string, body: { name?: string; def_fields?: string[] }) =>
  apiRequest<AssetClassInfo>(`/api/asset/class/change/${id}`, { method: "PATCH", body });
export const deleteClass = (id: string) => apiRequest(`/api/asset/class/delete/${id}`, { method: "DELETE" });

/** `create/{treeId}` with this id starts a new taxonomy (SPEC's virtual root id). */
export const FOREST_ID = "f".repeat(32);
export const treeList = () => apiRequest<TreeInfo[]>("/api/taxonomy/tree-list");
export const tree = (id: string) => apiRequest<TaxonNode>(`/api/taxonomy/tree/${id}`);
export const createTaxon = (treeId: string, path: string) =>
  apiRequest<{ taxon_id: string; tree_id: string }>(`/api/taxonomy/create/${treeId}`, { method: "POST", body: { path } });
export const changeTaxon = (treeId: string, taxonId: string, body: { name?: string; parent_id?: string }) =>
  apiRequest(`/api/taxonomy/change/${treeId}/${taxonId}`, { method: "PATCH", body });
export const deleteTaxon = (treeId: string, taxonId: string, force: boolean, toast = true) =>
  apiRequest(`/api/taxonomy/delete/${treeId}/${taxonId}/${force}`, { method: "DELETE", toast });

export const lists = () => apiRequest<ListInfo[]>("/api/lists/list");
export const records = (listId: string) => apiRequest<ListRecord[]>(`/api/lists/records/${listId}`);
export const createList = (name: string) => apiRequest<{ list_id: string }>("/api/lists/create", { method: "POST", body: { name } });
export const renameList = (id: string, name: string) => apiRequest(`/api/lists/change/${id}`, { method: "PATCH", body: { name } });
export const deleteList = (id: string) => apiRequest(`/api/lists/delete/${id}`, { method: "DELETE" });
export const putRecord = (listId: string, rec_id: string, label: string) =>
  apiRequest<ListRecord>(`/api/lists/record/${listId}`, { method: "PUT", body: { rec_id, rec_data: { label } } });
export const deleteRecord = (listId: string, recId: string) =>
  apiRequest(`/api/lists/record/${listId}/${encodeURIComponent(recId)}`, { method: "DELETE" });

export const setAssetClass = (id: string, asset_class: string | null) =>
  apiRequest(`/api/asset/${id}`, { method: "PATCH", body: { asset_class } });
