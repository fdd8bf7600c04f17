import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import {
  createRobotToken,
  listTokens,
  revokeRobotToken,
  getSettings,
  patchSettings,
  SETTINGS_MAX_BYTES,
  type BookmarkNames,
  type SettingsKind,
  createUser,
  deleteUser,
  getUser,
  listUsers,
  patchUser,
  searchUserGroup,
} from "../../services/access";
import { globalChange, refreshCopiesSoon } from "../library-place";
import { readEachRouted, type Reader } from "../library-reads";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema, NON_BLANK_PATTERN, TRIMMED_TEXT_PATTERN, visibleName } from "../schemas";

// Control characters (C0, DEL, C1) never belong in a name or login.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** A person's or robot's display name: 1–200 characters after trimming. Shared by the admin forms. */
export const UserNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((v) => !CONTROL_CHARS.test(v), ru.users.nameControlChars)
  .check(visibleName)
  .openapi({ example: "Мария Иванова", pattern: TRIMMED_TEXT_PATTERN });

/** A login: 1–100 characters, no spaces or control characters; unique regardless of case. */
export const LoginNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[^\s\u0000-\u001f\u007f-\u009f]+$/, ru.users.loginChars)
  .check(visibleName)
  .openapi({ example: "maria" });

/** A password: 8 to 1024 characters. */
export const PasswordSchema = z.string().min(8).max(1024).openapi({ example: "correct horse battery staple" });

const ChrootSchema = z
  .array(IdSchema)
  .max(100)
  .openapi({ description: "groups the user is confined to (sees only them and what is below); empty: no confinement" });

const StorageRefSchema = IdSchema.nullable().openapi({ description: "storage for the user's new files; null: the default" });

export const UserCreateSchema = z
  .object({
    user_name: UserNameSchema,
    user_login: LoginNameSchema,
    user_passwd: PasswordSchema,
    enabled: z.boolean(),
    is_admin: z.boolean().optional(),
    is_robot: z.boolean().optional(),
    chroot_groups: ChrootSchema.optional(),
    default_storage: StorageRefSchema.optional(),
  })
  .strict()
  .openapi("UserCreate");

export const UserPatchSchema = z
  .object({
    user_name: UserNameSchema.optional(),
    user_login: LoginNameSchema.optional(),
    user_passwd: PasswordSchema.optional(),
    current_passwd: z.string().max(1024).optional().openapi({ description: "required when changing one's own password" }),
    enabled: z.boolean().optional(),
    is_admin: z.boolean().optional(),
    is_robot: z.boolean().optional(),
    chroot_groups: ChrootSchema.optional(),
    default_storage: StorageRefSchema.optional(),
  })
  .strict()
  .openapi("UserPatch");

/** SPEC §3 User names the flag `enabled`, its entity info `user_enabled`: a user answers both. */
function withUserEnabled<T extends { enabled: boolean }>(user: T): T & { user_enabled: boolean } {
  return { ...user, user_enabled: user.enabled };
}

export const UserSchema = z
  .object({
    user_id: z.string(),
    user_name: z.string(),
    login: z.string(),
    enabled: z.boolean(),
    user_enabled: z.boolean().openapi({ description: "the same as enabled: SPEC §3 names it so in the user's entity info" }),
    is_admin: z.boolean(),
    is_robot: z.boolean(),
    chroot_groups: z.array(z.string()),
    default_storage: z.string().nullable(),
    acl_count: z.number().int().openapi({ description: "access rules whose subject is this user" }),
    has_password: z.boolean().openapi({ description: "false for users created by single sign-on" }),
    ctime: z.string(),
    mtime: z.string(),
  })
  .openapi("User");

const boolQuery = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1")
  .optional();

export const UserListQuerySchema = z.object({
  enabled: boolQuery.openapi({ description: "true: active users, false: inactive users; absent: all" }),
  is_robot: boolQuery.openapi({ description: "true: robots only, false: people only" }),
  is_admin: boolQuery,
  q: z.string().trim().max(100).optional().openapi({ description: "part of the name or login, case-insensitive" }),
  skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
  take: z.coerce.number().int().min(1).max(500).default(50),
});

const DeleteQuerySchema = z.object({
  new_owner: IdSchema.optional().openapi({ description: "who receives the user's files and folders; required when the user owns any" }),
});

const TokenCreateSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .refine((v) => !CONTROL_CHARS.test(v), ru.users.nameControlChars)
      .check(visibleName)
      .openapi({ example: "CI", pattern: TRIMMED_TEXT_PATTERN }),
    expires_at: z.iso.datetime({ offset: true }).optional().openapi({ description: "ISO 8601; absent: never expires" }),
    scope_groups: z
      .array(IdSchema)
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: "confine the token to these groups (and below); a scoped token never has administrator rights" }),
  })
  .strict()
  .openapi("RobotTokenCreate");

const TokenSchema = z
  .object({
    token_id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: "first characters of the token, to recognise it" }),
    scope_groups: z.array(z.string()).nullable(),
    ctime: z.string(),
    expires_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    status: z.enum(["active", "expired", "revoked"]),
  })
  .openapi("RobotToken");

const NewTokenSchema = TokenSchema.extend({
  token: z.string().openapi({ description: "the token (`mamr_…`); shown only in this answer", example: "mamr_…" }),
}).openapi("RobotTokenCreated");

const TokenParamsSchema = z.object({
  id: IdSchema.openapi({ param: { name: "id", in: "path" } }),
  tokenId: IdSchema.openapi({ param: { name: "tokenId", in: "path" } }),
});

/** A settings document: a JSON object; PATCH values replace top-level keys, `null` removes one. */
const SettingsSchema = z.record(z.string().min(1).max(200), z.unknown()).openapi("UserSettings", {
  description: `JSON object of at most ${SETTINGS_MAX_BYTES / 1024} KiB`,
});

/**
 * The view settings the screens keep in `ui_settings` (app/lib/use-persistent-state.ts): a value of the wrong kind is
 * refused with 400 rather than stored, so a broken client cannot leave a setting the screens would misread. `null`
 * removes a key, as for any key; other keys are free.
 */
const UI_SETTING_VALUES: Record<string, readonly string[]> = {
  mamView: ["grid", "list"],
  mamSort: ["name", "mtime", "size"],
  mamOrder: ["asc", "desc"],
  uploadPanelCollapsed: ["0", "1"],
};

const UiSettingsSchema = SettingsSchema.superRefine((doc, ctx) => {
  for (const [key, allowed] of Object.entries(UI_SETTING_VALUES)) {
    const value = doc[key];
    if (value !== undefined && value !== null && !(typeof value === "string" && allowed.includes(value))) {
      ctx.addIssue({ code: "custom", message: ru.users.settingValue(key), path: [key] });
    }
  }
});

const PickerEntrySchema = z
  .object({
    id: z.string(),
    type: z.enum(["user", "group"]),
    name: z.string(),
    login: z.string().optional(),
    is_robot: z.boolean().optional(),
  })
  .openapi("UserGroupPickerEntry");

const SearchParamsSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .openapi({ param: { name: "name", in: "path" }, example: "мар", pattern: NON_BLANK_PATTERN }),
});

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });
const totalHeader = { "X-Total-Count": { schema: { type: "integer" as const }, description: "matching items over all pages" } };

function settingsRoutes(kind: SettingsKind, title: string, schema: z.ZodType<Record<string, unknown>> = SettingsSchema) {
  return [
    createRoute({
      method: "get",
      path: `/${kind}`,
      tags: ["Users"],
      summary: `The caller's ${title}`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: { 200: json(SettingsSchema, title), ...errorResponses(401) },
    }),
    createRoute({
      method: "patch",
      path: `/${kind}`,
      tags: ["Users"],
      summary: `Merge into the caller's ${title}`,
      description: "Each top-level key replaces the stored one, `null` removes it, other keys stay. Answers the whole document.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: body(schema),
      responses: { 200: json(SettingsSchema, title), ...errorResponses(400, 401, 409, 415), 413: json(z.any(), "Too large") },
    }),
  ] as const;
}

const [getUi, patchUi] = settingsRoutes("ui_settings", "UI settings", UiSettingsSchema);
const [getBookmarks, patchBookmarks] = settingsRoutes("bookmarks", "bookmarks");

/** Favourites' names read where each folder or file lives (decision 051): one call into each shard, side by side. */
const namesWhereTheyLive =
  (at: Reader): BookmarkNames =>
  (items) =>
    readEachRouted(
      at,
      "bookmarkNames",
      items,
      (item) => item.id,
      (ids, share) => [ids, share] as const,
    );

