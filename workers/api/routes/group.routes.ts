// Over 400 lines on purpose: one router per API resource (STYLE); each /api/group call carries its OpenAPI contract inline.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  entityByPath,
  getSubtreeJson,
  insertMembers,
  listAclRoots,
  listGroupsWithUsers,
  listMembers,
  listRoots,
  moveNewLibrary,
  queueGroupPurge,
} from "../../services/library";
import { acceptsGzip } from "../../lib/accept-encoding";
import { jsonBodyResponse, jsonTextBody } from "../../lib/json-body-cache";
import { prefetchAccess } from "../../services/access";
import { writeWhereItLives } from "../library-place";
import {
  pageWhereItLives,
  readEachRouted,
  readRouted,
  readWhereItLives,
  rootTreeWhereTheyLive,
  rootsWhereTheyLive,
  trashWhereItLives,
} from "../library-reads";
import { binaryOrder } from "../../lib/binary-order";
import { rateLimit } from "../middleware/rate-limit";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import type { AppEnv } from "../types";
import { ru } from "../../../shared/i18n/ru";
import { anyLibraryMoving, listedOnlyIn } from "../../db/repositories/library-move.repository";
import { findGroup } from "../../db/repositories/group.repository";
import { AppError, isLibraryMoving } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { StorageSchema } from "./storage.routes";
import { IdParamsSchema, IdSchema, PagingQuerySchema } from "../schemas";
import {
  GroupCreateSchema,
  GroupUpdateSchema,
  IdListSchema,
  InsertMembersSchema,
  EntityPathSchema,
  MembersQuerySchema,
  SearchQuerySchema,
  DeleteMembersQuerySchema,
  GroupSummarySchema,
  GroupSchema,
  MemberSchema,
  TreeNodeSchema,
  DirectoryEntrySchema,
  TrashedGroupSchema,
  FoundGroupSchema,
  PreviewListSchema,
  MoveParamsSchema,
  pathId,
} from "./group.schemas";

/** The global rows a folder's defaults name, which a shard running the write checks (decision 043, «Writes»). */
const namedByGroup = (input: { default_class?: string | null; default_storage?: string | null }) => ({
  classes: input.default_class ? [input.default_class] : [],
  storages: input.default_storage ? [input.default_storage] : [],
});

/**
 * Files listed in one more folder, where the folder's library lives (decision 043, «Writes»): in a library's shard only
 * its own files, listed nowhere else. People made members of a folder are global rows: that insert stays in the catalog.
 */
async function insertMembersWhereItLives(c: Context<AppEnv>, groupId: string, members: z.infer<typeof InsertMembersSchema>["members"]) {
  if (members.some((m) => m.el_type !== "asset")) {
    try {
      return await insertMembers(c.var.rc, c.var.actor, groupId, members);
    } catch (error) {
      // People with files, in a folder of a library that lives in its shard: the people's memberships are global, the
      // listings the shard's, and no one write holds both. Not a matter of seconds, so not a 503: say how instead.
      if (isLibraryMoving(error) && !(await anyLibraryMoving(c.env.DB))) throw new AppError("CONFLICT", ru.groups.peopleAndFilesApart);
      throw error;
    }
  }
  const ids = members.map((m) => m.el_id);
  return writeWhereItLives(c, groupId, "listFiles", [groupId, ids], { files: ids, sameLibrary: ids });
}

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const auth = { security: bearerSecurity, middleware: [requireAuth], tags: ["Groups"] };

// ---------------------------------------------------------------------------------------------------------------

