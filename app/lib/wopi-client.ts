import { apiCall, apiRequest } from "./api-client";
import { ApiError } from "./api-error";

/**
 * The browser side of the WOPI host: the editor screen asks for a token with the app's bearer, then talks to
 * /api/wopi/files/{id} with the WOPI token exactly as an office editor does (GetFile, Lock, PutFile …), so the
 * built-in text editor and office editors share one save path and one lock.
 */

export interface EditorSession {
  access_token: string;
  access_token_ttl: number;
  right: "view" | "edit";
  wopi_src: string;
  file: { asset_id: string; name: string; mime_type: string; size: number; version: number; group_id: string | null; extension: string };
  lock: LockInfo | null;
  office_editor: "none" | "available" | "unsupported" | "unreachable";
}

export interface LockInfo {
  holder_id: string;
  holder_name: string;
  expires_at: string;
}

export interface AppUrl {
  url: string;
  action: string;
  access_token: string;
  access_token_ttl: number;
}

export type TextBlock = { type: "heading" | "paragraph"; text: string } | { type: "row"; cells: string[] } | { type: "sheet"; name: string };

export interface TextData {
  version: number;
  kind: string | null;
  blocks: TextBlock[];
  truncated: boolean;
}

export const openSession = (assetId: string, action: "view" | "edit") =>
  apiRequest<EditorSession>("/api/wopi/token", { method: "POST", body: { asset_id: assetId, action, client: "browser" } });

/** The office editor's URL, or null when none is configured or it does not open this file (the built-in view then). */
export async function officeUrl(assetId: string, action: "view" | "edit"): Promise<AppUrl | null> {
  try {
    return (await apiCall<AppUrl>(`/api/wopi/app-url/${assetId}`, { query: { action }, toast: false })).data;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 503)) return null;
    throw error;
  }
}

export const lockHolder = (assetId: string) => apiRequest<{ lock: LockInfo | null }>(`/api/wopi/lock/${assetId}`, { toast: false });

function fileUrl(s: EditorSession, suffix = ""): string {
  return `/api/wopi/files/${s.file.asset_id}${suffix}?access_token=${encodeURIComponent(s.access_token)}`;
}

async function wopiError(res: Response): Promise<ApiError> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  const message = typeof body === "object" && body && "message" in body ? String((body as { message: unknown }).message) : text;
  return new ApiError(res.status, body, message);
}

export async function getFileText(s: EditorSession): Promise<string> {
  const res = await fetch(fileUrl(s, "/contents"));
  if (!res.ok) throw await wopiError(res);
  return res.text();
}

export async function getFileBlobUrl(s: EditorSession): Promise<string> {
  const res = await fetch(fileUrl(s, "/contents"));
  if (!res.ok) throw await wopiError(res);
  const type = s.file.mime_type || "application/octet-stream";
  return URL.createObjectURL(new Blob([await res.arrayBuffer()], { type }));
}

export async function getTextData(s: EditorSession): Promise<TextData> {
  const res = await fetch(fileUrl(s, "/text"));
  if (!res.ok) throw await wopiError(res);
  return (await res.json()) as TextData;
}

/** A lock operation: true when done, false on a 409 (someone else holds the file). */
export async function lockOp(s: EditorSession, op: "LOCK" | "UNLOCK" | "REFRESH_LOCK", lockId: string, keepalive = false): Promise<boolean> {
  const res = await fetch(fileUrl(s), { method: "POST", headers: { "x-wopi-override": op, "x-wopi-lock": lockId }, keepalive });
  if (res.status === 409) return false;
  if (!res.ok) throw await wopiError(res);
  return true;
}

/** PutFile under our lock; answers the new version number. */
export async function putFile(s: EditorSession, lockId: string, text: string): Promise<number> {
  const res = await fetch(fileUrl(s, "/contents"), {
    method: "POST",
    headers: { "x-wopi-override": "PUT", "x-wopi-lock": lockId, "content-type": "application/octet-stream" },
    body: new TextEncoder().encode(text),
  });
  if (!res.ok) throw await wopiError(res);
  return Number(res.headers.get("x-wopi-itemversion") ?? 0);
}