/** Users, robots and their tokens, settings and bookmarks (SPEC §7 Users). Fixed paths come before `/{id}`. */
export const userRoutes = createRouter()
  .openapi(getUi, async (c) => c.json(await getSettings(c.var.rc, c.var.actor, "ui_settings"), 200))
  .openapi(patchUi, async (c) => c.json(await patchSettings(c.var.rc, c.var.actor, "ui_settings", c.req.valid("json")), 200))
  .openapi(getBookmarks, async (c) => c.json(await getSettings(c.var.rc, c.var.actor, "bookmarks", namesWhereTheyLive(c.var)), 200))
  .openapi(patchBookmarks, async (c) =>
    c.json(await patchSettings(c.var.rc, c.var.actor, "bookmarks", c.req.valid("json"), namesWhereTheyLive(c.var)), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/search-user-group/{name}",
      tags: ["Users"],
      summary: "Users and groups whose name contains the text, for pickers",
      description:
        "Up to 20 users (enabled only) and 20 groups. Administrators see every group and the users' logins; others see users by name and the groups they may read.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: SearchParamsSchema },
      responses: { 200: json(z.array(PickerEntrySchema), "Matches, users first"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await searchUserGroup(c.var.rc, c.var.actor, c.req.valid("param").name), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      tags: ["Users"],
      summary: "Create a user or robot (administrators)",
      description: "409 when the login exists (case-insensitively); 404 for an unknown chroot group or storage.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: body(UserCreateSchema),
      responses: { 200: json(UserSchema, "Created"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => c.json(withUserEnabled(await createUser(c.var.rc, c.var.actor, c.req.valid("json"))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      tags: ["Users"],
      summary: "Users by name, one page (administrators)",
      description: "`enabled=true` lists active users, `enabled=false` inactive ones. The total is in `X-Total-Count`.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: UserListQuerySchema },
      responses: { 200: { ...json(z.array(UserSchema), "Users"), headers: totalHeader }, ...errorResponses(400, 401, 403) },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listUsers(c.var.rc, c.var.actor, {
        enabled: q.enabled,
        robot: q.is_robot,
        admin: q.is_admin,
        q: q.q || undefined,
        skip: q.skip,
        take: q.take,
      });
      c.header("X-Total-Count", String(total));
      return c.json(items.map(withUserEnabled), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags: ["Users"],
      summary: "One user (administrators, or the user themselves)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(UserSchema, "User"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(withUserEnabled(await getUser(c.var.rc, c.var.actor, c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      tags: ["Users"],
      summary: "Change a user",
      description:
        "Administrators change any field; users change their own `user_name` and `user_passwd` (with `current_passwd`). Disabling a user ends all its sessions at once; a new password ends the user's other sessions. Disabling, demoting or turning into a robot the last enabled administrator is 409.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, ...body(UserPatchSchema) },
      responses: { 200: json(UserSchema, "Changed"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const changed = await patchUser(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json"));
      refreshCopiesSoon(c);
      return c.json(withUserEnabled(changed), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      tags: ["Users"],
      summary: "Delete a disabled user, giving what it owns to `new_owner` (administrators)",
      description:
        "409 while the user is enabled, and when it owns files or folders and no `new_owner` is given. Ownership moves, and the user's rules, memberships, sessions and tokens go, in one transaction.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, query: DeleteQuerySchema },
      responses: {
        200: json(
          z.object({
            user_id: z.string(),
            new_owner: z.string().nullable(),
            reassigned: z.record(z.string(), z.number().int()).openapi({ description: "rows given to new_owner, per table" }),
          }),
          "Deleted",
        ),
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) =>
      c.json(await deleteUser(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("query").new_owner, globalChange(c)), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/tokens",
      tags: ["Users"],
      summary: "Create an API token for a robot (administrators)",
      description:
        "The answer's `token` is shown only once (only its SHA-256 is stored). Send it as `Authorization: Bearer mamr_…`. 409 when the user is not a robot.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, ...body(TokenCreateSchema) },
      responses: { 200: json(NewTokenSchema, "Created"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => c.json(await createRobotToken(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/tokens",
      tags: ["Users"],
      summary: "A robot's API tokens, without secrets (administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(z.array(TokenSchema), "Tokens, newest first"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await listTokens(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}/tokens/{tokenId}",
      tags: ["Users"],
      summary: "Revoke a robot's API token at once (administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: TokenParamsSchema },
      responses: { 200: json(TokenSchema, "Revoked"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { id, tokenId } = c.req.valid("param");
      return c.json(await revokeRobotToken(c.var.rc, c.var.actor, id, tokenId), 200);
    },
  );
