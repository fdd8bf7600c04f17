import { env } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { ACCESS_LEVELS, type AccessLevel } from "../../workers/services/access/access.service";
import { maskOf } from "../../workers/services/access/access-policy";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { createDb } from "../../workers/db/client";
import { insertGroupStatements, runBatch } from "../../workers/db/repositories/group.repository";
import { sortKeyOf } from "../../workers/services/library/group-tree";
import { call, DEFAULT_PASSWORD } from "./factories";
import {
  admin,
  createGroup,
  insertAsset,
  insertAssetClass,
  insertTag,
  ordinaryUser,
  releaseMovedLibraries,
  uniqueName,
} from "./library-factories";
import { switchLibrary } from "./library-shard-fixtures";
import { throughShards } from "./through-shards";

/**
 * The permission matrix (security tier): every endpoint of the OpenAPI document has a row, and for every row each
 * caller gets exactly the expected status. Entity rows name the levels they need on which fixture entities; the
 * callers are an administrator, the owner, a user holding exactly those levels, a user holding every other level,
 * a user with deny, a member of a group of users holding the levels, a chrooted user holding them outside the
 * chroot, and no token. Every refused call is proven to change nothing. A new endpoint without a row fails
 * `covers every endpoint`.
 */

interface Fixture {
  owner: string;
  /** top-level group of the owner, with `sub` inside and `asset` listed in it */
  top: string;
  sub: string;
  subName: string;
  /** a second top-level group of the owner (targets of moves, copies, inserts) */
  dest: string;
  asset: string;
  version: string;
  variant: string;
  tag: string;
  /** when the fixture was made, epoch ms (a snapshot counts the audit rows written since) */
  born: number;
}

interface Req {
  method: string;
  path: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
}

type Target = "top" | "sub" | "dest" | "asset";
type Need = [Target, AccessLevel];

type Row =
  /** needs levels on fixture entities; `ok` for admin, owner, exact holder and group member */
  | { kind: "entity"; needs: Need[]; ok: number; req: (f: Fixture) => Req; prepare?: (f: Fixture) => Promise<void>; others?: number }
  /** any signed-in caller gets `ok` (lists filtered by visibility, the caller's own things); no token 401 */
  | { kind: "signedIn"; ok: number; req: (f: Fixture) => Req; /** what a robot token gets, when not `ok` */ robot?: number }
  /** administrators only: `ok` for the administrator, 403 for everyone else, 401 without a token */
  | { kind: "admin"; ok: number; req: (f: Fixture) => Req; prepare?: (f: Fixture) => Promise<void> }
  /** public: everyone, with or without a token, gets `status` */
  | { kind: "open"; status: number; req: (f: Fixture) => Req }
  /** authenticated by its own credential (signed link, S3 signature, upload socket ticket): without it, `status` */
  | { kind: "credential"; status: number; req: (f: Fixture) => Req; why: string }
  /** another capability's object addressed by id: an unknown id answers `signedIn` to every signed-in caller */
  | { kind: "probe"; signedIn: number; req: (f: Fixture) => Req };

const X = "a".repeat(32);
/** The reviewer each fixture's review-request row asks (a user who reads the fixture's asset). */
const reviewers = new Map<string, string>();
const J = (method: string, path: string, json?: unknown): Req => ({ method, path, json });
const G = (path: string): Req => ({ method: "GET", path });

async function trashGroup(id: string) {
  const now = Date.now();
  await env.DB.batch([
    env.DB.prepare("UPDATE groups SET deleted_at = ? WHERE id = ?").bind(now, id),
    env.DB.prepare("UPDATE group_members SET trashed_at = ? WHERE el_id = ?").bind(now, id),
  ]);
}

/** Lists the fixture's asset for sale straight in D1 (the listing call has its own row). */
async function listForSale(asset: string) {
  await env.DB.prepare(
    "INSERT INTO shop_listings (entity_id, entity_type, price, currency, licence, created_by, ctime, mtime) VALUES (?, 'asset', 100, 'RUB', 'Матрица', ?, 0, 0)",
  )
    .bind(asset, adminId)
    .run();
}

/** An order of the fixture's owner for its asset, with the asset's id as the order's id. */
async function orderFor(f: Fixture, status: "awaiting_approval" | "approved") {
  await env.DB.batch([
    env.DB.prepare(
      "INSERT INTO shop_orders (id, buyer_id, status, currency, total, payment, ctime, mtime) VALUES (?, ?, ?, 'RUB', 100, 'invoice', 0, 0)",
    ).bind(f.asset, f.owner, status),
    env.DB.prepare(
      "INSERT INTO shop_order_items (order_id, entity_id, entity_type, name, price, currency, licence) VALUES (?, ?, 'asset', 'Матрица', 100, 'RUB', 'Матрица')",
    ).bind(f.asset, f.asset),
  ]);
}

async function trashAsset(id: string) {
  const now = Date.now();
  await env.DB.batch([
    env.DB.prepare("UPDATE assets SET deleted_at = ? WHERE id = ?").bind(now, id),
    env.DB.prepare("UPDATE group_members SET trashed_at = ? WHERE el_id = ?").bind(now, id),
  ]);
}

