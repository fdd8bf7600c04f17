import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import {
  appUrl,
  callerOnFile,
  checkFileInfo,
  editorSession,
  fileOf,
  getFile,
  loadDiscovery,
  lockInfo,
  lockOperation,
  putFile,
  putRelative,
  renameFile,
  requireProof,
  resolveCaller,
  textData,
  wopiCredential,
  type WopiCaller,
  type WopiCredential,
  decodeUtf7,
} from "../../services/wopi";
import { acrossLibraries } from "../../services/library";
import type { LibraryShardDO } from "../../../durable-objects/library-shard.do";
import { knownPlaceOfId } from "../../db/library-directory";
import type { ShardAnswer } from "../../db/library-shard-call";
import type { CallerCopy } from "../../db/repositories/caller-copy.repository";
import { runWhereItLives } from "../library-place";
import { readRouted, readWhereItLives } from "../library-reads";
import { requireAuth } from "../middleware/require-auth";
import { ErrorSchema, bearerSecurity, createRouter, errorResponses } from "../router";
import { IdSchema } from "../schemas";
import type { AppEnv } from "../types";

/**
 * The WOPI host (`/api/wopi`): the app's calls with the bearer (token, app-url, lock holder) and the editor's calls
 * with a WOPI access token (`?access_token=`, or `Authorization: Bearer` with the same token) on
 * `files/{id}` and `files/{id}/contents`, proof-checked when the configured editor publishes proof keys.
 */

const IdParams = z.object({ id: IdSchema.openapi({ param: { name: "id", in: "path" } }) });
const RightSchema = z.enum(["view", "edit"]);
const TokenQuery = z.object({
  access_token: z.string().max(2048).optional().openapi({ description: "The WOPI access token (from /api/wopi/token or app-url)" }),
  access_token_ttl: z.string().max(20).optional(),
});
const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const plainError = (description: string) => ({ description, content: { "application/json": { schema: ErrorSchema } } });
const binary = z.string().openapi({ format: "binary" });

const TokenBody = z.object({
  asset_id: IdSchema,
  action: RightSchema.default("edit").openapi({ description: "edit needs update on the asset; without it a view token is issued" }),
  client: z.enum(["editor", "browser"]).default("editor").openapi({
    description: "editor: for an office editor (its requests are proof-checked); browser: for the app's own viewer and text editor",
  }),
});
const LockSchema = z.object({ holder_id: z.string(), holder_name: z.string(), expires_at: z.string() }).nullable();
const TokenAnswer = z.object({
  access_token: z.string(),
  access_token_ttl: z.number().int().openapi({ description: "expiry of the token, epoch milliseconds" }),
  right: RightSchema,
  wopi_src: z.string(),
  file: z.object({
    asset_id: z.string(),
    name: z.string(),
    mime_type: z.string(),
    size: z.number().int(),
    version: z.number().int(),
    group_id: z.string().nullable(),
    extension: z.string(),
  }),
  lock: LockSchema,
  office_editor: z.enum(["none", "available", "unsupported", "unreachable"]).openapi({
    description: "whether the configured office editor opens this file (app-url answers only when available)",
  }),
});
const AppUrlAnswer = z.object({
  url: z.string(),
  action: z.string(),
  app: z.string(),
  favicon: z.string().nullable(),
  access_token: z.string(),
  access_token_ttl: z.number().int(),
  right: RightSchema,
});
const TextBlockSchema = z.union([
  z.object({ type: z.enum(["heading", "paragraph"]), text: z.string() }),
  z.object({ type: z.literal("row"), cells: z.array(z.string()) }),
  z.object({ type: z.literal("sheet"), name: z.string() }),
]);
const TextAnswer = z.object({
  asset_id: z.string(),
  version: z.number().int(),
  file_name: z.string(),
  mime_type: z.string(),
  kind: z.string().nullable(),
  text: z.string(),
  blocks: z.array(TextBlockSchema),
  truncated: z.boolean(),
});
const WopiHeaders = z.object({
  "x-wopi-override": z.string().max(64).optional(),
  "x-wopi-lock": z.string().optional(),
  "x-wopi-oldlock": z.string().optional(),
  "x-wopi-suggestedtarget": z.string().max(2048).optional(),
  "x-wopi-relativetarget": z.string().max(2048).optional(),
  "x-wopi-overwriterelativetarget": z.string().max(10).optional(),
  "x-wopi-requestedname": z.string().max(2048).optional(),
});

