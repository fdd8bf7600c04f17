import { apiCall, apiRequest } from "../../lib/api-client";
import type { AccessRule } from "../access/access-api";

/** Calls and answer shapes of the administration screens (users, robots, groups of users, audit log). */

export const PAGE_SIZE = 25;

export interface User {
  user_id: string;
  user_name: string;
  login: string;
  enabled: boolean;
  is_admin: boolean;
  is_robot: boolean;
  chroot_groups: string[];
  default_storage: string | null;
  acl_count: number;
  has_password: boolean;
  ctime: string;
  mtime: string;
}

export interface UserInput {
  user_name?: string;
  user_login?: string;
  user_passwd?: string;
  enabled?: boolean;
  is_admin?: boolean;
  is_robot?: boolean;
  chroot_groups?: string[];
  default_storage?: string | null;
}

export interface RobotToken {
  token_id: string;
  name: string;
  prefix: string;
  scope_groups: string[] | null;
  ctime: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  status: "active" | "expired" | "revoked";
}

export interface GroupUser {
  user_id: string;
  user_name: string;
  login: string;
  enabled: boolean;
  since: string | null;
}

export interface AuditEntry {
  id: string;
  ctime: string;
  action: string;
  actor_id: string | null;
  actor_name: string | null;
  actor_login: string | null;
  object_type: string | null;
  object_id: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
  /** file and folder events: the name it had then */
  object_name?: string | null;
  /** users, folders and files the entry mentions that still exist, by id */
  names: Record<string, { type: "user" | "group" | "asset"; name: string }>;
}

/** A page and the total over all pages (from `X-Total-Count`). */
export interface Page<T> {
  items: T[];
  total: number;
}

async function paged<T>(path: string, query: Record<string, string | number | boolean | undefined>): Promise<Page<T>> {
  const { data, headers } = await apiCall<T[]>(path, { query });
  return { items: data, total: Number(headers.get("x-total-count") ?? data.length) };
}

export const listUsers = (q: { enabled?: boolean; q?: string; skip: number; take?: number }) =>
  paged<User>("/api/user", { enabled: q.enabled, q: q.q || undefined, skip: q.skip, take: q.take ?? PAGE_SIZE });
export const getUser = (id: string) => apiRequest<User>(`/api/user/${id}`);
/** Form calls answer errors in place (no toast): the dialog shows the API's message next to the fields. */
export const createUser = (input: UserInput) => apiRequest<User>("/api/user", { method: "POST", body: input, toast: false });
export const patchUser = (id: string, input: UserInput, toast = false) =>
  apiRequest<User>(`/api/user/${id}`, { method: "PATCH", body: input, toast });
export const deleteUser = (id: string, newOwner?: string) =>
  apiRequest(`/api/user/${id}`, { method: "DELETE", query: { new_owner: newOwner }, toast: false });

export const listTokens = (userId: string) => apiRequest<RobotToken[]>(`/api/user/${userId}/tokens`);
export const createToken = (userId: string, body: { name: string; expires_at?: string; scope_groups?: string[] }) =>
  apiRequest<RobotToken & { token: string }>(`/api/user/${userId}/tokens`, { method: "POST", body, toast: false });
export const revokeToken = (userId: string, tokenId: string) =>
  apiRequest<RobotToken>(`/api/user/${userId}/tokens/${tokenId}`, { method: "DELETE" });

export const groupsWithUsers = (skip: number, take = PAGE_SIZE) =>
  apiRequest<{ group_id: string; group_name: string; users: number }[]>("/api/group/groups-with-users", { query: { skip, take } });
export const groupUsers = (groupId: string, skip: number, take = PAGE_SIZE) =>
  apiRequest<GroupUser[]>(`/api/group/users/${groupId}`, { query: { skip, take } });
export const addGroupUsers = (groupId: string, users: string[]) =>
  apiRequest<GroupUser[]>(`/api/group/users/${groupId}`, { method: "POST", body: { users } });
export const removeGroupUsers = (groupId: string, users: string[]) =>
  apiRequest(`/api/group/users/${groupId}`, { method: "DELETE", query: { users: users.join(",") } });
export const memberOf = (userId: string, skip: number, take = PAGE_SIZE) =>
  apiRequest<{ group_id: string; group_name: string; since: string | null }[]>(`/api/user/memeber-of/${userId}`, { query: { skip, take } });

export const userRules = (userId: string, skip: number, take = PAGE_SIZE) =>
  apiRequest<(AccessRule & { via_group: string | null })[]>(`/api/user/user-acl/${userId}`, { query: { skip, take } });
export const groupRules = (groupId: string, skip: number, take = PAGE_SIZE) =>
  apiRequest<AccessRule[]>(`/api/user/group-acl/${groupId}`, { query: { skip, take } });

export const listStorages = () => apiRequest<{ storage_id: string; storage_name: string }[]>("/api/storage/list");
export const groupName = (id: string) => apiRequest<{ group_id: string; group_name: string }>(`/api/group/get/${id}`, { toast: false });

export const listAudit = (q: { action?: string; actor?: string; entity?: string; from?: string; to?: string; skip: number; take?: number }) =>
  paged<AuditEntry>("/api/audit", { ...q, take: q.take ?? PAGE_SIZE });
