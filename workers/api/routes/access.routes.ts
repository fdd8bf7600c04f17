import { createRoute, z } from "@hono/zod-openapi";
import {
  changeRules,
  rulesOfGroup,
  rulesOfUser,
  ACCESS_LEVELS,
  addUsersToGroup,
  listGroupUsers,
  memberOf,
  removeUsersFromGroup,
  type RulesPage,
} from "../../services/access";
import { objectsOfRules, writeWhereItLives } from "../library-place";
import { levelsWhereTheyLive, pageWhereItLives, readRouted, type Reader } from "../library-reads";
import { binaryOrder } from "../../lib/binary-order";
import { noLibrarySwitched } from "../../db/library-directory";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema, PagingQuerySchema } from "../schemas";

/** Access rules and access reads (SPEC §6, §7 Auth entity-access calls and Users acl calls); mounted at /api. */

const auth = { security: bearerSecurity, middleware: [requireAuth], tags: ["Access"] };
const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
const iso = z.string().nullable().openapi({ description: "ISO 8601", example: "2026-11-22T10:15:00.000Z" });

/** At most this many changes in one acl-list call, and entity/user pairs in one entity-user-access call. */
const MAX_CHANGES = 200;

export const AccessLevelSchema = z.enum(ACCESS_LEVELS).openapi({ description: "access level (SPEC §6)", example: "read" });
export const AclSchema = z
  .array(AccessLevelSchema)
  .min(1)
  .max(ACCESS_LEVELS.length)
  .openapi({ description: "levels of the rule; superuser implies every level, deny overrides every grant", example: ["read", "download"] });

export const NewRuleSchema = z
  .object({
    subj: IdSchema.openapi({ description: "user or group of users the rule is for" }),
    subj_type: z.enum(["user", "group"]).optional().openapi({ description: "checked against the subject when given" }),
    obj: IdSchema.openapi({ description: "asset or group the rule is on" }),
    obj_type: z.enum(["asset", "group"]).optional().openapi({ description: "checked against the object when given" }),
    acl: AclSchema,
  })
  .openapi("AccessRuleCreate");

export const RuleSchema = z
  .object({
    rule_id: z.string(),
    subj_id: z.string(),
    subj_type: z.enum(["user", "group"]),
    subj_name: z.string().nullable(),
    obj_id: z.string(),
    obj_type: z.enum(["asset", "group"]),
    obj_name: z.string().nullable(),
    acl: z.array(AccessLevelSchema),
    ctime: iso,
    created_by: z.string().nullable(),
  })
  .openapi("AccessRule");

/** The rules naming some subjects, each library's read where it lives, merged newest first (decision 051, step 2.3). */
const rulesWhereTheyLive =
  (at: Reader): RulesPage =>
  (subjects, paging) =>
    pageWhereItLives<"rulesOfSubjects">(
      at,
      "rulesOfSubjects",
      (window, scope) => [[], subjects, window, scope],
      paging,
      (a, b) => b.ctime - a.ctime || binaryOrder(a.rule_id, b.rule_id),
    );

const RuleIdParams = z.object({ id: IdSchema.openapi({ param: { name: "id", in: "path" }, description: "rule id" }) });
const PatchRuleSchema = z.object({ acl: AclSchema }).openapi("AccessRulePatch");

export const RuleListChangesSchema = z
  .object({
    create: z.array(NewRuleSchema).max(MAX_CHANGES).optional(),
    update: z
      .array(z.object({ rule_id: IdSchema, acl: AclSchema }))
      .max(MAX_CHANGES)
      .optional(),
    delete: z.array(IdSchema).max(MAX_CHANGES).optional(),
  })
  .refine((v) => (v.create?.length ?? 0) + (v.update?.length ?? 0) + (v.delete?.length ?? 0) <= MAX_CHANGES, {
    message: `не больше ${MAX_CHANGES} изменений за раз`,
  })
  .openapi("AccessRuleListChanges");

const EntityAccessSchema = z
  .object({ entity_id: z.string(), entity_type: z.enum(["asset", "group"]), acl: z.array(AccessLevelSchema) })
  .openapi("EntityAccess");
const EntityRulesSchema = z
  .object({
    entity_id: z.string(),
    entity_type: z.enum(["asset", "group"]),
    name: z.string(),
    inherit: z.boolean(),
    rules: z.array(RuleSchema.extend({ inherited: z.boolean(), from: z.string().openapi({ description: "entity the rule is on" }) })),
  })
  .openapi("EntityRules");
