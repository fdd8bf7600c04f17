import { z } from "zod";
import type { RemoteFile } from "./plan.ts";

/**
 * The helper's calls to the product's API: the same calls the app makes (group members, create, create-version,
 * the S3-compatible multipart flow signed by POST /api/upload/sign, upload status, download, delete to the trash),
 * with the user's bearer the app handed over through POST /token.
 */

/** A refused API call: its status and the API's own message (shown to the user as it is). */
export class ApiCallError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
    this.name = "ApiCallError";
  }
}

/** How the helper reaches the API: `fetch` is swappable so the contract suite can route it into workerd. */
export interface ApiTarget {
  base: string;
  fetch: typeof fetch;
}

const ErrorBodySchema = z.object({ message: z.string() }).partial();

const MemberSchema = z.object({
  el_id: z.string(),
  el_type: z.enum(["asset", "group"]),
  el_info: z.object({
    name: z.string(),
    var: z.string().nullable().optional(),
    var_size: z.number().nullable().optional(),
    var_hash: z.string().nullable().optional(),
  }),
});

const WhoamiSchema = z.object({ id: z.string(), name: z.string() });
const GroupSchema = z.object({ group_id: z.string(), group_name: z.string() });
const CreatedAssetSchema = z.object({ asset_id: z.string() });
const VersionInfoSchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("single"), variant_id: z.string(), upload_url: z.string() }),
  z.object({ mode: z.literal("multipart"), variant_id: z.string(), part_size: z.number().int().positive() }),
]);
const SignedSchema = z.object({ url: z.string(), headers: z.record(z.string(), z.string()).optional() });
const StatusSchema = z.object({ state: z.enum(["pending", "saving", "ready", "aborted"]), sha256: z.string().optional(), asset_version: z.number().optional() });

export type VersionInfo = z.infer<typeof VersionInfoSchema>;
export type UploadState = z.infer<typeof StatusSchema>;

export class ApiClient {
  private readonly target: ApiTarget;
  private readonly bearer: () => string | null;
  constructor(target: ApiTarget, bearer: () => string | null) {
    this.target = target;
    this.bearer = bearer;
  }

  /** Absolute URL of an API path or of a root-relative URL the API answered. */
  url(path: string): string {
    return new URL(path, this.target.base).toString();
  }

  /** One authenticated call; a non-2xx answer throws ApiCallError with the API's message. */
  async send(path: string, init: RequestInit & { json?: unknown; auth?: boolean } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const bearer = this.bearer();
    if (init.auth !== false) {
      if (!bearer) throw new ApiCallError(401, "Помощник ещё не получил токен: откройте приложение и повторите");
      headers.set("authorization", `Bearer ${bearer}`);
      headers.set("x-api-version", "1.0");
    }
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    const res = await this.target.fetch(this.url(path), { ...init, headers, body });
    if (res.ok) return res;
    const text = await res.text();
    let message = `HTTP ${res.status}`;
    try {
      message = ErrorBodySchema.parse(JSON.parse(text)).message ?? message;
    } catch {
      if (text) message = `HTTP ${res.status}: ${text.slice(0, 200)}`;
    }
    throw new ApiCallError(res.status, message);
  }

  async json<T>(schema: z.ZodType<T>, path: string, init?: RequestInit & { json?: unknown }): Promise<T> {
    return schema.parse(await (await this.send(path, init)).json());
  }

  whoami() {
    return this.json(WhoamiSchema, "/api/auth/whoami");
  }

  group(id: string) {
    return this.json(GroupSchema, `/api/group/get/${id}`);
  }

  /** Every committed file directly in the group, paging by key (500 a page). */
  async listFiles(groupId: string): Promise<RemoteFile[]> {
    const files: RemoteFile[] = [];
    let after: string | null = null;
    for (;;) {
      const query = new URLSearchParams({ type: "asset", take: "500", sort: "name", order: "asc" });
      if (after) query.set("after", after);
      const res = await this.send(`/api/group/members/${groupId}?${query}`);
      const page = z.array(MemberSchema).parse(await res.json());
      for (const m of page) {
        const info = m.el_info;
        if (m.el_type !== "asset" || !info.var || !info.var_hash || info.var_size == null) continue;
        files.push({ asset_id: m.el_id, name: info.name, variant_id: info.var, size: info.var_size, sha256: info.var_hash });
      }
      after = res.headers.get("x-next-cursor");
      if (!after || page.length < 500) return files;
    }
  }

  createAsset(groupId: string, name: string, mime: string) {
    return this.json(CreatedAssetSchema, "/api/asset/create", { method: "POST", json: { asset_name: name, asset_mime: mime, in_group: groupId } });
  }

  createVersion(assetId: string, groupId: string, name: string, mime: string, size: number, multipart: boolean) {
    return this.json(VersionInfoSchema, `/api/asset/create-version/${assetId}`, {
      method: "POST",
      json: { to_group: groupId, variant_type: "initial", file_name: name, mime_type: mime, size, multipart },
    });
  }

  sign(body: { variant_id: string; op: "create" | "part" | "complete"; method: "POST" | "PUT"; upload_id?: string; part_number?: number }) {
    return this.json(SignedSchema, "/api/upload/sign", { method: "POST", json: body });
  }

  uploadStatus(variantId: string) {
    return this.json(StatusSchema, `/api/upload/status/${variantId}`);
  }

  /** The variant's bytes as a stream. */
  async download(variantId: string): Promise<ReadableStream<Uint8Array>> {
    const res = await this.send(`/api/asset/content/download-variant/${variantId}`);
    if (!res.body) throw new ApiCallError(502, "Пустой ответ при скачивании");
    return res.body;
  }

  /** DELETE /api/asset/{id}: the file goes to the trash (restorable for 30 days). A file already gone is fine. */
  async trash(assetId: string): Promise<void> {
    try {
      await this.send(`/api/asset/${assetId}`, { method: "DELETE" });
    } catch (error) {
      if (!(error instanceof ApiCallError && error.status === 404)) throw error;
    }
  }
}