const ROWS: Record<string, Row> = {
  // Misc and auth
  "GET /api/version": { kind: "open", status: 200, req: () => G("/api/version") },
  "GET /api/health": { kind: "open", status: 200, req: () => G("/api/health") },
  "GET /api/ping": { kind: "open", status: 200, req: () => G("/api/ping") },
  // the API reference, listed in its own document
  "GET /api/openapi.json": { kind: "open", status: 200, req: () => G("/api/openapi.json") },
  "GET /api/docs": { kind: "open", status: 200, req: () => G("/api/docs") },
  "POST /api/csp-report": {
    kind: "open",
    status: 204,
    req: () => ({
      method: "POST",
      path: "/api/csp-report",
      body: JSON.stringify({ "csp-report": { "blocked-uri": "inline" } }),
      headers: { "content-type": "application/csp-report" },
    }),
  },
  "GET /api/uldl-list": { kind: "signedIn", ok: 200, req: () => G("/api/uldl-list") },
  // No upload servers are configured in tests: every signed-in caller gets the same 400, anonymous callers 401.
  "POST /api/uldl-status": { kind: "signedIn", ok: 400, req: () => J("POST", "/api/uldl-status", [{ id: "r2", ping: 10 }]) },
  "GET /api/auth/sso/{provider}": { kind: "open", status: 404, req: () => G("/api/auth/sso/none") },
  "GET /api/auth/sso-cb/{provider}": { kind: "open", status: 404, req: () => G("/api/auth/sso-cb/none?code=x&state=y") },
  // A valid sign-in (repeated failures would trip the per-IP throttle for the rest of the file).
  "POST /api/auth/login": {
    kind: "open",
    status: 200,
    req: (f) => J("POST", "/api/auth/login", { user: loginOf(f.owner), passwd: DEFAULT_PASSWORD }),
  },
  "GET /api/auth/refresh": { kind: "credential", status: 401, req: () => G("/api/auth/refresh"), why: "refresh cookie" },
  "GET /api/auth/logout": { kind: "credential", status: 204, req: () => G("/api/auth/logout"), why: "refresh cookie" },
  "POST /api/auth/exchange-token": {
    kind: "credential",
    status: 401,
    req: () => J("POST", "/api/auth/exchange-token", { token: "x".repeat(32) }),
    why: "one-time token",
  },
  "POST /api/auth/token-owner": {
    kind: "credential",
    status: 401,
    req: () => J("POST", "/api/auth/token-owner", { token: "x".repeat(32) }),
    why: "the sign-in token it names",
  },
  "GET /api/auth/whoami": { kind: "signedIn", ok: 200, req: () => G("/api/auth/whoami") },
  "GET /api/auth/list-acl-perms": { kind: "signedIn", ok: 200, req: () => G("/api/auth/list-acl-perms") },
  "GET /api/auth/user-abilities": { kind: "signedIn", ok: 200, req: () => G("/api/auth/user-abilities") },
  "GET /api/auth/sso-providers": { kind: "open", status: 200, req: () => G("/api/auth/sso-providers") },

  // Access (this capability)
  "POST /api/user/acl": {
    kind: "entity",
    needs: [["top", "acl"]],
    ok: 201,
    req: (f) => J("POST", "/api/user/acl", { subj: f.owner, obj: f.top, acl: ["deny"] }),
  },
  "PATCH /api/user/acl-list": {
    kind: "entity",
    needs: [["top", "acl"]],
    ok: 200,
    req: (f) => J("PATCH", "/api/user/acl-list", { create: [{ subj: f.owner, obj: f.top, acl: ["deny"] }] }),
  },
  "GET /api/user/acl/{id}": {
    kind: "entity",
    needs: [["top", "acl"]],
    ok: 200,
    others: 404,
    req: (f) => G(`/api/user/acl/${ruleOf(f)}`),
    prepare: ownerRule,
  },
  // A file's history: whoever manages its rights (acl) reads it; everyone else gets the 404 of an unknown id.
  "GET /api/audit": {
    kind: "entity",
    needs: [["asset", "acl"]],
    ok: 200,
    others: 404,
    req: (f) => G(`/api/audit?entity=${f.asset}&action=asset.*`),
  },
  "PATCH /api/user/acl/{id}": {
    kind: "entity",
    needs: [["top", "acl"]],
    ok: 200,
    req: (f) => J("PATCH", `/api/user/acl/${ruleOf(f)}`, { acl: ["deny"] }),
    prepare: ownerRule,
  },
  "DELETE /api/user/acl/{id}": {
    kind: "entity",
    needs: [["top", "acl"]],
    ok: 204,
    req: (f) => J("DELETE", `/api/user/acl/${ruleOf(f)}`),
    prepare: ownerRule,
  },
  // About another user (the administrator): administrators only; about oneself see access-api.test.ts.
  "GET /api/user/user-acl/{id}": { kind: "admin", ok: 200, req: () => G(`/api/user/user-acl/${adminId}`) },
  // The dry run of moving libraries into shards (decision 043): counts of every library, administrators only.
  "GET /api/library-shards/plan": { kind: "admin", ok: 200, req: () => G("/api/library-shards/plan") },
  "GET /api/user/group-acl/{id}": { kind: "entity", needs: [["top", "group"]], ok: 200, req: (f) => G(`/api/user/group-acl/${f.top}`) },
  "GET /api/user/entity-access/{id}": {
    kind: "entity",
    needs: [["top", "acl"]],
    ok: 200,
    req: (f) => G(`/api/user/entity-access/${f.top}`),
  },
  "GET /api/user/memeber-of/{id}": { kind: "admin", ok: 200, req: () => G(`/api/user/memeber-of/${adminId}`) },
  // Any level lets a caller see its own levels.
  "GET /api/auth/entity-access/{id}": {
    kind: "entity",
    needs: [["top", "read"]],
    ok: 200,
    others: 200,
    req: (f) => G(`/api/auth/entity-access/${f.top}`),
  },
  "GET /api/auth/entity-user-access/{id}": {
    kind: "entity",
    needs: [["top", "acl"]],
    ok: 200,
    req: (f) => G(`/api/auth/entity-user-access/${f.top}?user=${f.owner}`),
  },
  "POST /api/auth/entity-user-access": {
    kind: "entity",
    needs: [["top", "acl"]],
    ok: 200,
    req: (f) => J("POST", "/api/auth/entity-user-access", [{ entity: f.top, user: f.owner }]),
  },
  "GET /api/auth/entity-acl-access/{id}": {
    kind: "entity",
    needs: [["top", "read"]],
    ok: 200,
    others: 200,
    req: (f) => G(`/api/auth/entity-acl-access/${f.top}`),
  },
  "GET /api/auth/access-inheritance/{id}": {
    kind: "entity",
    needs: [["top", "read"]],
    ok: 200,
    req: (f) => G(`/api/auth/access-inheritance/${f.top}`),
  },
  "POST /api/auth/access-inheritance/{id}": {
    kind: "entity",
    needs: [["sub", "acl"]],
    ok: 200,
    req: (f) => J("POST", `/api/auth/access-inheritance/${f.sub}`, { inherit: false }),
  },
  "GET /api/group/users/{id}": { kind: "entity", needs: [["top", "group"]], ok: 200, req: (f) => G(`/api/group/users/${f.top}`) },
  "POST /api/group/users/{id}": {
    kind: "entity",
    needs: [["top", "group"]],
    ok: 200,
    req: (f) => J("POST", `/api/group/users/${f.top}`, { users: [f.owner] }),
  },
  "DELETE /api/group/users/{id}": {
    kind: "entity",
    needs: [["top", "group"]],
    ok: 204,
    req: (f) => J("DELETE", `/api/group/users/${f.top}?users=${f.owner}`),
  },

  // Groups
  "GET /api/group/roots": { kind: "signedIn", ok: 200, req: () => G("/api/group/roots") },
  "GET /api/group/acl-roots": { kind: "signedIn", ok: 200, req: () => G("/api/group/acl-roots") },
  "GET /api/group/members/{id}": { kind: "entity", needs: [["top", "read"]], ok: 200, req: (f) => G(`/api/group/members/${f.top}`) },
  "GET /api/group/subtree/{id}": { kind: "entity", needs: [["top", "read"]], ok: 200, req: (f) => G(`/api/group/subtree/${f.top}`) },
  "GET /api/group/get/{id}": { kind: "entity", needs: [["top", "read"]], ok: 200, req: (f) => G(`/api/group/get/${f.top}`) },
  "POST /api/group/create": {
    kind: "entity",
    needs: [["top", "create"]],
    ok: 200,
    req: (f) => J("POST", "/api/group/create", { parent: f.top, group_name: "новая" }),
  },
  // Calls that answer with the entity also need read on it.
  "PATCH /api/group/update/{id}": {
    kind: "entity",
    needs: [
      ["top", "update"],
      ["top", "read"],
    ],

    ok: 200,
    req: (f) => J("PATCH", `/api/group/update/${f.top}`, { group_name: uniqueName() }),
  },
  "DELETE /api/group/delete/{id}": {
    kind: "entity",
    needs: [["sub", "delete"]],
    ok: 204,
    req: (f) => J("DELETE", `/api/group/delete/${f.sub}`),
  },
  "POST /api/group/delete-list": {
    kind: "entity",
    needs: [["sub", "delete"]],
    ok: 204,
    req: (f) => J("POST", "/api/group/delete-list", { ids: [f.sub] }),
  },
  "POST /api/group/restore/{id}": {
    kind: "entity",
    needs: [
      ["sub", "delete"],
      ["sub", "read"],
    ],

    ok: 200,
    req: (f) => J("POST", `/api/group/restore/${f.sub}`),
    prepare: (f) => trashGroup(f.sub),
  },
  "GET /api/group/trash": { kind: "signedIn", ok: 200, req: () => G("/api/group/trash") },
  "DELETE /api/group/purge/{id}": {
    kind: "entity",
    needs: [["sub", "delete"]],
    ok: 202,
    req: (f) => J("DELETE", `/api/group/purge/${f.sub}`),
  },
  "POST /api/group/insert-members/{id}": {
    kind: "entity",
    others: 403,
    needs: [
      ["dest", "create"],
      ["asset", "read"],
      ["asset", "acl"],
    ],
    ok: 204,
    req: (f) => J("POST", `/api/group/insert-members/${f.dest}`, { members: [{ el_id: f.asset, el_type: "asset" }] }),
  },
  "POST /api/group/insert-member-return-where/{id}": {
    kind: "entity",
    others: 403,
    needs: [
      ["dest", "create"],
      ["asset", "read"],
      ["asset", "acl"],
    ],
    ok: 200,
    req: (f) => J("POST", `/api/group/insert-member-return-where/${f.dest}`, { members: [{ el_id: f.asset, el_type: "asset" }] }),
  },
  "POST /api/group/insert-members-return-group/{id}": {
    kind: "entity",
    needs: [
      ["dest", "create"],
      ["dest", "read"],
      ["asset", "read"],
      ["asset", "acl"],
    ],

    ok: 200,
    req: (f) => J("POST", `/api/group/insert-members-return-group/${f.dest}`, { members: [{ el_id: f.asset, el_type: "asset" }] }),
  },
  "DELETE /api/group/delete-members/{id}": {
    kind: "entity",
    others: 403,
    needs: [
      ["top", "delete"],
      ["asset", "read"],
      ["asset", "acl"],
    ],
    ok: 204,
    req: (f) => J("DELETE", `/api/group/delete-members/${f.top}?ids=${f.asset}`),
  },
  "GET /api/group/preview-list/{id}": {
    kind: "entity",
    needs: [["top", "read"]],
    ok: 200,
    req: (f) => G(`/api/group/preview-list/${f.top}`),
  },
  "GET /api/group/search": { kind: "signedIn", ok: 200, req: () => G("/api/group/search?q=Лист") },
  "POST /api/group/move-member/{member}/{from}/{to}": {
    kind: "entity",
    others: 403,
    needs: [
      ["top", "delete"],
      ["dest", "create"],
      ["asset", "read"],
      ["asset", "acl"],
    ],
    ok: 204,
    req: (f) => J("POST", `/api/group/move-member/${f.asset}/${f.top}/${f.dest}`),
  },
  "POST /api/group/move-members/{from}/{to}": {
    kind: "entity",
    others: 403,
    needs: [
      ["top", "delete"],
      ["dest", "create"],
      ["asset", "read"],
      ["asset", "acl"],
    ],
    ok: 204,
    req: (f) => J("POST", `/api/group/move-members/${f.top}/${f.dest}`, { ids: [f.asset] }),
  },
  "POST /api/group/entity-by-path/{root}": {
    kind: "entity",
    needs: [["top", "read"]],
    ok: 200,
    req: (f) => J("POST", `/api/group/entity-by-path/${f.top}`, { path: f.subName }),
  },
  "GET /api/group/dir/{id}": { kind: "entity", needs: [["top", "read"]], ok: 200, req: (f) => G(`/api/group/dir/${f.top}`) },
  "POST /api/group/group-size": {
    kind: "entity",
    needs: [["top", "read"]],
    ok: 200,
    req: (f) => J("POST", "/api/group/group-size", { ids: [f.top] }),
  },
  "GET /api/group/groups-with-users": { kind: "admin", ok: 200, req: () => G("/api/group/groups-with-users") },
  "GET /api/group/storage/{id}": { kind: "entity", needs: [["top", "read"]], ok: 200, req: (f) => G(`/api/group/storage/${f.top}`) },

  // Assets
  "POST /api/asset/class-by-ids": { kind: "signedIn", ok: 200, req: () => J("POST", "/api/asset/class-by-ids", { ids: [X] }) },
  "GET /api/asset/class/list": { kind: "signedIn", ok: 200, req: () => G("/api/asset/class/list") },
  "POST /api/asset/class/create": {
    kind: "admin",
    ok: 200,
    req: () => J("POST", "/api/asset/class/create", { name: uniqueName("Класс") }),
  },
  "PATCH /api/asset/class/change/{id}": {
    kind: "admin",
    ok: 200,
    req: (f) => J("PATCH", `/api/asset/class/change/${classOf(f)}`, { name: uniqueName("Класс") }),
    prepare: makeClass,
  },
  "DELETE /api/asset/class/delete/{id}": {
    kind: "admin",
    ok: 200,
    req: (f) => J("DELETE", `/api/asset/class/delete/${classOf(f)}`),
    prepare: makeClass,
  },
  "GET /api/asset/preview-size": { kind: "signedIn", ok: 200, req: () => G("/api/asset/preview-size") },
  "POST /api/asset/upload-preview/{id}": {
    kind: "entity",
    needs: [["asset", "update"]],
    ok: 200,
    req: (f) => ({ method: "POST", path: `/api/asset/upload-preview/${f.asset}`, body: PNG, headers: { "content-type": "image/png" } }),
  },
  // The plain call replaces (update); `?heal=true` lets a reader store a missing proxy once (video-proxy-heal.test.ts).
  "POST /api/asset/upload-proxy/{id}": {
    kind: "entity",
    needs: [["asset", "update"]],
    ok: 201,
    req: (f) => ({ method: "POST", path: `/api/asset/upload-proxy/${f.asset}`, body: WEBM, headers: { "content-type": "video/webm" } }),
  },
  // The plain call replaces (update); `?heal=true` lets a reader store missing peaks once (preview-heal.test.ts).
  "POST /api/asset/waveform/{id}": {
    kind: "entity",
    needs: [["asset", "update"]],
    ok: 200,
    req: (f) => J("POST", `/api/asset/waveform/${f.asset}`, { version: 1, sampleRate: 44100, durationSec: 1, peaks: [0.1, 0.9] }),
  },
  // Heal review (decision 029, «Who sees a heal»): readers see who made what; accepting a pending heal needs update.
  "GET /api/asset/heal/{id}/{version}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => G(`/api/asset/heal/${f.asset}/0`),
  },
  "POST /api/asset/heal/{id}/{version}/accept": {
    kind: "entity",
    needs: [["asset", "update"]],
    ok: 200,
    prepare: async (f) =>
      void (await env.DB.prepare(
        `INSERT INTO heal_candidates (id, asset_id, version_id, kind, made_by, storage_id, storage_key, mime_type, width, height, content_size, maker, ctime)
         VALUES (?, ?, ?, 'strip', ?, ?, ?, 'image/png', 1600, 90, 10, 'browser', 0)`,
      )
        .bind(newId(), f.asset, f.version, f.owner, "0".repeat(32), `previews/${f.asset}/matrix-strip`)
        .run()),
    req: (f) => J("POST", `/api/asset/heal/${f.asset}/0/accept`, { kind: "strip", maker: f.owner }),
  },
  "GET /api/asset/waveform/{id}/{version}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    prepare: async (f) =>
      void (await env.MEDIA.put(
        `waveforms/${f.asset}/${f.version}.json`,
        JSON.stringify({ version: 1, sampleRate: 8000, durationSec: 1, peaks: [0.5] }),
      )),
    req: (f) => G(`/api/asset/waveform/${f.asset}/0`),
  },
  "GET /api/asset/content/preview/{id}/{version}/{variant}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => G(`/api/asset/content/preview/${f.asset}/1/thumb`),
  },
  "POST /api/asset/content/preview-by-list": {
    kind: "signedIn",
    ok: 200,
    req: (f) => J("POST", "/api/asset/content/preview-by-list", { ids: [f.asset] }),
  },
  "POST /api/asset/content/preview-by-varlist": {
    kind: "signedIn",
    ok: 200,
    req: (f) => J("POST", "/api/asset/content/preview-by-varlist", { ids: [f.variant] }),
  },
  "POST /api/asset/create": {
    kind: "entity",
    needs: [["top", "create"]],
    ok: 200,
    req: (f) => J("POST", "/api/asset/create", { asset_name: "новый.mp4", asset_mime: "video/mp4", in_group: f.top }),
  },
  "POST /api/asset/create-list": {
    kind: "entity",
    needs: [["top", "create"]],
    ok: 200,
    req: (f) => J("POST", "/api/asset/create-list", { assets: [{ asset_name: "новый.mp4", asset_mime: "video/mp4", in_group: f.top }] }),
  },
  "POST /api/asset/delete-list": {
    kind: "entity",
    needs: [["asset", "delete"]],
    ok: 204,
    req: (f) => J("POST", "/api/asset/delete-list", { ids: [f.asset] }),
  },
  "GET /api/asset/trash": { kind: "signedIn", ok: 200, req: () => G("/api/asset/trash") },
  "GET /api/asset/acl-assets": { kind: "signedIn", ok: 200, req: () => G("/api/asset/acl-assets") },
  "POST /api/asset/version-by-ids": { kind: "signedIn", ok: 200, req: (f) => J("POST", "/api/asset/version-by-ids", { ids: [f.version] }) },
  "POST /api/asset/restore/{id}": {
    kind: "entity",
    needs: [
      ["asset", "delete"],
      ["asset", "read"],
    ],

    ok: 200,
    req: (f) => J("POST", `/api/asset/restore/${f.asset}`),
    prepare: (f) => trashAsset(f.asset),
  },
  "POST /api/asset/version/{id}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => J("POST", `/api/asset/version/${f.asset}`, { version: 1 }),
  },
  "GET /api/asset/versions/{id}": { kind: "entity", needs: [["asset", "read"]], ok: 200, req: (f) => G(`/api/asset/versions/${f.asset}`) },
  "GET /api/asset/variants/{id}/{version}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => G(`/api/asset/variants/${f.asset}/1`),
  },
  "POST /api/asset/create-version/{id}": {
    kind: "entity",
    needs: [["asset", "create"]],
    ok: 200,
    req: (f) => J("POST", `/api/asset/create-version/${f.asset}`, { file_name: "v2.mp4", mime_type: "video/mp4", size: 10 }),
  },
  "POST /api/asset/upload": {
    kind: "entity",
    needs: [["top", "create"]],
    ok: 201,
    req: (f) => ({
      method: "POST",
      path: `/api/asset/upload?in_group=${f.top}&name=one.txt`,
      body: "12345",
      headers: { "content-type": "text/plain" },
    }),
  },
  "POST /api/asset/upload-batch": {
    kind: "entity",
    needs: [["top", "create"]],
    ok: 201,
    req: (f) => ({
      method: "POST",
      path: `/api/asset/upload-batch?in_group=${f.top}`,
      body: '--mam\r\nContent-Disposition: form-data; name="file"; filename="one.txt"\r\nContent-Type: text/plain\r\n\r\n12345\r\n--mam--\r\n',
      headers: { "content-type": "multipart/form-data; boundary=mam" },
    }),
  },
  "PUT /api/asset/content/upload/{variantId}": {
    kind: "credential",
    status: 403,
    req: (f) => ({ method: "PUT", path: `/api/asset/content/upload/${f.variant}`, body: "x" }),
    why: "signed upload link",
  },
  "POST /api/asset/drop-empty-version/{id}": {
    kind: "entity",
    needs: [["asset", "update"]],
    ok: 200,
    req: (f) => J("POST", `/api/asset/drop-empty-version/${f.asset}`),
  },
  "GET /api/asset/content/download/{id}/{version}/{variant}": {
    kind: "entity",
    needs: [["asset", "download"]],
    ok: 200,
    req: (f) => G(`/api/asset/content/download/${f.asset}/1/master`),
  },
  "GET /api/asset/content/download-variant/{variantId}": {
    kind: "entity",
    needs: [["asset", "download"]],
    ok: 200,
    req: (f) => G(`/api/asset/content/download-variant/${f.variant}`),
  },
  "GET /api/asset/content/stream/{variantId}": {
    kind: "credential",
    status: 401,
    req: (f) => G(`/api/asset/content/stream/${f.variant}`),
    why: "signed play link",
  },
  "GET /api/asset/content/stream/{variantId}/{fileName}": {
    kind: "credential",
    status: 401,
    req: (f) => G(`/api/asset/content/stream/${f.variant}/${encodeURIComponent("Отчёт.pdf")}`),
    why: "signed play link with the file's name for the PDF viewer's title",
  },
  "POST /api/asset/content/play/{id}": {
    kind: "entity",
    needs: [["asset", "download"]],
    ok: 200,
    req: (f) => J("POST", `/api/asset/content/play/${f.asset}`, {}),
  },
  "POST /api/asset/content/play-variant/{variant}": {
    kind: "entity",
    needs: [["asset", "download"]],
    ok: 200,
    req: (f) => J("POST", `/api/asset/content/play-variant/${f.variant}`, {}),
  },
  "GET /api/asset/content/play-variant/{variant}": {
    kind: "entity",
    needs: [["asset", "download"]],
    ok: 200,
    req: (f) => G(`/api/asset/content/play-variant/${f.variant}`),
  },
  "GET /api/asset/content-size/{id}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => G(`/api/asset/content-size/${f.asset}`),
  },
  "GET /api/asset/member-of/{id}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => G(`/api/asset/member-of/${f.asset}`),
  },
  "GET /api/asset/tech-fields/{id}/{variantId}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => G(`/api/asset/tech-fields/${f.asset}/${f.variant}`),
  },
  // Duplicates: read on the file; the lookup and its answers are filtered to what the caller may read.
  "GET /api/asset/duplicates/{id}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => G(`/api/asset/duplicates/${f.asset}`),
  },
  "POST /api/asset/duplicate-lookup": {
    kind: "signedIn",
    ok: 200,
    req: () => J("POST", "/api/asset/duplicate-lookup", { sha256: ["0".repeat(64)] }),
  },
  "GET /api/duplicates": { kind: "admin", ok: 200, req: () => G("/api/duplicates?kind=exact") },
  "GET /api/asset/variant-tech-fields/{variantId}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => G(`/api/asset/variant-tech-fields/${f.variant}`),
  },
  "GET /api/asset/variant-tech-props/{id}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => G(`/api/asset/variant-tech-props/${f.variant}`),
  },
  "POST /api/asset/copy/{a}/{b}": {
    kind: "entity",
    needs: [
      ["asset", "read"],
      ["asset", "download"],
      ["dest", "create"],
    ],
    ok: 200,
    req: (f) => J("POST", `/api/asset/copy/${f.asset}/${f.dest}`),
  },
  "GET /api/asset/asset-proxy-doc/{id}/{version}": {
    kind: "entity",
    needs: [["asset", "download"]],
    ok: 200,
    req: (f) => G(`/api/asset/asset-proxy-doc/${f.asset}/1`),
  },
  "GET /api/asset/{id}": { kind: "entity", needs: [["asset", "read"]], ok: 200, req: (f) => G(`/api/asset/${f.asset}`) },
  "PATCH /api/asset/{id}": {
    kind: "entity",
    needs: [
      ["asset", "update"],
      ["asset", "read"],
    ],

    ok: 200,
    req: (f) => J("PATCH", `/api/asset/${f.asset}`, { asset_name: "другое.mp4" }),
  },
  "DELETE /api/asset/{id}": { kind: "entity", needs: [["asset", "delete"]], ok: 204, req: (f) => J("DELETE", `/api/asset/${f.asset}`) },

  // Tags
  "GET /api/tags/list": { kind: "signedIn", ok: 200, req: () => G("/api/tags/list") },
  "POST /api/tags/list-by-ids": { kind: "signedIn", ok: 200, req: (f) => J("POST", "/api/tags/list-by-ids", { ids: [f.tag] }) },
  // Search: every signed-in caller gets 200; hits are filtered by visibility (search-api.test.ts proves which).
  "GET /api/search/query/{x}": {
    kind: "signedIn",
    ok: 200,
    req: (f) => G(`/api/search/query/${encodeURIComponent(f.subName)}?facets=true`),
  },
  "GET /api/search/autocomplete/{x}": { kind: "signedIn", ok: 200, req: () => G("/api/search/autocomplete/Лис") },
  "GET /api/search/vector/{x}": { kind: "signedIn", ok: 200, req: (f) => G(`/api/search/vector/${encodeURIComponent(f.subName)}`) },
  "POST /api/search/rag": { kind: "signedIn", ok: 200, req: () => J("POST", "/api/search/rag", { question: "Что в листе?" }) },
  "POST /api/tags/list-by-filter": {
    kind: "signedIn",
    ok: 200,
    req: (f) => J("POST", "/api/tags/list-by-filter", { entity_ids: [f.asset] }),
  },
  "POST /api/tags/create": {
    kind: "signedIn",
    ok: 200,
    req: () => J("POST", "/api/tags/create", { tag_name: `тег ${newId().slice(-10)}` }),
  },
  "PATCH /api/tags/change/{id}": {
    kind: "admin",
    ok: 200,
    req: (f) => J("PATCH", `/api/tags/change/${f.tag}`, { tag_name: `тег ${newId().slice(-10)}` }),
  },
  "DELETE /api/tags/delete/{id}": { kind: "admin", ok: 200, req: (f) => J("DELETE", `/api/tags/delete/${f.tag}`) },
  "POST /api/tags/attach": {
    kind: "entity",
    needs: [["asset", "update"]],
    ok: 200,
    req: (f) => J("POST", "/api/tags/attach", { tag_ids: [f.tag], entities: [{ id: f.asset, type: "asset" }] }),
  },
  "POST /api/tags/detach": {
    kind: "entity",
    needs: [["asset", "update"]],
    ok: 200,
    req: (f) => J("POST", "/api/tags/detach", { tag_ids: [f.tag], entities: [{ id: f.asset, type: "asset" }] }),
    prepare: (f) =>
      env.DB.prepare("INSERT INTO entity_tags (tag_id, entity_id, entity_type) VALUES (?, ?, 'asset')")
        .bind(f.tag, f.asset)
        .run()
        .then(() => {}),
  },
  "GET /api/tags/for-entity/{id}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => G(`/api/tags/for-entity/${f.asset}`),
  },

  // Comments and notifications (decision 035): a comment of the owner's on the fixture file, its id derived from the file's.
  "POST /api/asset/{id}/comments": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 201,
    req: (f) =>
      J("POST", `/api/asset/${f.asset}/comments`, { text: "Логотип обрезан", anchor: { region: { x: 0, y: 0, w: 0.5, h: 0.5 } } }),
  },
  "GET /api/asset/{id}/comments": { kind: "entity", needs: [["asset", "read"]], ok: 200, req: (f) => G(`/api/asset/${f.asset}/comments`) },
  "PATCH /api/comments/{id}": { kind: "probe", signedIn: 404, req: () => J("PATCH", `/api/comments/${X}`, { text: "x" }) },
  "DELETE /api/comments/{id}": {
    kind: "entity",
    needs: [
      ["asset", "read"],
      ["asset", "acl"],
    ],
    ok: 200,
    req: (f) => J("DELETE", `/api/comments/${commentOf(f)}`),
    prepare: (f) => insertComment(f),
  },
  "POST /api/comments/{id}/resolve": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => J("POST", `/api/comments/${commentOf(f)}/resolve`, { resolved: true }),
    prepare: (f) => insertComment(f),
  },
  "PUT /api/asset/{id}/follow": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => J("PUT", `/api/asset/${f.asset}/follow`),
  },
  "DELETE /api/asset/{id}/follow": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => J("DELETE", `/api/asset/${f.asset}/follow`),
  },
  "GET /api/notifications": { kind: "signedIn", ok: 200, req: () => G("/api/notifications?unread=1") },
  "POST /api/notifications/read": { kind: "signedIn", ok: 200, req: () => J("POST", "/api/notifications/read", { all: true }) },
  "GET /api/notifications/settings": { kind: "signedIn", ok: 200, req: () => G("/api/notifications/settings") },
  "PUT /api/notifications/settings": {
    kind: "signedIn",
    ok: 200,
    req: () => J("PUT", "/api/notifications/settings", { email: null, digest: false }),
  },
  "GET /api/notifications/stream": { kind: "signedIn", ok: 200, req: () => G("/api/notifications/stream") },

  // Storage and uploads
  "POST /api/storage/create": {
    kind: "admin",
    ok: 200,
    req: () =>
      J("POST", "/api/storage/create", {
        name: uniqueName("S3"),
        setup: { url: "https://s3.example.com", bucket: "media-archive" },
        creds: { user: "u", passwd: "p" },
      }),
  },
  "GET /api/storage/list": { kind: "signedIn", ok: 200, req: () => G("/api/storage/list") },
  "PATCH /api/storage/update/{id}": {
    kind: "admin",
    ok: 200,
    req: () => J("PATCH", `/api/storage/update/${"0".repeat(32)}`, { name: "R2" }),
  },
  "GET /api/storage/usage/{id}": { kind: "signedIn", ok: 200, req: () => G(`/api/storage/usage/${"0".repeat(32)}`) },
  "GET /api/storage/for-entity/{id}": {
    kind: "entity",
    needs: [["asset", "read"]],
    ok: 200,
    req: (f) => G(`/api/storage/for-entity/${f.asset}`),
  },
  "POST /api/upload/sign": { kind: "probe", signedIn: 400, req: () => J("POST", "/api/upload/sign", {}) },
  "GET /api/upload/status/{variantId}": { kind: "probe", signedIn: 404, req: () => G(`/api/upload/status/${X}`) },
  "POST /api/s3/{bucket}/assets/{assetId}/{variantId}": {
    kind: "credential",
    status: 403,
    req: (f) => J("POST", `/api/s3/media/assets/${f.asset}/${f.variant}?uploads`),
    why: "S3 signature",
  },
  "PUT /api/s3/{bucket}/assets/{assetId}/{variantId}": {
    kind: "credential",
    status: 403,
    req: (f) => ({ method: "PUT", path: `/api/s3/media/assets/${f.asset}/${f.variant}?partNumber=1&uploadId=x`, body: "x" }),
    why: "S3 signature",
  },
  "GET /api/s3/{bucket}/assets/{assetId}/{variantId}": {
    kind: "credential",
    status: 403,
    req: (f) => G(`/api/s3/media/assets/${f.asset}/${f.variant}?uploadId=x`),
    why: "S3 signature",
  },
  "DELETE /api/s3/{bucket}/assets/{assetId}/{variantId}": {
    kind: "credential",
    status: 403,
    req: (f) => J("DELETE", `/api/s3/media/assets/${f.asset}/${f.variant}?uploadId=x`),
    why: "S3 signature",
  },
  "GET /api/uploads": { kind: "signedIn", ok: 200, req: () => G("/api/uploads") },
  "POST /api/uploads": { kind: "probe", signedIn: 400, req: () => J("POST", "/api/uploads", {}) },
  "POST /api/uploads/keepalive": { kind: "signedIn", ok: 204, req: () => J("POST", "/api/uploads/keepalive", { ids: [] }) },
  "POST /api/uploads/clear": { kind: "signedIn", ok: 200, req: () => J("POST", "/api/uploads/clear") },
  // The caller's own settings and a search by name.
  "GET /api/user/ui_settings": { kind: "signedIn", ok: 200, req: () => G("/api/user/ui_settings") },
  "PATCH /api/user/ui_settings": { kind: "signedIn", ok: 200, req: () => J("PATCH", "/api/user/ui_settings", {}) },
  "GET /api/user/bookmarks": { kind: "signedIn", ok: 200, req: () => G("/api/user/bookmarks") },
  "PATCH /api/user/bookmarks": { kind: "signedIn", ok: 200, req: () => J("PATCH", "/api/user/bookmarks", {}) },
  "GET /api/user/search-user-group/{name}": { kind: "signedIn", ok: 200, req: () => G("/api/user/search-user-group/Владелец") },
  // Shortlinks: sharing needs read and acl (download rights also download: shortlinks.test.ts); opening is anonymous.
  // WOPI: the app's calls by bearer; the editor's calls by the WOPI access token alone
  "POST /api/wopi/token": {
    kind: "entity",
    needs: [
      ["asset", "read"],
      ["asset", "download"],
    ],
    ok: 200,
    req: (f) => J("POST", "/api/wopi/token", { asset_id: f.asset, action: "view" }),
  },
  "GET /api/wopi/lock/{id}": { kind: "entity", needs: [["asset", "read"]], ok: 200, req: (f) => G(`/api/wopi/lock/${f.asset}`) },
  // no office editor is configured in tests: an unknown file is 404 to everyone signed in
  "GET /api/wopi/app-url/{id}": { kind: "probe", signedIn: 404, req: () => G(`/api/wopi/app-url/${X}`) },
  "GET /api/wopi/files/{id}": { kind: "credential", status: 401, req: (f) => G(`/api/wopi/files/${f.asset}`), why: "WOPI access token" },
  "POST /api/wopi/files/{id}": {
    kind: "credential",
    status: 401,
    req: (f) => ({ method: "POST", path: `/api/wopi/files/${f.asset}`, headers: { "x-wopi-override": "LOCK", "x-wopi-lock": "l" } }),
    why: "WOPI access token",
  },
  "GET /api/wopi/files/{id}/contents": {
    kind: "credential",
    status: 401,
    req: (f) => G(`/api/wopi/files/${f.asset}/contents`),
    why: "WOPI access token",
  },
  "POST /api/wopi/files/{id}/contents": {
    kind: "credential",
    status: 401,
    req: (f) => ({ method: "POST", path: `/api/wopi/files/${f.asset}/contents`, body: "x", headers: { "x-wopi-override": "PUT" } }),
    why: "WOPI access token",
  },
  "GET /api/wopi/files/{id}/text": {
    kind: "credential",
    status: 401,
    req: (f) => G(`/api/wopi/files/${f.asset}/text`),
    why: "WOPI access token",
  },
  // Versions (issue 13): the name check reads the folder; restore adds a version (create); a comment is an update;
  // deleting the fixture's only version passes the delete check and is then refused as the last one (409).
  "POST /api/group/existing-names/{id}": {
    kind: "entity",
    needs: [["top", "read"]],
    ok: 200,
    req: (f) => J("POST", `/api/group/existing-names/${f.top}`, { names: ["нет такого.png"] }),
  },
  "POST /api/asset/restore-version/{id}": {
    kind: "entity",
    needs: [["asset", "create"]],
    ok: 200,
    req: (f) => J("POST", `/api/asset/restore-version/${f.asset}`, { version: 1 }),
  },
  "PATCH /api/asset/version/{id}/{version}": {
    kind: "entity",
    needs: [["asset", "update"]],
    ok: 200,
    req: (f) => J("PATCH", `/api/asset/version/${f.asset}/1`, { desc: "Комментарий" }),
  },
  "DELETE /api/asset/version/{id}/{version}": {
    kind: "entity",
    needs: [["asset", "delete"]],
    ok: 409,
    req: (f) => J("DELETE", `/api/asset/version/${f.asset}/1`),
  },
  // Review decisions (decision record 036): reading the trail needs read; deciding, update (and read, as every
  // change of a file the caller cannot see is a 404); asking someone to review, update — the reviewer reads the file.
  "GET /api/asset/{id}/review": { kind: "entity", needs: [["asset", "read"]], ok: 200, req: (f) => G(`/api/asset/${f.asset}/review`) },
  "PUT /api/asset/{id}/review": {
    kind: "entity",
    needs: [
      ["asset", "read"],
      ["asset", "update"],
    ],
    ok: 200,
    req: (f) => J("PUT", `/api/asset/${f.asset}/review`, { status: "approved", note: "Согласовано" }),
  },
  "POST /api/asset/{id}/review-requests": {
    kind: "entity",
    needs: [["asset", "update"]],
    ok: 201,
    prepare: async (f) => {
      const reviewer = await ordinaryUser();
      const a = await admin();
      const res = await call("/api/user/acl", {
        method: "POST",
        bearer: a.bearer,
        json: { subj: reviewer.id, obj: f.asset, acl: ["read"] },
      });
      expect(res.status).toBe(201);
      reviewers.set(f.asset, reviewer.login);
    },
    req: (f) => J("POST", `/api/asset/${f.asset}/review-requests`, { reviewer: reviewers.get(f.asset) }),
  },
  "GET /api/group/locations/{id}": {
    kind: "entity",
    needs: [["top", "read"]],
    ok: 200,
    req: (f) => G(`/api/group/locations/${f.top}?bbox=-180,-90,180,90`),
  },
  // The satisfaction survey: any person answers (robots have no opinion to give: 403); results are the administrators'.
  "POST /api/pqi": { kind: "signedIn", ok: 201, robot: 403, req: () => J("POST", "/api/pqi", { rating: 8, comment: "Удобно" }) },
  "GET /api/pqi/summary": { kind: "admin", ok: 200, req: () => G("/api/pqi/summary") },
  "GET /api/pqi/comments": { kind: "admin", ok: 200, req: () => G("/api/pqi/comments") },
  "POST /api/sl/create/{id}": {
    kind: "entity",
    needs: [
      ["asset", "read"],
      ["asset", "acl"],
    ],
    ok: 200,
    req: (f) => J("POST", `/api/sl/create/${f.asset}`, {}),
  },
  "GET /api/sl/for-entity/{id}": { kind: "entity", needs: [["asset", "read"]], ok: 200, req: (f) => G(`/api/sl/for-entity/${f.asset}`) },
  "GET /api/sl/list": { kind: "admin", ok: 200, req: () => G("/api/sl/list") },
  "GET /api/sl/info/{id}": { kind: "open", status: 404, req: () => G(`/api/sl/info/${"A".repeat(22)}`) },
  "POST /api/sl/info/{id}": { kind: "open", status: 404, req: () => J("POST", `/api/sl/info/${"A".repeat(22)}`, { password: "x" }) },
  "GET /api/sl/media/{link}/{asset}/{kind}": {
    kind: "credential",
    status: 403,
    req: (f) => G(`/api/sl/media/${"A".repeat(22)}/${f.asset}/view`),
    why: "the link's signed media URL",
  },
  "GET /api/sl/zip/{link}/{folder}": {
    kind: "credential",
    status: 403,
    req: (f) => G(`/api/sl/zip/${"A".repeat(22)}/${f.asset}`),
    why: "the link's signed archive URL",
  },
  // The ZIP of a selection: any signed-in caller gets an archive (or its link) of what they may download; the rest is
  // listed in «ПРОПУЩЕНО.txt» by the id they gave (tests/integration/zip-selection.test.ts proves what goes in).
  "POST /api/zip": { kind: "signedIn", ok: 200, req: (f) => J("POST", "/api/zip", { asset_ids: [f.asset], as: "url" }) },
  "GET /api/zip/{id}": {
    kind: "credential",
    status: 404,
    req: () => G(`/api/zip/${X}`),
    why: "the signed archive URL POST /api/zip answers",
  },
  // The shop (decision 022): listing and decisions are the administrators'; the rest is each caller's own basket and
  // orders. The fixture's asset doubles as the id of an order prepared for it (a fresh one per caller).
  // The helper programs: any signed-in user (none is uploaded here, so the download is the same 404 for everyone).
  "GET /api/helper/builds": { kind: "signedIn", ok: 200, req: () => G("/api/helper/builds") },
  "GET /api/helper/download/{platform}": { kind: "probe", signedIn: 404, req: () => G("/api/helper/download/linux-x64") },
  "GET /api/shop/catalog": { kind: "signedIn", ok: 200, req: () => G("/api/shop/catalog") },
  "GET /api/shop/listing/{id}": { kind: "probe", signedIn: 404, req: () => G(`/api/shop/listing/${X}`) },
  "PUT /api/shop/listing/{id}": {
    kind: "admin",
    ok: 200,
    req: (f) => ({ method: "PUT", path: `/api/shop/listing/${f.asset}`, json: { price: 100, currency: "RUB", licence: "Матрица" } }),
  },
  "DELETE /api/shop/listing/{id}": {
    kind: "admin",
    ok: 200,
    prepare: (f) => listForSale(f.asset),
    req: (f) => J("DELETE", `/api/shop/listing/${f.asset}`),
  },
  "GET /api/shop/preview/{id}": {
    kind: "credential",
    status: 404,
    req: (f) => G(`/api/shop/preview/${f.asset}`),
    why: "the catalogue's signed preview link",
  },
  "GET /api/shop/basket": { kind: "signedIn", ok: 200, req: () => G("/api/shop/basket") },
  // The fixture's asset is not for sale: every signed-in caller gets the same 409.
  "POST /api/shop/basket": { kind: "probe", signedIn: 409, req: (f) => J("POST", "/api/shop/basket", { entity_id: f.asset }) },
  "DELETE /api/shop/basket/{id}": { kind: "signedIn", ok: 200, req: (f) => J("DELETE", `/api/shop/basket/${f.asset}`) },
  "POST /api/shop/checkout": { kind: "probe", signedIn: 400, req: () => J("POST", "/api/shop/checkout", {}) },
  "GET /api/shop/orders": { kind: "signedIn", ok: 200, req: () => G("/api/shop/orders") },
  "GET /api/shop/order/{id}": { kind: "probe", signedIn: 404, req: () => G(`/api/shop/order/${X}`) },
  "POST /api/shop/order/{id}/approve": {
    kind: "admin",
    ok: 200,
    prepare: (f) => orderFor(f, "awaiting_approval"),
    req: (f) => J("POST", `/api/shop/order/${f.asset}/approve`),
  },
  "POST /api/shop/order/{id}/refund": {
    kind: "admin",
    ok: 200,
    prepare: (f) => orderFor(f, "approved"),
    req: (f) => J("POST", `/api/shop/order/${f.asset}/refund`),
  },
  "POST /api/shop/order/{id}/cancel": { kind: "probe", signedIn: 404, req: () => J("POST", `/api/shop/order/${X}/cancel`) },
  "POST /api/shop/stripe/webhook": {
    kind: "open",
    status: 400,
    req: () => J("POST", "/api/shop/stripe/webhook", { id: "evt_matrix", type: "charge.refunded" }),
  },
  "GET /api/uploads/ws": { kind: "credential", status: 400, req: () => G("/api/uploads/ws"), why: "WebSocket upgrade with a ticket" },
  "PATCH /api/uploads/{id}": { kind: "probe", signedIn: 404, req: () => J("PATCH", `/api/uploads/${X}`, { status: "error" }) },
  // Each user has a queue of their own: a report for an id that is not in it answers that item's 404 inside a 200.
  "POST /api/uploads/report": {
    kind: "signedIn",
    ok: 200,
    req: () => J("POST", "/api/uploads/report", { reports: [{ id: X, patch: { status: "error" } }] }),
  },
  "DELETE /api/uploads/{id}": { kind: "probe", signedIn: 404, req: () => J("DELETE", `/api/uploads/${X}`) },
  "POST /api/uploads/{id}/cancel": { kind: "probe", signedIn: 404, req: () => J("POST", `/api/uploads/${X}/cancel`) },
  // Metadata CSV: a folder's export needs read on it (404 otherwise, like an unknown folder); a dry run answers every
  // signed-in caller, with per-row errors for files they may not change (tests/integration/metadata-csv.test.ts).
  "GET /api/metadata/csv": { kind: "entity", needs: [["top", "read"]], ok: 200, req: (f) => G(`/api/metadata/csv?group_id=${f.top}`) },
  "POST /api/metadata/csv": {
    kind: "signedIn",
    ok: 200,
    req: (f) => ({
      method: "POST",
      path: "/api/metadata/csv?dry_run=1",
      body: `asset_id\r\n${f.asset}\r\n`,
      headers: { "content-type": "text/csv" },
    }),
  },
  // Collections (decision 034): anyone signed in makes and lists their own; a collection nobody shared with the caller
  // answers the same 404 as an unknown one, whatever the caller holds on the files (collections-api.test.ts has the
  // roles, the per-file filtering and the refusals of members).
  "POST /api/collections": { kind: "signedIn", ok: 201, req: () => J("POST", "/api/collections", { name: "Матрица" }) },
  "GET /api/collections": { kind: "signedIn", ok: 200, req: () => G("/api/collections") },
  "GET /api/collections/{id}": { kind: "probe", signedIn: 404, req: () => G(`/api/collections/${X}`) },
  "PATCH /api/collections/{id}": { kind: "probe", signedIn: 404, req: () => J("PATCH", `/api/collections/${X}`, { name: "Чужая" }) },
  "DELETE /api/collections/{id}": { kind: "probe", signedIn: 404, req: () => J("DELETE", `/api/collections/${X}`) },
  "GET /api/collections/{id}/items": { kind: "probe", signedIn: 404, req: () => G(`/api/collections/${X}/items`) },
  "GET /api/collections/{id}/locations": { kind: "probe", signedIn: 404, req: () => G(`/api/collections/${X}/locations`) },
  "POST /api/collections/{id}/items": {
    kind: "probe",
    signedIn: 404,
    req: (f) => J("POST", `/api/collections/${X}/items`, { asset_ids: [f.asset] }),
  },
  "POST /api/collections/{id}/remove-items": {
    kind: "probe",
    signedIn: 404,
    req: (f) => J("POST", `/api/collections/${X}/remove-items`, { asset_ids: [f.asset] }),
  },
  "PUT /api/collections/{id}/order": {
    kind: "probe",
    signedIn: 404,
    req: (f) => J("PUT", `/api/collections/${X}/order`, { asset_ids: [f.asset] }),
  },
  "GET /api/collections/{id}/members": { kind: "probe", signedIn: 404, req: () => G(`/api/collections/${X}/members`) },
  "PUT /api/collections/{id}/members": {
    kind: "probe",
    signedIn: 404,
    req: (f) => J("PUT", `/api/collections/${X}/members`, { subj: f.owner, subj_type: "user", role: "view" }),
  },
  "DELETE /api/collections/{id}/members/{subj}": {
    kind: "probe",
    signedIn: 404,
    req: (f) => J("DELETE", `/api/collections/${X}/members/${f.owner}`),
  },
};

