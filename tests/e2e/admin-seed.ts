import type { E2EServer } from "./fixtures";

/** Seeding for the admin e2e tests: the administrator's API, called from Node as any API client would. */

export const ROOT = "f".repeat(32);

export interface AdminApi {
  bearer: string;
  call<T>(path: string, init?: { method?: string; json?: unknown; bearer?: string }): Promise<T>;
  status(path: string, bearer: string): Promise<number>;
  createGroup(parent: string, name: string): Promise<string>;
  uploadAsset(group: string, name: string, bytes: Buffer, mime?: string): Promise<string>;
}

/** Signs in as the administrator through POST /api/auth/login and answers helpers bound to that bearer. */
export async function adminApi(server: E2EServer): Promise<AdminApi> {
  const send = (
    path: string,
    init: { method?: string; json?: unknown; bearer?: string; body?: Buffer; headers?: Record<string, string> },
  ) =>
    fetch(new URL(path, server.baseUrl), {
      method: init.method ?? (init.json === undefined ? "GET" : "POST"),
      headers: {
        ...(init.json !== undefined ? { "content-type": "application/json" } : {}),
        ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}),
      },
      body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
    });
  const login = await send("/api/auth/login", { json: { user: server.adminLogin, passwd: server.adminPassword } });
  if (!login.ok) throw new Error(`admin login: ${login.status} ${await login.text()}`);
  const { bearer } = (await login.json()) as { bearer: string };

  const api: AdminApi = {
    bearer,
    async call<T>(path: string, init: { method?: string; json?: unknown; bearer?: string } = {}) {
      const res = await send(path, { ...init, bearer: init.bearer ?? bearer });
      if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${await res.text()}`);
      return (res.status === 204 ? null : await res.json()) as T;
    },
    async status(path, as) {
      return (await send(path, { bearer: as })).status;
    },
    async createGroup(parent, group_name) {
      return (await api.call<{ group_id: string }>("/api/group/create", { json: { parent, group_name } })).group_id;
    },
    async uploadAsset(group, name, bytes, mime = "application/octet-stream") {
      const { asset_id } = await api.call<{ asset_id: string }>("/api/asset/create", {
        json: { asset_name: name, asset_mime: mime, in_group: group },
      });
      const info = await api.call<{ upload_url: string; headers: Record<string, string> }>(`/api/asset/create-version/${asset_id}`, {
        json: { file_name: name, mime_type: mime, size: bytes.byteLength },
      });
      const put = await fetch(info.upload_url, { method: "PUT", body: new Uint8Array(bytes), headers: info.headers });
      if (!put.ok) throw new Error(`upload ${name}: ${put.status} ${await put.text()}`);
      return asset_id;
    },
  };
  return api;
}
