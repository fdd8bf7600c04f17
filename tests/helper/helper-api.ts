import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/** The product's API as a test drives it from outside (the other side of the helper's sync). */
export class ProductApi {
  readonly base: string;
  bearer = "";

  constructor(base: string) {
    this.base = base;
  }

  async call<T>(path: string, init: { method?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {}, expected = 200): Promise<T> {
    const headers: Record<string, string> = { "x-api-version": "1.0", ...init.headers };
    if (this.bearer) headers.authorization = `Bearer ${this.bearer}`;
    if (init.json !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(new URL(path, this.base), { method: init.method ?? "GET", headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
    const text = await res.text();
    if (res.status !== expected) throw new Error(`${init.method ?? "GET"} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return (text && res.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : text) as T;
  }

  async login(user: string, passwd: string): Promise<string> {
    this.bearer = "";
    this.bearer = (await this.call<{ bearer: string }>("/api/auth/login", { method: "POST", json: { user, passwd } })).bearer;
    return this.bearer;
  }

  async createGroup(name: string): Promise<string> {
    return (await this.call<{ group_id: string }>("/api/group/create", { method: "POST", json: { parent: "f".repeat(32), group_name: name } })).group_id;
  }

  /** Committed files directly in the group: name → { asset_id, sha256 }. */
  async files(groupId: string): Promise<Map<string, { asset_id: string; sha256: string }[]>> {
    const page = await this.call<{ el_id: string; el_type: string; el_info: { name: string; var_hash: string | null } }[]>(
      `/api/group/members/${groupId}?type=asset&take=500`,
    );
    const map = new Map<string, { asset_id: string; sha256: string }[]>();
    for (const m of page) {
      if (m.el_type !== "asset" || !m.el_info.var_hash) continue;
      map.set(m.el_info.name, [...(map.get(m.el_info.name) ?? []), { asset_id: m.el_id, sha256: m.el_info.var_hash }]);
    }
    return map;
  }

  /** Uploads bytes as a new version of `assetId` (single PUT), as the app does. */
  async putVersion(assetId: string, groupId: string, bytes: Buffer): Promise<void> {
    const info = await this.call<{ upload_url: string }>(`/api/asset/create-version/${assetId}`, {
      method: "POST",
      json: { to_group: groupId, variant_type: "initial", size: bytes.length },
    });
    await this.call(new URL(info.upload_url, this.base).toString(), { method: "PUT", body: new Uint8Array(bytes), headers: { "content-type": "application/octet-stream" } }, 201);
  }

  async createFile(groupId: string, name: string, bytes: Buffer): Promise<string> {
    const { asset_id } = await this.call<{ asset_id: string }>("/api/asset/create", {
      method: "POST",
      json: { asset_name: name, asset_mime: "application/octet-stream", in_group: groupId },
    });
    await this.putVersion(asset_id, groupId, bytes);
    return asset_id;
  }
}

export const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

export async function sha256OfPath(path: string): Promise<string | null> {
  try {
    return sha256(await readFile(path));
  } catch {
    return null;
  }
}

export async function namesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => !n.startsWith(".")).sort();
  } catch {
    return [];
  }
}

/** Polls `probe` until it answers something truthy; fails with `what` after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

export const inDir = (dir: string, name: string) => join(dir, name);