// Rows of other capabilities whose objects are not assets or groups: the matrix checks that a token is needed and
// that an unknown id never answers 2xx; their own tests cover the rest. Added for every path the document lists.
const PROBE_PREFIXES = [
  "/api/user",
  "/api/audit",
  "/api/tasklist",
  "/api/worker-task",
  "/api/fields",
  "/api/taxonomy",
  "/api/lists",
  "/api/global-events",
  "/api/sl",
];

// A 1×1 PNG.
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);

// A WebM's EBML header (doc type `webm`) and filler: what upload-proxy sniffs before committing the variant.
const WEBM = Uint8Array.from([
  0x1a,
  0x45,
  0xdf,
  0xa3,
  0x9f,
  0x42,
  0x86,
  0x81,
  0x01,
  0x42,
  0xf7,
  0x81,
  0x01,
  0x42,
  0xf2,
  0x81,
  0x04,
  0x42,
  0xf3,
  0x81,
  0x08,
  0x42,
  0x82,
  0x84,
  0x77,
  0x65,
  0x62,
  0x6d,
  0x42,
  0x87,
  0x81,
  0x04,
  0x42,
  0x85,
  0x81,
  0x02,
  ...new Array<number>(64).fill(0),
]);

const logins = new Map<string, string>();
let adminId = "";
function loginOf(userId: string) {
  return logins.get(userId)!;
}