function originOf(c: Context<AppEnv>): string {
  return new URL(c.req.url).origin;
}

/** The WOPI token of a request: query first, as editors send it; else the Authorization header. */
function tokenOf(c: Context<AppEnv>): string | undefined {
  const bearer = /^Bearer ([^\s]+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
  return c.req.query("access_token") || bearer;
}

/** An editor's request proved, when the editor signs its requests. */
function prove(c: Context<AppEnv>, credential: WopiCredential): Promise<void> {
  return requireProof(c.var.rc, credential, c.req.url, {
    proof: c.req.header("x-wopi-proof"),
    proofOld: c.req.header("x-wopi-proofold"),
    timestamp: c.req.header("x-wopi-timestamp"),
  });
}

/** The WOPI token of a request checked and proved, with the file over the catalog. */
async function wopiCaller(c: Context<AppEnv>, assetId: string, options: { variants?: boolean } = {}): Promise<WopiCaller> {
  const caller = await resolveCaller(c.var.rc, tokenOf(c), assetId, options);
  await prove(c, caller);
  return caller;
}

/**
 * An editor's read of the file where its library lives (decision 051). A file this isolate knows to be in the
 * catalog: as ever, the token's credential and the file's rows in one round trip (`wopiCaller`). Otherwise the
 * credential is checked here (global rows, the caller's copy read beside them), then the read runs over the catalog
 * or in one call to the library's shard, which checks the file. The token's user becomes the request's actor.
 */
async function wopiRead<T>(
  c: Context<AppEnv>,
  assetId: string,
  here: (caller: WopiCaller) => Promise<T>,
  there: (shard: Pick<LibraryShardDO, "routedRead">, copy: CallerCopy, credential: WopiCredential) => Promise<ShardAnswer<T | null>>,
  options: { variants?: boolean } = {},
): Promise<T> {
  const known = knownPlaceOfId(assetId);
  if (known && known.place !== "shard") {
    const caller = await wopiCaller(c, assetId, options);
    c.set("actor", caller.actor);
    return here(caller);
  }
  const credential = await wopiCredential(c.var.rc, tokenOf(c), assetId);
  await prove(c, credential);
  c.set("actor", credential.actor);
  return readWhereItLives(
    c.var,
    assetId,
    async () => here(await callerOnFile(c.var.rc, credential, assetId)),
    (shard, copy) => there(shard, copy, credential),
  );
}

/** The token checked and proved, and the file checked where its library lives: before a lock, a save or a rename. */
function checkedCaller(c: Context<AppEnv>, assetId: string): Promise<WopiCaller> {
  return wopiRead(
    c,
    assetId,
    async (caller) => caller,
    (shard, copy, credential) => shard.routedRead(copy, credential.actor, "wopiCaller", [assetId, credential]),
  );
}

function upload(c: Context<AppEnv>) {
  return { body: c.req.raw.body, contentLength: c.req.header("content-length") };
}

/** A UTF-7 file name header, decoded (400 when malformed). */
function nameHeader(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const decoded = decodeUtf7(value);
  if (decoded === null) throw new AppError("BAD_REQUEST", ru.wopi.badName);
  return decoded;
}

const NOT_IMPLEMENTED = 501;

export const wopiRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/token",
      tags: ["WOPI"],
      summary: "Issue a WOPI access token for one asset",
      description:
        "A signed token bound to the caller, the asset, the right (view: read + download; edit: also update) and the caller's session or robot token, valid 4 hours (access_token_ttl is its expiry in epoch ms) and refused (401) once that session ends. Never the app's bearer. Also answers what the editor screen shows: the file, its version and folder, and who holds the lock.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: TokenBody } } } },
      responses: { 200: json(TokenAnswer, "The token and the file"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const b = c.req.valid("json");
      // The file where its library lives; then its lock (a global object), only for a caller the file let in.
      const file = await readRouted(c.var, "editorFile", [b.asset_id, b.action, b.client]);
      return c.json(await editorSession(c.var.rc, file, originOf(c)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/lock/{id}",
      tags: ["WOPI"],
      summary: "Who holds the WOPI lock of an asset",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 200: json(z.object({ lock: LockSchema }), "The lock, or null"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await readRouted(c.var, "fileReadable", [id]);
      return c.json(await lockInfo(c.var.rc, id), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/app-url/{id}",
      tags: ["WOPI"],
      summary: "The office editor's URL for an asset",
      description:
        "From the configured editor's /hosting/discovery (WOPI_DISCOVERY_URL, cached an hour): the action URL for the file's extension with WOPISrc filled in, and a fresh token. The page opens it in a frame by POSTing access_token and access_token_ttl. 404 when no editor is configured or it does not open this type; 503 when the editor cannot be reached.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams, query: z.object({ action: RightSchema.default("edit") }) },
      responses: { 200: json(AppUrlAnswer, "The editor URL and token"), ...errorResponses(400, 401, 403, 404, 503) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const [discovery, file] = await Promise.all([
        loadDiscovery(c.var.rc.config.WOPI_DISCOVERY_URL),
        readRouted(c.var, "editorFile", [id, c.req.valid("query").action, "editor"]),
      ]);
      return c.json(appUrl(discovery, file, originOf(c)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/files/{id}",
      tags: ["WOPI"],
      summary: "CheckFileInfo",
      description:
        "WOPI CheckFileInfo: BaseFileName, Size, Version (the version number: it changes on every save), OwnerId, UserId, UserFriendlyName, UserCanWrite, ReadOnly, SupportsLocks/GetLock/ExtendedLockLength/Update/Rename, UserCanRename, UserCanNotWriteRelative, PostMessageOrigin, LastModifiedTime, SHA256 and the host URLs. 401 for a missing, forged, expired or other file's token.",
      request: { params: IdParams, query: TokenQuery },
      responses: { 200: json(z.record(z.string(), z.unknown()), "File properties"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      const origin = originOf(c);
      const info = await wopiRead(
        c,
        id,
        (caller) => checkFileInfo(c.var.rc, caller, origin),
        (shard, copy, credential) => shard.routedRead(copy, credential.actor, "wopiFileInfo", [id, credential, origin]),
      );
      return c.json(info, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/files/{id}/contents",
      tags: ["WOPI"],
      summary: "GetFile",
      description:
        "The current version's bytes, streamed from storage, with X-WOPI-ItemVersion. 412 when larger than X-WOPI-MaxExpectedSize.",
      request: { params: IdParams, query: TokenQuery },
      responses: {
        200: { description: "The bytes", content: { "application/octet-stream": { schema: binary } } },
        412: { description: "Larger than X-WOPI-MaxExpectedSize" },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      const file = await wopiRead(
        c,
        id,
        (caller) => fileOf(c.var.rc, caller),
        (shard, copy, credential) => shard.routedRead(copy, credential.actor, "wopiFile", [id, credential]),
        { variants: true },
      );
      return getFile(c.var.rc, c.var.actor.id, file, c.req.header("x-wopi-maxexpectedsize"));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/files/{id}/contents",
      tags: ["WOPI"],
      summary: "PutFile",
      description:
        "Saves the body as a new version (streamed to storage with SHA-256, committed in one batch; processing queued). The lock must match X-WOPI-Lock: 409 with X-WOPI-Lock (the current lock, empty when the file is unlocked and not empty) otherwise. 413 over the limit, 411 without Content-Length, 401 for a view token. Answers X-WOPI-ItemVersion.",
      request: {
        params: IdParams,
        query: TokenQuery,
        headers: WopiHeaders,
        body: { required: true, content: { "*/*": { schema: binary } } },
      },
      responses: {
        200: json(z.object({ LastModifiedTime: z.string() }), "Saved"),
        411: plainError("Content-Length missing"),
        413: plainError("Larger than the limit"),
        501: plainError("Another X-WOPI-Override than PUT"),
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const h = c.req.valid("header");
      if (h["x-wopi-override"] !== undefined && h["x-wopi-override"].toUpperCase() !== "PUT") {
        return c.json(
          {
            statusCode: NOT_IMPLEMENTED,
            message: ru.wopi.unknownOverride(h["x-wopi-override"]),
            error: "Not Implemented",
            requestId: c.var.requestId,
          },
          NOT_IMPLEMENTED,
        );
      }
      const id = c.req.valid("param").id;
      const caller = await checkedCaller(c, id);
      // Where the file's library lives, as every upload (decision 043, «Uploads»): an editor saves every few minutes,
      // and a save across libraries — only for a file listed in another library too — holds them (decision 048).
      const saved = await runWhereItLives(c, id, (rc) => putFile(rc, caller, h["x-wopi-lock"], upload(c)), {
        actor: caller.actor,
        files: [id],
        streamed: true,
      });
      c.header("X-WOPI-ItemVersion", String(saved.version));
      return c.json({ LastModifiedTime: saved.modified }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/files/{id}",
      tags: ["WOPI"],
      summary: "Lock, Unlock, RefreshLock, GetLock, UnlockAndRelock, PutRelativeFile, RenameFile",
      description:
        "X-WOPI-Override LOCK (with X-WOPI-OldLock: UnlockAndRelock), UNLOCK, REFRESH_LOCK, GET_LOCK, PUT_RELATIVE, RENAME_FILE. Locks live in one Durable Object per file and lapse 30 minutes after they were taken or refreshed. A refused lock operation answers 409 with X-WOPI-Lock (the current lock, empty when none). Every lock operation, GET_LOCK included, needs an edit token (401 for a view token). Lock ids over 1,024 characters: 400. PUT_RELATIVE with an existing X-WOPI-RelativeTarget and no overwrite: 409 with X-WOPI-ValidRelativeTarget. Unknown overrides: 501.",
      request: { params: IdParams, query: TokenQuery, headers: WopiHeaders },
      responses: {
        200: { description: "Done (PUT_RELATIVE and RENAME_FILE answer JSON)" },
        501: plainError("Unknown X-WOPI-Override"),
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const h = c.req.valid("header");
      const override = (h["x-wopi-override"] ?? "").toUpperCase();
      const known = ["LOCK", "UNLOCK", "REFRESH_LOCK", "GET_LOCK", "PUT_RELATIVE", "RENAME_FILE"];
      if (!known.includes(override)) {
        return c.json(
          {
            statusCode: NOT_IMPLEMENTED,
            message: ru.wopi.unknownOverride(h["x-wopi-override"] ?? ""),
            error: "Not Implemented",
            requestId: c.var.requestId,
          },
          NOT_IMPLEMENTED,
        );
      }
      const id = c.req.valid("param").id;
      const caller = await checkedCaller(c, id);
      if (override === "PUT_RELATIVE") {
        const target = {
          suggested: nameHeader(h["x-wopi-suggestedtarget"]),
          relative: nameHeader(h["x-wopi-relativetarget"]),
          overwrite: (h["x-wopi-overwriterelativetarget"] ?? "").toLowerCase() === "true",
        };
        const made = await acrossLibraries(c.var.rc, [id], (rc) => putRelative(rc, caller, target, upload(c), originOf(c)));
        return c.json(made, 200);
      }
      if (override === "RENAME_FILE") {
        const name = nameHeader(h["x-wopi-requestedname"]) ?? null;
        // Where the file's library lives, like a rename in the app; across only for a file listed in another one too.
        const renamed = await runWhereItLives(c, id, (rc) => renameFile(rc, caller, name, h["x-wopi-lock"]), {
          actor: caller.actor,
          files: [id],
        });
        return c.json(renamed, 200);
      }
      const headers = await lockOperation(c.var.rc, caller, override as "LOCK" | "UNLOCK" | "REFRESH_LOCK" | "GET_LOCK", {
        lock: h["x-wopi-lock"],
        oldLock: h["x-wopi-oldlock"],
      });
      for (const [name, value] of Object.entries(headers)) c.header(name, value);
      return c.body(null, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/files/{id}/text",
      tags: ["WOPI"],
      summary: "Plain text of a document (plugin call)",
      description:
        "The text of the current version, for search, RAG and plugins: plain-text files (text/*, JSON, CSV, Markdown …) and the XML of DOCX, XLSX, PPTX, ODT, ODS, ODP, with `blocks` keeping headings, paragraphs and table rows. Files up to 20 MiB (413 above); 415 for other types; 503 when the media Worker, which extracts it, gives no answer in 30 s.",
      request: { params: IdParams, query: TokenQuery },
      responses: { 200: json(TextAnswer, "The text"), 413: plainError("Too large"), ...errorResponses(400, 401, 404, 415, 503) },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      const file = await wopiRead(
        c,
        id,
        (caller) => fileOf(c.var.rc, caller),
        (shard, copy, credential) => shard.routedRead(copy, credential.actor, "wopiFile", [id, credential]),
      );
      return c.json(await textData(c.var.rc, file), 200);
    },
  );
