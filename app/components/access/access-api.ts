import type { AccessLevel } from "../../../workers/services/access/pure";
import { apiRequest } from "../../lib/api-client";

/** Access levels in the order the editor shows them (SPEC §6), and the answer shapes of the access calls. */
export const LEVELS: readonly AccessLevel[] = [
  "read",
  "download",
  "update",
  "create",
  "delete",
  "execute",
  "group",
  "acl",
  "superuser",
  "deny",
];
export type { AccessLevel };

export interface AccessRule {
  rule_id: string;
  subj_id: string;
  subj_type: "user" | "group";
  subj_name: string | null;
  obj_id: string;
  obj_type: "asset" | "group";
  obj_name: string | null;
  acl: AccessLevel[];
  ctime: string | null;
  created_by: string | null;
}

export interface EntityRules {
  entity_id: string;
  entity_type: "asset" | "group";
  name: string;
  inherit: boolean;
  rules: (AccessRule & { inherited: boolean; from: string })[];
}

export interface NewRule {
  subj: string;
  subj_type: "user" | "group";
  obj: string;
  acl: AccessLevel[];
}

export interface PickerEntry {
  id: string;
  type: "user" | "group";
  name: string;
  login?: string;
  is_robot?: boolean;
}

export const entityRules = (id: string) => apiRequest<EntityRules>(`/api/user/entity-access/${id}`, { toast: false });
export const aclAccess = (id: string) =>
  apiRequest<{ entity_id: string; acl: boolean; grantable: AccessLevel[] }>(`/api/auth/entity-acl-access/${id}`, { toast: false });
export const setInheritance = (id: string, inherit: boolean) =>
  apiRequest<{ entity_id: string; inherit: boolean }>(`/api/auth/access-inheritance/${id}`, {
    method: "POST",
    body: { inherit },
    toast: false,
  });
/** One batch, all or nothing: the API checks every change before applying any. */
export const changeRules = (changes: { create?: NewRule[]; update?: { rule_id: string; acl: AccessLevel[] }[]; delete?: string[] }) =>
  apiRequest("/api/user/acl-list", { method: "PATCH", body: changes, toast: false });
export const searchSubjects = (text: string, signal?: AbortSignal) =>
  apiRequest<PickerEntry[]>(`/api/user/search-user-group/${encodeURIComponent(text)}`, { signal, toast: false });
export const levelTitles = () => apiRequest<{ perm: AccessLevel; title: string }[]>("/api/auth/list-acl-perms");
