import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import app from "../../workers/app";
import { signWopiToken, type WopiClient, type WopiRight, type WopiVia } from "../../workers/lib/wopi-token";
import { createAsset, createGroup, json, uploadVersion } from "./asset-fixtures";
import { ORIGIN, signIn, type Session, type TestUser } from "./factories";
import { DOCX_MIME, makeDocx } from "../fixtures/office-docs";

/**
 * A scripted WOPI client: the requests Collabora Online sends to a host (CheckFileInfo, GetFile, PutFile, the
 * X-WOPI-Override operations), through the Worker's fetch handler with optional variables (WOPI_DISCOVERY_URL,
 * UPLOAD_MAX_BYTES) that the test configuration leaves at their defaults.
 */

export interface WopiRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: BodyInit;
  /** variables layered over the test environment */
  vars?: Record<string, string>;
}

/** One request through the Worker with `vars` over the environment. */
export async function hit(path: string, o: WopiRequest = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const headers = new Headers(o.headers);
  // Editors send Content-Length with every body; a Request built in the same isolate does not carry it by itself.
  if (o.body instanceof Uint8Array && !headers.has("content-length")) headers.set("content-length", String(o.body.byteLength));
  const request = new Request(`${ORIGIN}${path}`, { method: o.method ?? "GET", headers, body: o.body, redirect: "manual" });
  const res = await app.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, ...o.vars } as unknown as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A WOPI file URL with the token in the query, as editors call it. */
export function fileUrl(assetId: string, token: string, suffix = ""): string {
  return `/api/wopi/files/${assetId}${suffix}?access_token=${encodeURIComponent(token)}`;
}

export interface OfficeFile {
  owner: TestUser & Session;
  groupId: string;
  assetId: string;
  bytes: Uint8Array<ArrayBuffer>;
}

/** A user's folder with one committed file (a DOCX by default), uploaded through the API. */
export async function officeFile(
  o: { name?: string; mime?: string; bytes?: Uint8Array<ArrayBuffer>; owner?: TestUser & Session } = {},
): Promise<OfficeFile> {
  const owner = o.owner ?? (await signIn());
  const groupId = await createGroup(owner.id);
  const name = o.name ?? "Отчёт.docx";
  const mime = o.mime ?? DOCX_MIME;
  const bytes = o.bytes ?? makeDocx("Отчёт", ["Первый абзац", "Второй абзац"]);
  const assetId = await createAsset(owner.bearer, { asset_name: name, asset_mime: mime, in_group: groupId });
  await uploadVersion(owner.bearer, assetId, bytes, { file_name: name, mime_type: mime });
  return { owner, groupId, assetId, bytes };
}

export interface TokenAnswer {
  access_token: string;
  access_token_ttl: number;
  right: WopiRight;
  wopi_src: string;
  file: { name: string; version: number; size: number; group_id: string | null };
  lock: { holder_name: string } | null;
  office_editor: string;
}

/** POST /api/wopi/token as a signed-in user; fails the test unless 200. */
export async function wopiToken(
  bearer: string,
  assetId: string,
  action: WopiRight = "edit",
  client: WopiClient = "editor",
  vars?: Record<string, string>,
): Promise<TokenAnswer> {
  const res = await hit("/api/wopi/token", {
    vars,
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify({ asset_id: assetId, action, client }),
  });
  return json<TokenAnswer>(res);
}

/** The session family (`sid`) of a signed-in user's access token. */
export function sessionOf(bearer: string): string {
  const payload = bearer.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  return (JSON.parse(atob(payload + "=".repeat((4 - (payload.length % 4)) % 4))) as { sid: string }).sid;
}

/** A token signed with the test secret, for cases the API never issues (expired, other user), bound to `sid`. */
export function rawToken(claims: {
  userId: string;
  assetId: string;
  sid: string;
  right?: WopiRight;
  client?: WopiClient;
  exp?: number;
  via?: WopiVia;
}): Promise<string> {
  return signWopiToken(env.JWT_SECRET, { right: "edit", client: "editor", exp: Date.now() + 60_000, via: "session", ...claims });
}

/** POST /files/{id} with an X-WOPI-Override and headers. */
export function override(assetId: string, token: string, op: string, headers: Record<string, string> = {}, o: WopiRequest = {}): Promise<Response> {
  return hit(fileUrl(assetId, token), { ...o, method: "POST", headers: { "x-wopi-override": op, ...headers, ...o.headers } });
}

/** PutFile. */
export function putFile(assetId: string, token: string, body: Uint8Array<ArrayBuffer>, lock?: string, o: WopiRequest = {}): Promise<Response> {
  return hit(fileUrl(assetId, token, "/contents"), {
    ...o,
    method: "POST",
    body,
    headers: { "x-wopi-override": "PUT", ...(lock !== undefined ? { "x-wopi-lock": lock } : {}), ...o.headers },
  });
}

export async function checkFileInfo(assetId: string, token: string, o: WopiRequest = {}): Promise<Record<string, unknown>> {
  return json<Record<string, unknown>>(await hit(fileUrl(assetId, token), o));
}

/** Asserts a 409 lock conflict naming the current lock. */
export async function expectLockConflict(res: Response, current: string): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(409);
  expect(res.headers.get("x-wopi-lock")).toBe(current);
}