const extras = new WeakMap<Fixture, { rule?: string; classId?: string }>();
function ruleOf(f: Fixture) {
  return extras.get(f)!.rule!;
}
function classOf(f: Fixture) {
  return extras.get(f)!.classId!;
}
async function ownerRule(f: Fixture) {
  const id = newId();
  await env.DB.prepare(
    "INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) VALUES (?, ?, 'user', ?, 'group', ?, ?)",
  )
    .bind(id, f.owner, f.top, maskOf(["acl"]), Date.now())
    .run();
  extras.set(f, { ...extras.get(f), rule: id });
}
async function makeClass(f: Fixture) {
  extras.set(f, { ...extras.get(f), classId: await insertAssetClass() });
}

interface Callers {
  admin: Caller;
  owner: Caller;
  exact: Caller;
  others: Caller;
  deny: Caller;
  member: Caller;
  chrooted: Caller;
  /** a robot's API token, holding the row's levels like `exact` */
  robot: Caller;
  /** a robot token scoped to a group outside the fixture, holding the levels */
  scopedRobot: Caller;
  team: string;
}
interface Caller {
  id: string;
  bearer: string;
}

let callersOnce: Promise<Callers> | undefined;
function callers(): Promise<Callers> {
  callersOnce ??= (async () => {
    const boss = await admin();
    const [owner, exact, others, deny, member, chrooted] = await Promise.all([
      ordinaryUser("Владелец"),
      ordinaryUser("Ровно"),
      ordinaryUser("Прочие"),
      ordinaryUser("Запрет"),
      ordinaryUser("Участник"),
      ordinaryUser("Клетка"),
    ]);
    for (const u of [owner, exact, others, deny, member, chrooted]) logins.set(u.id, u.login);
    adminId = boss.id;
    const team = await createGroup(boss, uniqueName("Команда"));
    const cell = await createGroup(boss, uniqueName("Камера"));
    const robotId = newId();
    await env.DB.batch([
      env.DB.prepare("INSERT INTO user_group_members (group_id, user_id, ctime) VALUES (?, ?, ?)").bind(team, member.id, Date.now()),
      env.DB.prepare("UPDATE users SET chroot_groups = ? WHERE id = ?").bind(JSON.stringify([cell]), chrooted.id),
      env.DB.prepare("INSERT INTO users (id, login, name, is_robot, ctime, mtime) VALUES (?, ?, 'Робот', 1, ?, ?)").bind(
        robotId,
        `robot-${robotId.slice(-8)}`,
        Date.now(),
        Date.now(),
      ),
    ]);
    const token = async (json: unknown) => {
      const res = await call(`/api/user/${robotId}/tokens`, { method: "POST", bearer: boss.bearer, json });
      const body = (await res.json()) as { token: string };
      expect(res.status, JSON.stringify(body)).toBe(200);
      return { id: robotId, bearer: body.token };
    };
    const robot = await token({ name: "матрица" });
    const scopedRobot = await token({ name: "матрица в клетке", scope_groups: [cell] });
    return { admin: boss, owner, exact, others, deny, member, chrooted, robot, scopedRobot, team };
  })();
  return callersOnce;
}