/** SPEC §7 group calls, plus restore and trash. */
export const groupRoutes = createRouter()
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/roots",
      summary: "Top-level groups the caller sees",
      request: { query: PagingQuerySchema },
      responses: { 200: json(z.array(GroupSummarySchema), "Groups by name"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await listRoots(c.var.rc, c.var.actor, c.req.valid("query"), rootsWhereTheyLive(c.var)), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/acl-roots",
      summary: "The highest groups the caller holds rights on whose parent it does not",
      request: { query: PagingQuerySchema },
      responses: { 200: json(z.array(GroupSummarySchema), "Groups by name"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await listAclRoots(c.var.rc, c.var.actor, c.req.valid("query"), rootsWhereTheyLive(c.var)), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/members/{id}",
      summary: "One page of a group's members (groups first, then assets)",
      description:
        "Without `after`, `skip`/`take` page by offset. With `after` (the previous page's `X-Next-Cursor` header) the page continues from that member by key: constant cost however deep. A page shorter than `take` is the last one.",
      request: { params: IdParamsSchema, query: MembersQuerySchema },
      responses: {
        200: {
          ...json(z.array(MemberSchema), "Members"),
          headers: z.object({
            "X-Next-Cursor": z.string().optional().openapi({ description: "cursor of the next page; set when the page is full" }),
          }),
        },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      const page = await readWhereItLives(
        c.var,
        id,
        () => {
          // a read-only call on a group: its access rows load beside the group itself (decision 030)
          prefetchAccess(c.var.rc, c.var.actor, { id, type: "group" });
          return listMembers(c.var.rc, c.var.actor, id, query, rootsWhereTheyLive(c.var).top);
        },
        (shard, caller) => shard.membersPage(caller, c.var.actor, id, query),
      );
      if (page.nextCursor) c.header("X-Next-Cursor", page.nextCursor);
      return c.json(page.items, 200);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/subtree/{id}",
      summary: "The group and all its live sub-groups as a tree, with each folder's first files",
      description:
        "SPEC's tree form: every node carries `isOpen` (the asked-for group is open) and its files (`assets`, by name, up to 50 per folder and 2000 in the whole tree, folders taken breadth first; `assets_more` says to page the rest with GET /members/{id}; the root states the caps in `assets_cap`). `assets=false` answers folders only.",
      request: {
        params: IdParamsSchema,
        query: z.object({
          assets: z
            .enum(["true", "false", "1", "0"])
            .transform((v) => v === "true" || v === "1")
            .optional()
            .openapi({ description: "false: folders only (no files); default true" }),
        }),
      },
      responses: { 200: json(TreeNodeSchema, "Tree"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      // The service answers the tree already serialised (cached per tree version), so it goes out as it is; the
      // body is TreeNodeSchema's JSON (the route's typed answer cannot express pre-serialised JSON, hence the casts).
      const { id } = c.req.valid("param");
      const withAssets = c.req.valid("query").assets ?? true;
      // In a library's shard the tree is read afresh there (no isolate keeps another object's rows); the root's, where
      // each library lives.
      const fromCatalog = () => getSubtreeJson(c.var.rc, c.var.actor, id, withAssets);
      const answer =
        id === ROOT_GROUP_ID
          ? await rootTreeWhereTheyLive(c.var, withAssets, fromCatalog)
          : await readWhereItLives(c.var, id, fromCatalog, (shard, caller) =>
              shard.routedRead(caller, c.var.actor, "subtreeText", [id, withAssets]),
            );
      // A remembered tree is compressed once, not per answer.
      const body = typeof answer === "string" ? jsonTextBody(answer) : { bytes: () => answer.bytes, gzipped: () => answer.gzipped() };
      return (await jsonBodyResponse(body, acceptsGzip(c.req.header("accept-encoding")))) as never;
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/get/{id}",
      summary: "A group with its tags and path",
      request: { params: IdParamsSchema },
      responses: { 200: json(GroupSchema, "Group"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      return c.json(await readRouted(c.var, "getGroup", [c.req.valid("param").id], "group"), 200);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/create",
      summary: "Create a group",
      description: "A live sibling group with the same name (case-insensitive) is a conflict.",
      request: { body: { required: true, content: { "application/json": { schema: GroupCreateSchema } } } },
      responses: { 200: json(z.object({ group_id: z.string() }), "Created"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const input = c.req.valid("json");
      const created = await writeWhereItLives(c, input.parent, "createGroup", [input], { named: namedByGroup(input) });
      if (input.parent === ROOT_GROUP_ID) await moveNewLibrary(c.env, c.var.actor, created.group_id);
      return c.json(created, 200);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "patch",
      path: "/update/{id}",
      summary: "Rename a group, change its defaults or replace its tags",
      request: { params: IdParamsSchema, body: { required: true, content: { "application/json": { schema: GroupUpdateSchema } } } },
      responses: { 200: json(GroupSchema, "Group"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const input = c.req.valid("json");
      const group = await writeWhereItLives(c, id, "updateGroup", [id, input], {
        named: { ...namedByGroup(input), tags: input.tags ?? [] },
      });
      return c.json(group, 200);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "delete",
      path: "/delete/{id}",
      summary: "Move a group with its sub-groups to the trash",
      request: { params: IdParamsSchema },
      responses: { 204: { description: "Trashed" }, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await writeWhereItLives(c, id, "trashGroups", [[id]]);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/delete-list",
      summary: "Move several groups to the trash (all or none)",
      request: { body: { required: true, content: { "application/json": { schema: IdListSchema } } } },
      responses: { 204: { description: "Trashed" }, ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const { ids } = c.req.valid("json");
      await writeWhereItLives(c, ids[0], "trashGroups", [ids], { sameLibrary: ids.slice(1) });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/restore/{id}",
      summary: "Restore a trashed group (within 30 days)",
      request: { params: IdParamsSchema },
      responses: { 200: json(GroupSchema, "Restored group"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      // A library's own folder goes back into the root's listing, which its shard does not hold: across (decision 046).
      const root = async () => ((await findGroup(c.var.rc.db, id))?.parentId === ROOT_GROUP_ID ? [ROOT_GROUP_ID] : []);
      return c.json(await writeWhereItLives(c, id, "restoreGroup", [id], { sameLibrary: root }), 200);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/trash",
      summary: "The caller's trashed groups, newest first",
      request: { query: PagingQuerySchema },
      responses: { 200: json(z.array(TrashedGroupSchema), "Trashed groups"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await trashWhereItLives(c.var, "trashedGroups", c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "delete",
      path: "/purge/{id}",
      summary: "Delete a group, its sub-groups and the assets only they list, for good (in the background)",
      request: { params: IdParamsSchema },
      responses: {
        202: json(z.object({ group_id: z.string(), queued: z.literal(true) }), "Queued"),
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await writeWhereItLives(c, id, "purgeGroup", [id]);
      return c.json(await queueGroupPurge(c.env, c.var.actor, id), 202);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/insert-members/{id}",
      summary: "List assets (or, for administrators, users) in a group",
      request: { params: IdParamsSchema, body: { required: true, content: { "application/json": { schema: InsertMembersSchema } } } },
      responses: { 204: { description: "Inserted" }, ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      await insertMembersWhereItLives(c, c.req.valid("param").id, c.req.valid("json").members);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/insert-member-return-where/{id}",
      summary: "Insert members and answer where each is listed",
      request: { params: IdParamsSchema, body: { required: true, content: { "application/json": { schema: InsertMembersSchema } } } },
      responses: {
        200: json(z.array(z.object({ el_id: z.string(), group_id: z.string() })), "Memberships"),
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => c.json(await insertMembersWhereItLives(c, c.req.valid("param").id, c.req.valid("json").members), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/insert-members-return-group/{id}",
      summary: "Insert members and answer the group",
      request: { params: IdParamsSchema, body: { required: true, content: { "application/json": { schema: InsertMembersSchema } } } },
      responses: { 200: json(GroupSchema, "Group"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await insertMembersWhereItLives(c, id, c.req.valid("json").members);
      return c.json(await readRouted(c.var, "getGroup", [id]), 200);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "delete",
      path: "/delete-members/{id}",
      summary: "Remove asset or user memberships from a group",
      request: { params: IdParamsSchema, query: DeleteMembersQuerySchema },
      responses: { 204: { description: "Removed" }, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const ids = c.req.valid("query").ids.split(",");
      // A file's last listing taken out leaves it in no library: it leaves its shard for the catalog (decision 047).
      const leaves = () => listedOnlyIn(c.env.DB, id, ids);
      await writeWhereItLives(c, id, "deleteMembers", [id, ids], { files: ids, sameLibrary: ids, leaves });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/preview-list/{id}",
      summary: "Thumbnail references of one page of a group's assets",
      request: { params: IdParamsSchema, query: PagingQuerySchema },
      responses: { 200: json(PreviewListSchema, "Preview list"), ...errorResponses(400, 401, 404) },
    }),
    async (c) =>
      c.json(await readRouted(c.var, "listPreviews", [c.req.valid("param").id, c.req.valid("query"), new URL(c.req.url).origin]), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/search",
      summary: "Groups whose name contains the text, with their paths",
      request: { query: SearchQuerySchema },
      responses: { 200: json(z.array(FoundGroupSchema), "Groups by name"), ...errorResponses(400, 401) },
    }),
    async (c) => {
      const { q, ...paging } = c.req.valid("query");
      // Each library searched where it lives, the pages merged by name, then id (decision 051, step 2.3).
      const page = await pageWhereItLives<"foundGroups">(
        c.var,
        "foundGroups",
        (window, scope) => [[], q, window, scope],
        paging,
        (a, b) => binaryOrder(a.sort, b.sort) || binaryOrder(a.group.group_id, b.group.group_id),
      );
      return c.json(
        page.map((row) => row.group),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/move-member/{member}/{from}/{to}",
      summary: "Move one member (asset, user or group with its subtree) to another group",
      request: { params: MoveParamsSchema.extend({ member: pathId("member") }) },
      responses: { 204: { description: "Moved" }, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { member, from, to } = c.req.valid("param");
      await writeWhereItLives(c, from, "moveMembers", [from, to, [member]], { files: [member], sameLibrary: [to] });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/move-members/{from}/{to}",
      summary: "Move several members to another group (all or none)",
      request: { params: MoveParamsSchema, body: { required: true, content: { "application/json": { schema: IdListSchema } } } },
      responses: { 204: { description: "Moved" }, ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const { from, to } = c.req.valid("param");
      const { ids } = c.req.valid("json");
      await writeWhereItLives(c, from, "moveMembers", [from, to, ids], { files: ids, sameLibrary: [to] });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/entity-by-path/{root}",
      summary: "Resolve a path of names below a group",
      request: {
        params: z.object({ root: pathId("root") }),
        body: { required: true, content: { "application/json": { schema: EntityPathSchema } } },
      },
      responses: {
        200: json(z.object({ el_id: z.string(), el_type: z.enum(["asset", "group"]) }), "The entity"),
        ...errorResponses(400, 401, 404, 415),
      },
    }),
    async (c) => c.json(await entityByPath(c.var.rc, c.var.actor, c.req.valid("param").root, c.req.valid("json").path), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/dir/{id}",
      summary: "A group as directory entries (groups, then assets, by name)",
      request: { params: IdParamsSchema, query: PagingQuerySchema },
      responses: { 200: json(z.array(DirectoryEntrySchema), "Entries"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "listDirectory", [c.req.valid("param").id, c.req.valid("query")]), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      middleware: [requireAuth, rateLimit("group-size")] as const,
      method: "post",
      path: "/group-size",
      summary: "Bytes, assets and sub-groups of each group's subtree",
      request: {
        body: { required: true, content: { "application/json": { schema: z.object({ ids: z.array(IdSchema).min(1).max(100) }) } } },
      },
      responses: {
        200: json(
          z.array(z.object({ group_id: z.string(), bytes: z.number().int(), assets: z.number().int(), groups: z.number().int() })),
          "Sizes",
        ),
        ...errorResponses(400, 401, 404, 415),
      },
    }),
    async (c) => {
      const ids = [...new Set(c.req.valid("json").ids)];
      return c.json(
        await readEachRouted(
          c.var,
          "groupSizes",
          ids,
          (id) => id,
          (share) => [share] as const,
        ),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/groups-with-users",
      summary: "Groups that have users as members (administrators)",
      request: { query: PagingQuerySchema },
      responses: {
        200: json(z.array(z.object({ group_id: z.string(), group_name: z.string(), users: z.number().int() })), "Groups"),
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => c.json(await listGroupsWithUsers(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/storage/{id}",
      summary: "Where new uploads into the group go: its storage, the nearest ancestor's, or the default",
      request: { params: IdParamsSchema },
      responses: { 200: json(StorageSchema, "Storage"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "groupStorage", [c.req.valid("param").id]), 200),
  );