const UserAccessPairSchema = z.object({
  entity: IdSchema,
  user: IdSchema.optional().openapi({ description: "whose levels; the caller when absent (no acl needed for one's own)" }),
});
const UserAccessSchema = z.object({ entity: z.string(), user: z.string(), acl: z.array(AccessLevelSchema) }).openapi("EntityUserAccess");
const InheritanceSchema = z.object({ entity_id: z.string(), inherit: z.boolean() }).openapi("AccessInheritance");
const GroupUsersBodySchema = z.object({ users: z.array(IdSchema).min(1).max(500) }).openapi("GroupUsers");
const GroupUsersQuerySchema = z.object({
  users: z
    .string()
    .regex(/^[0-9a-f]{32}(,[0-9a-f]{32}){0,499}$/, "ожидаются идентификаторы через запятую")
    .openapi({ description: "comma-separated user ids" }),
});
const GroupUserSchema = z
  .object({ user_id: z.string(), user_name: z.string(), login: z.string(), enabled: z.boolean(), since: iso })
  .openapi("GroupUser");

export const accessRoutes = createRouter()
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/user/acl",
      summary: "Create an access rule (needs acl on the object; only levels the caller holds there)",
      request: { body: jsonBody(NewRuleSchema) },
      responses: { 201: json(RuleSchema, "Created rule"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const input = c.req.valid("json");
      // The subject rides along to a library shard, which checks it (decision 043, «Writes»).
      return c.json(await writeWhereItLives(c, input.obj, "createRule", [input], { named: { subjects: [input.subj] } }), 201);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "patch",
      path: "/user/acl-list",
      summary: "Create, change and delete rules in one batch (all or nothing)",
      request: { body: jsonBody(RuleListChangesSchema) },
      responses: {
        200: json(
          z.object({
            created: z.array(z.string()),
            updated: z.array(z.string()),
            deleted: z.array(z.string()),
            rules: z.array(RuleSchema),
          }),
          "Applied changes",
        ),
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const changes = c.req.valid("json");
      const created = (changes.create ?? []).map((r) => r.obj);
      const ruleIds = [...(changes.update ?? []).map((u) => u.rule_id), ...(changes.delete ?? [])];
      if (created.length + ruleIds.length === 0) return c.json(await changeRules(c.var.rc, c.var.actor, changes), 200);
      // Placed by the first object named; every other one must be in the same library.
      const objects = async () => [...created, ...(ruleIds.length ? await objectsOfRules(c, ruleIds) : [])];
      const [first] = created.length ? created : ruleIds;
      const value = await writeWhereItLives(c, first, "changeRules", [changes], {
        named: { subjects: (changes.create ?? []).map((r) => r.subj) },
        placedBy: async () => (await objects())[0],
        sameLibrary: async () => (await objects()).slice(1),
      });
      return c.json(value, 200);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/user/acl/{id}",
      summary: "One access rule",
      request: { params: RuleIdParams },
      responses: { 200: json(RuleSchema, "Rule"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      // read where the folder or file it is on lives (no lookup while every library is in the catalog)
      const on = noLibrarySwitched() ? id : (await objectsOfRules(c, [id]))[0];
      return c.json(await readRouted(c.var, "getRule", [on, id]), 200);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "patch",
      path: "/user/acl/{id}",
      summary: "Replace the levels of a rule",
      request: { params: RuleIdParams, body: jsonBody(PatchRuleSchema) },
      responses: { 200: json(RuleSchema, "Changed rule"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const placedBy = async () => (await objectsOfRules(c, [id]))[0];
      return c.json(await writeWhereItLives(c, id, "updateRule", [id, c.req.valid("json").acl], { placedBy }), 200);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "delete",
      path: "/user/acl/{id}",
      summary: "Delete a rule",
      request: { params: RuleIdParams },
      responses: { 204: { description: "Deleted" }, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await writeWhereItLives(c, id, "deleteRule", [id], { placedBy: async () => (await objectsOfRules(c, [id]))[0] });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/user/user-acl/{id}",
      summary: "Rules of a user, direct and through their groups (the user themselves or an administrator)",
      request: { params: IdParamsSchema, query: PagingQuerySchema },
      responses: {
        200: json(z.array(RuleSchema.extend({ via_group: z.string().nullable() })), "Rules"),
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) =>
      c.json(await rulesOfUser(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("query"), rulesWhereTheyLive(c.var)), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/user/group-acl/{id}",
      summary: "Rules whose subject is a group of users (needs group on it)",
      request: { params: IdParamsSchema, query: PagingQuerySchema },
      responses: { 200: json(z.array(RuleSchema), "Rules"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) =>
      c.json(await rulesOfGroup(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("query"), rulesWhereTheyLive(c.var)), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/user/entity-access/{id}",
      summary: "Every rule reaching an entity, inherited ones marked (needs acl on it)",
      request: { params: IdParamsSchema },
      responses: { 200: json(EntityRulesSchema, "Rules on the entity"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "rulesOnEntity", [c.req.valid("param").id]), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/user/memeber-of/{id}",
      summary: "Groups a user is a member of (SPEC spelling; the user themselves or an administrator)",
      request: { params: IdParamsSchema, query: PagingQuerySchema },
      responses: {
        200: json(z.array(z.object({ group_id: z.string(), group_name: z.string(), since: iso })), "Groups"),
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await memberOf(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/auth/entity-access/{id}",
      summary: "The caller's effective levels on an entity",
      request: { params: IdParamsSchema },
      responses: { 200: json(EntityAccessSchema, "Levels"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "callerAccess", [c.req.valid("param").id]), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/auth/entity-user-access/{id}",
      summary: "A user's effective levels on an entity: the caller without `user`, another user with acl on the entity",
      request: {
        params: IdParamsSchema,
        query: z.object({ user: IdSchema.optional().openapi({ description: "whose levels; the caller when absent (SPEC sends none)" }) }),
      },
      responses: { 200: json(UserAccessSchema, "Levels"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const [answer] = await levelsWhereTheyLive(c.var, [{ entity: c.req.valid("param").id, user: c.req.valid("query").user }]);
      return c.json(answer, 200);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/auth/entity-user-access",
      summary: "Effective levels for a list of entity and user pairs (acl on every entity, except for the caller's own)",
      request: {
        body: jsonBody(
          z
            .array(UserAccessPairSchema)
            .min(1)
            .max(MAX_CHANGES)
            .openapi({ example: [{ entity: "0195f1c2a4b37c0d9e8f1a2b3c4d5e6f" }] }),
        ),
      },
      responses: { 200: json(z.array(UserAccessSchema), "Levels per pair"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await levelsWhereTheyLive(c.var, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/auth/entity-acl-access/{id}",
      summary: "Whether the caller may change rules on an entity, and which levels it may grant",
      request: { params: IdParamsSchema },
      responses: {
        200: json(z.object({ entity_id: z.string(), acl: z.boolean(), grantable: z.array(AccessLevelSchema) }), "Answer"),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => c.json(await readRouted(c.var, "aclAccess", [c.req.valid("param").id]), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/auth/access-inheritance/{id}",
      summary: "Whether an entity inherits the rules of its groups",
      request: { params: IdParamsSchema },
      responses: { 200: json(InheritanceSchema, "Switch"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "getInheritance", [c.req.valid("param").id]), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/auth/access-inheritance/{id}",
      summary: "Switch inheritance on or off (needs acl on the entity)",
      request: { params: IdParamsSchema, body: jsonBody(z.object({ inherit: z.boolean() }).openapi("AccessInheritanceSet")) },
      responses: { 200: json(InheritanceSchema, "Switch"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json(await writeWhereItLives(c, id, "setInheritance", [id, c.req.valid("json").inherit]), 200);
    },
  )
  .openapi(
    createRoute({
      ...auth,
      method: "get",
      path: "/group/users/{id}",
      summary: "Users who are members of a group (needs group on it)",
      request: { params: IdParamsSchema, query: PagingQuerySchema },
      responses: { 200: json(z.array(GroupUserSchema), "Members"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await listGroupUsers(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "post",
      path: "/group/users/{id}",
      summary: "Make users members of a group (needs group on it)",
      request: { params: IdParamsSchema, body: jsonBody(GroupUsersBodySchema) },
      responses: { 200: json(z.array(GroupUserSchema), "Members now"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await addUsersToGroup(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json").users), 200),
  )
  .openapi(
    createRoute({
      ...auth,
      method: "delete",
      path: "/group/users/{id}",
      summary: "Remove users from a group (needs group on it)",
      request: { params: IdParamsSchema, query: GroupUsersQuerySchema },
      responses: { 204: { description: "Removed" }, ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      await removeUsersFromGroup(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("query").users.split(","));
      return c.body(null, 204);
    },
  );