/** A top folder with a subfolder and a file, a second top folder and a tag, all of `owner`, in one batch. */
async function fixture(owner: Caller): Promise<Fixture> {
  const born = Date.now();
  const [top, sub, dest] = [newId(), newId(), newId()];
  const subName = `Лист ${newId().slice(-6)}`;
  // The statements of POST /api/group/create (without its event and audit row): the matrix tests access, not creation.
  const group = (id: string, name: string, parentId: string) =>
    insertGroupStatements({
      id,
      name,
      sortName: sortKeyOf(name),
      parentId,
      ownerId: owner.id,
      defaultStorage: null,
      defaultClass: null,
      now: born,
    });
  await runBatch(createDb(env.DB), [
    ...group(top, uniqueName("Верх"), ROOT_GROUP_ID),
    ...group(sub, subName, top),
    ...group(dest, uniqueName("Цель"), ROOT_GROUP_ID),
  ]);
  const [asset, tag] = await Promise.all([
    insertAsset({ ownerId: owner.id, groups: [top], variantType: "master", preview: true, putBytes: true }),
    insertTag(),
  ]);
  return { owner: owner.id, top, sub, subName, dest, asset: asset.id, version: asset.versionId!, variant: asset.variantId!, tag, born };
}

async function addRule(subj: string, subjType: "user" | "group", f: Fixture, target: Target, mask: number) {
  await env.DB.prepare("INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .bind(newId(), subj, subjType, f[target], target === "asset" ? "asset" : "group", mask, Date.now())
    .run();
}

/** Levels per target as a mask. */
function masks(needs: Need[]): Map<Target, number> {
  const out = new Map<Target, number>();
  for (const [target, level] of needs) out.set(target, (out.get(target) ?? 0) | maskOf([level]));
  return out;
}

const EVERY_GRANT = maskOf(ACCESS_LEVELS.filter((l) => l !== "deny" && l !== "superuser"));

/** What a refused call must leave as it was: the fixture's rows and the size of every table a call could touch. */
/** The id of the fixture file's comment (rows that act on one): the file's id reversed, 32 hex like any id. */
const commentOf = (f: Fixture) => [...f.asset].reverse().join("");

async function insertComment(f: Fixture) {
  await env.DB.prepare("INSERT INTO comments (id, asset_id, version, author_id, text, ctime, mtime) VALUES (?, ?, 1, ?, 'Заметка', ?, ?)")
    .bind(commentOf(f), f.asset, f.owner, Date.now(), Date.now())
    .run();
}

async function snapshot(f: Fixture) {
  const ids = JSON.stringify([f.top, f.sub, f.dest, f.asset, f.tag, f.owner]);
  const inIds = "(select value from json_each(?1))";
  const queries = {
    groups: `select * from groups where id in ${inIds} order by id`,
    members: `select * from group_members where group_id in ${inIds} or el_id in ${inIds} order by group_id, el_id`,
    closure: `select * from group_closure where descendant in ${inIds} order by ancestor, descendant`,
    assets: `select * from assets where id in ${inIds}`,
    versions: `select * from asset_versions where asset_id in ${inIds} order by id`,
    variants: `select id, status, name from variants where asset_id in ${inIds} order by id`,
    previews: `select id from previews where asset_id in ${inIds} order by id`,
    tags: `select * from entity_tags where entity_id in ${inIds} or tag_id in ${inIds} order by tag_id, entity_id`,
    rules: `select * from access_rules where obj_id in ${inIds} or subj_id in ${inIds} order by id`,
    inheritance: `select * from access_inheritance where entity_id in ${inIds}`,
    userGroups: `select * from user_group_members where group_id in ${inIds} or user_id in ${inIds}`,
    comments: `select * from comments where asset_id in ${inIds} order by id`,
    follows: `select * from asset_follows where asset_id in ${inIds} order by user_id`,
    // Audit rows are counted from the fixture's birth on (the ctime index), not over the whole shared log.
    counts: `select (select count(*) from groups) g, (select count(*) from assets) a, (select count(*) from tags) t,
      (select count(*) from storages) s, (select count(*) from asset_classes) c, (select count(*) from access_rules) r,
      (select count(*) from user_group_members) u,
      (select count(*) from audit_log where ctime >= ?2 and action not like 'auth.%') l,
      (select count(*) from variants) v, (select count(*) from users) us where ?1 is not null`,
  };
  // One round trip for all of them: a row runs ten callers, each with a snapshot before and after.
  const results = await env.DB.batch(
    Object.entries(queries).map(([name, q]) => env.DB.prepare(q).bind(...(name === "counts" ? [ids, f.born] : [ids]))),
  );
  return Object.fromEntries(Object.keys(queries).map((name, i) => [name, results[i]!.results]));
}

async function send(req: Req, bearer?: string): Promise<Response> {
  return call(req.path, { method: req.method, json: req.json, body: req.body, headers: req.headers, bearer });
}

type CallerName = keyof Omit<Callers, "team"> | "anonymous";

async function expectStatus(name: CallerName, res: Response, expected: number, problems: string[], key: string) {
  if (res.status !== expected) problems.push(`${key} ${name}: expected ${expected}, got ${res.status} ${(await res.text()).slice(0, 160)}`);
  else await res.body?.cancel();
}

async function runEntityRow(key: string, row: Extract<Row, { kind: "entity" }>, problems: string[]) {
  const c = await callers();
  const needed = masks(row.needs);
  const refusal = row.others ?? (row.needs.some(([, level]) => level === "read") ? 404 : 403);
  const plan: { name: CallerName; who?: Caller; expected: number; grant?: (f: Fixture) => Promise<void> }[] = [
    { name: "admin", who: c.admin, expected: row.ok },
    { name: "owner", who: c.owner, expected: row.ok },
    { name: "exact", who: c.exact, expected: row.ok, grant: (f) => grantAll(c.exact.id, "user", f, needed) },
    {
      name: "others",
      who: c.others,
      expected: refusal,
      grant: (f) => grantAll(c.others.id, "user", f, new Map([...needed].map(([t, m]) => [t, EVERY_GRANT & ~m]))),
    },
    {
      name: "deny",
      who: c.deny,
      expected: 404,
      grant: (f) => grantAll(c.deny.id, "user", f, new Map([...needed].map(([t, m]) => [t, m | 1]))),
    },
    { name: "member", who: c.member, expected: row.ok, grant: (f) => grantAll(c.team, "group", f, needed) },
    { name: "chrooted", who: c.chrooted, expected: 404, grant: (f) => grantAll(c.chrooted.id, "user", f, needed) },
    { name: "robot", who: c.robot, expected: row.ok, grant: (f) => grantAll(c.robot.id, "user", f, needed) },
    // Both robot tokens belong to one robot: the rule reaches the scoped token too, the scope keeps it out.
    { name: "scopedRobot", who: c.scopedRobot, expected: 404, grant: (f) => grantAll(c.robot.id, "user", f, needed) },
    { name: "anonymous", expected: 401 },
  ];
  const prepared = async () => {
    const f = await fixture(c.owner);
    await row.prepare?.(f);
    return f;
  };
  // A refused call is proven to change nothing, so the refused callers share one fixture (each with rules of his own).
  let shared: Fixture | undefined;
  for (const p of plan) {
    const f = p.expected >= 400 ? (shared ??= await prepared()) : await prepared();
    await p.grant?.(f);
    if (p.name === "admin" && p.expected < 400) await intoShardsWhenSharded(f, row, row.req(f));
    const before = p.expected >= 400 ? await snapshot(f) : null;
    await expectStatus(p.name, await send(row.req(f), p.who?.bearer), p.expected, problems, key);
    if (before) {
      const after = await snapshot(f);
      if (JSON.stringify(after) !== JSON.stringify(before)) problems.push(`${key} ${p.name}: the refused call changed data`);
    }
  }
}

/**
 * With sharding on (the sharded tier), the administrator's fixture has its library moved into its shard before his
 * call, and the second library too when the call names it: a route that writes a library's rows in the catalog
 * instead of where the library lives answers 503 there (the purge of a folder did, decision 050). Its rows and rules
 * are made first, in the catalog, as elsewhere. A move costs a third of a second, so a library is moved only for a
 * call that may reach it: one naming something of it, with a body that does not show what it names, or whose row
 * prepared something in it (a trashed folder, a link, an order) — not a version, a list of one's own, a sign-in.
 */
async function intoShardsWhenSharded(f: Fixture, row: Row, req: Req) {
  if (env.NEW_LIBRARIES !== ("shard" as string)) return;
  const text = JSON.stringify(req);
  const opaque = req.body !== undefined && typeof req.body !== "string";
  const reaches = (ids: string[]) => opaque || ids.some((id) => text.includes(id));
  const prepared = "prepare" in row && row.prepare !== undefined;
  const libraries = [
    ...(prepared || reaches([f.top, f.sub, f.asset, f.version, f.variant, commentOf(f)]) ? [f.top] : []),
    ...(reaches([f.dest]) ? [f.dest] : []),
  ];
  for (const id of libraries) {
    moved.push(id);
    await switchLibrary(id);
  }
}

async function grantAll(subj: string, type: "user" | "group", f: Fixture, byTarget: Map<Target, number>) {
  for (const [target, mask] of byTarget) if (mask) await addRule(subj, type, f, target, mask);
}

async function runRow(key: string, row: Row, problems: string[]) {
  if (row.kind === "entity") return runEntityRow(key, row, problems);
  const c = await callers();
  const signedIn: [CallerName, Caller][] = [
    ["admin", c.admin],
    ["owner", c.owner],
    ["exact", c.exact],
    ["others", c.others],
    ["deny", c.deny],
    ["member", c.member],
    ["chrooted", c.chrooted],
    ["robot", c.robot],
  ];
  const prepared = async () => {
    const f = await fixture(c.owner);
    if (row.kind === "admin") await row.prepare?.(f);
    return f;
  };
  let shared: Fixture | undefined;
  for (const [name, who] of [...signedIn, ["anonymous", undefined] as const]) {
    let expected: number;
    if (row.kind === "open") expected = row.status;
    else if (row.kind === "credential") expected = row.status;
    else if (!who) expected = 401;
    else if (row.kind === "signedIn") expected = name === "robot" && row.robot !== undefined ? row.robot : row.ok;
    else if (row.kind === "probe") expected = row.signedIn;
    else expected = name === "admin" ? row.ok : 403;
    const f = expected >= 400 ? (shared ??= await prepared()) : await prepared();
    if (name === "admin" && expected < 400) await intoShardsWhenSharded(f, row, row.req(f));
    const before = expected >= 400 ? await snapshot(f) : null;
    // Calls authenticated by their own credential are made without a bearer.
    await expectStatus(name, await send(row.req(f), row.kind === "credential" ? undefined : who?.bearer), expected, problems, key);
    if (before && JSON.stringify(await snapshot(f)) !== JSON.stringify(before))
      problems.push(`${key} ${name}: the refused call changed data`);
  }
}

const openEndpoints = new Set<string>();

async function documentedEndpoints(): Promise<string[]> {
  const doc = (await (await call("/api/openapi.json")).json()) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([m, op]) => {
      const key = `${m.toUpperCase()} ${path}`;
      if (!op.security?.length) openEndpoints.add(key);
      return key;
    }),
  );
}

function probeRow(key: string): Row | undefined {
  const [method, path] = key.split(" ");
  if (!PROBE_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`))) return undefined;
  const concrete = path.replace(/\{[^}]+\}/g, X);
  // Anything the other capabilities answer with an unknown id or an empty body must be a refusal, never a 2xx.
  return {
    kind: "probe",
    signedIn: -1,
    req: () => ({ method, path: concrete, json: method === "GET" || method === "DELETE" ? undefined : {} }),
  };
}

const moved: string[] = [];
afterAll(() => releaseMovedLibraries(moved), 120_000);

describe("permission matrix", () => {
  it("covers every endpoint of the OpenAPI document, and every row is a documented endpoint", async () => {
    const documented = await documentedEndpoints();
    const missing = documented.filter((k) => !ROWS[k] && !probeRow(k));
    expect(missing, "endpoints without a matrix row").toEqual([]);
    expect(
      Object.keys(ROWS).filter((k) => !documented.includes(k)),
      "rows of endpoints that no longer exist",
    ).toEqual([]);
  });

  for (const [key, row] of Object.entries(ROWS)) {
    it(
      key,
      async () => {
        const problems: string[] = [];
        await runRow(key, row, problems);
        expect(problems).toEqual([]);
      },
      120_000,
    );
  }

  it("other capabilities' endpoints need a token and never answer 2xx for unknown ids", async () => {
    const c = await callers();
    const problems: string[] = [];
    const f = await fixture(c.owner);
    for (const key of await documentedEndpoints()) {
      const row = ROWS[key] ? undefined : probeRow(key);
      if (!row || row.kind !== "probe") continue;
      const req = row.req(f);
      const anonymous = await send(req);
      // Documented as public (own credential in the request): unknown ones are refused, never served.
      if (openEndpoints.has(key) ? anonymous.status < 400 : anonymous.status !== 401) {
        problems.push(`${key} anonymous: expected ${openEndpoints.has(key) ? "a refusal" : 401}, got ${anonymous.status}`);
      }
      await anonymous.body?.cancel();
      const before = await snapshot(f);
      for (const who of [c.others, c.chrooted]) {
        const res = await send(req, who.bearer);
        if (res.status < 400 && !(req.method === "GET" && !/\{/.test(key.split(" ")[1]))) {
          problems.push(`${key}: ${res.status} for an unknown id`);
        }
        if (res.status >= 500) problems.push(`${key}: server error ${res.status}`);
        await res.body?.cancel();
      }
      if (JSON.stringify(await snapshot(f)) !== JSON.stringify(before)) problems.push(`${key}: a probe changed data`);
    }
    expect(problems).toEqual([]);
  }, 180_000);
});

/**
 * The access invariant (docs/decisions/026-access-invariant.md) at the API: where an entity is listed decides who may
 * do what with it, so linking, moving and unlinking need `acl` on what is linked, moved or unlinked. Each refused call
 * answers 403 naming the level (the caller can read the entity) or 404 (he cannot), and changes nothing.
 */
describe("linking and moving never widen anyone's rights (decision 026)", () => {
  async function levelsOf(who: Caller, id: string): Promise<string[]> {
    const res = await call(`/api/auth/entity-access/${id}`, { bearer: who.bearer });
    if (res.status === 404) return [];
    expect(res.status).toBe(200);
    return ((await res.json()) as { acl: string[] }).acl;
  }
  async function grant(subj: string, obj: string, type: "asset" | "group", levels: AccessLevel[]) {
    await throughShards(() =>
      env.DB.prepare("INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) VALUES (?, ?, 'user', ?, ?, ?, ?)")
        .bind(newId(), subj, obj, type, maskOf(levels), Date.now())
        .run(),
    );
  }
  async function rows(ids: string[]) {
    const list = JSON.stringify(ids);
    const q = async (sql: string) => (await env.DB.prepare(sql).bind(list).all()).results;
    return {
      members: await q(
        "select group_id, el_id, trashed_at from group_members where el_id in (select value from json_each(?1)) order by group_id, el_id",
      ),
      closure: await q("select * from group_closure where descendant in (select value from json_each(?1)) order by ancestor, descendant"),
      groups: await q("select id, parent_id from groups where id in (select value from json_each(?1)) order by id"),
      rules: await q("select subj_id, obj_id, acl from access_rules where obj_id in (select value from json_each(?1)) order by id"),
      variants: await q("select id from variants where asset_id in (select value from json_each(?1)) order by id"),
    };
  }
  async function refused(res: Response, status: number, level?: string) {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    const body = JSON.parse(text) as { statusCode: number; message: string };
    if (level) expect(body.message).toContain(`«${level}»`);
    return body;
  }

  it("a read-only user cannot list someone's file in his own folder, by any insert variant, nor move it there", async () => {
    const boss = await admin();
    const reader = await ordinaryUser("Читатель");
    const shared = await createGroup(boss, uniqueName("Общее"));
    const file = await insertAsset({ ownerId: boss.id, groups: [shared] });
    await grant(reader.id, shared, "group", ["read", "delete"]);
    const mine = await createGroup(reader, uniqueName("Моя"));
    const before = await rows([file.id, mine]);
    const levels = await levelsOf(reader, file.id);
    for (const path of ["insert-members", "insert-member-return-where", "insert-members-return-group"]) {
      const res = await call(`/api/group/${path}/${mine}`, {
        method: "POST",
        bearer: reader.bearer,
        json: { members: [{ el_id: file.id, el_type: "asset" }] },
      });
      await refused(res, 403, "Управление правами");
    }
    await refused(
      await call(`/api/group/move-member/${file.id}/${shared}/${mine}`, { method: "POST", bearer: reader.bearer }),
      403,
      "Управление правами",
    );
    await refused(
      await call(`/api/group/move-members/${shared}/${mine}`, { method: "POST", bearer: reader.bearer, json: { ids: [file.id] } }),
      403,
      "Управление правами",
    );
    // Unlinking takes away what the folder passes down: the same level.
    await refused(
      await call(`/api/group/delete-members/${shared}?ids=${file.id}`, { method: "DELETE", bearer: reader.bearer }),
      403,
      "Управление правами",
    );
    // Granting himself everything on his own folder reaches nothing of the administrator's.
    const rule = await call("/api/user/acl", {
      method: "POST",
      bearer: reader.bearer,
      json: { subj: reader.id, obj: mine, acl: ["read", "update", "create", "delete", "acl", "download"] },
    });
    expect(rule.status).toBe(201);
    await rule.body?.cancel();
    expect(await levelsOf(reader, file.id)).toEqual(levels);
    const after = await rows([file.id, mine]);
    expect({ ...after, rules: after.rules.filter((r) => r.obj_id !== mine) }).toEqual({
      ...before,
      rules: before.rules.filter((r) => r.obj_id !== mine),
    });
  });

  it("create-version with to_group lists the file there: acl on it unless it is already listed", async () => {
    const boss = await admin();
    const editor = await ordinaryUser("Редактор");
    const shared = await createGroup(boss, uniqueName("Общее"));
    const file = await insertAsset({ ownerId: boss.id, groups: [shared] });
    await grant(editor.id, shared, "group", ["read", "create"]);
    const mine = await createGroup(editor, uniqueName("Моя"));
    const before = await rows([file.id]);
    const res = await call(`/api/asset/create-version/${file.id}`, {
      method: "POST",
      bearer: editor.bearer,
      json: { to_group: mine, file_name: "v2.mp4", mime_type: "video/mp4", size: 10 },
    });
    // With sharding on the file's library is in its shard and his folder is not: the same answer, weighed across
    // libraries (decision 046). Nothing changes.
    await refused(res, 403, "Управление правами");
    expect(await rows([file.id])).toEqual(before);
    // Into the folder it is already in: nothing about its rights changes, create is enough.
    const same = await call(`/api/asset/create-version/${file.id}`, {
      method: "POST",
      bearer: editor.bearer,
      json: { to_group: shared, file_name: "v2.mp4", mime_type: "video/mp4", size: 10 },
    });
    expect(same.status).toBe(200);
    await same.body?.cancel();
  });

  it("linking into a folder one cannot write is 403, into one he cannot see 404; ids he cannot see are 404", async () => {
    const boss = await admin();
    const user = await ordinaryUser("Пользователь");
    const own = await insertAsset({ ownerId: user.id, groups: [] });
    const readOnly = await createGroup(boss, uniqueName("Только чтение"));
    const hidden = await createGroup(boss, uniqueName("Скрытая"));
    const hiddenFile = await insertAsset({ ownerId: boss.id, groups: [hidden] });
    await grant(user.id, readOnly, "group", ["read"]);
    const mine = await createGroup(user, uniqueName("Моя"));
    const before = await rows([own.id, hiddenFile.id, mine, readOnly, hidden]);
    const link = (to: string, id: string) =>
      call(`/api/group/insert-members/${to}`, {
        method: "POST",
        bearer: user.bearer,
        json: { members: [{ el_id: id, el_type: "asset" }] },
      });
    await refused(await link(readOnly, own.id), 403);
    const hiddenTarget = await refused(await link(hidden, own.id), 404);
    const unknownTarget = await refused(await link(X, own.id), 404);
    expect(hiddenTarget.message).toBe(unknownTarget.message);
    const hiddenAsset = await refused(await link(mine, hiddenFile.id), 404);
    const unknownAsset = await refused(await link(mine, X), 404);
    expect(hiddenAsset.message).toBe(unknownAsset.message);
    await refused(
      await call(`/api/group/move-members/${hidden}/${mine}`, { method: "POST", bearer: user.bearer, json: { ids: [hiddenFile.id] } }),
      404,
    );
    await refused(await call(`/api/group/move-member/${hidden}/${ROOT_GROUP_ID}/${mine}`, { method: "POST", bearer: user.bearer }), 404);
    await refused(await call(`/api/group/delete-members/${hidden}?ids=${hiddenFile.id}`, { method: "DELETE", bearer: user.bearer }), 404);
    expect(await rows([own.id, hiddenFile.id, mine, readOnly, hidden])).toEqual(before);
  });

  it("moving a folder needs acl on everything in it: a file listed there by someone else, or one that denies the mover, stops it", async () => {
    const boss = await admin();
    const owner = await ordinaryUser("Хозяин папки");
    const top = await createGroup(owner, uniqueName("Верх"));
    const inner = await createGroup(owner, "Внутри", top);
    const target = await createGroup(owner, uniqueName("Цель"));
    const foreign = await insertAsset({ ownerId: boss.id, groups: [inner] });
    const other = await insertAsset({ ownerId: boss.id, groups: [top] });
    await grant(owner.id, other.id, "asset", ["read", "acl"]);
    const before = await rows([top, inner, foreign.id]);
    const move = () => call(`/api/group/move-member/${top}/${ROOT_GROUP_ID}/${target}`, { method: "POST", bearer: owner.bearer });
    await refused(await move(), 403, "Управление правами");
    expect(await rows([top, inner, foreign.id])).toEqual(before);
    // With acl on the file (given by its owner), the move goes through.
    await grant(owner.id, foreign.id, "asset", ["read", "acl"]);
    const ok = await move();
    expect(ok.status).toBe(204);
    // A deny on something inside takes the level away again: moving back is refused, nothing changes.
    await env.DB.prepare("UPDATE access_rules SET acl = ? WHERE subj_id = ? AND obj_id = ?")
      .bind(maskOf(["read", "acl", "deny"]), owner.id, other.id)
      .run();
    const moved = await rows([top, inner, foreign.id]);
    await refused(
      await call(`/api/group/move-member/${top}/${target}/${ROOT_GROUP_ID}`, { method: "POST", bearer: owner.bearer }),
      403,
      "Управление правами",
    );
    expect(await rows([top, inner, foreign.id])).toEqual(moved);
  });
});
