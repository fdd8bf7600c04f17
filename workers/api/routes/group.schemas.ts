/** The contract of the group calls: payloads (shared with the browser forms) and answers of /api/group. */
import { REVIEW_STATUSES } from "../../../shared/review-status";
import { CommentCountsSchema } from "./comment-counts.schemas";
import { z } from "@hono/zod-openapi";
import { MEMBER_TYPES } from "../../db/schema/index";
import { LISTED_TYPES, MEMBER_SORTS, SORT_ORDERS } from "../../services/library/pure";
import { EntityNameSchema, IdSchema, PagingQuerySchema } from "../schemas";

// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** At most this many ids per list request. */
export const MAX_IDS = 500;

export const pathId = (name: string) => IdSchema.openapi({ param: { name, in: "path" } });
export const iso = z.string().nullable().openapi({ description: "ISO 8601", example: "2026-11-22T10:15:00.000Z" });

// ---------------------------------------------------------------------------------------------------------------
// Payloads (shared with the browser forms)

/** Group create (SPEC §3): `parent` may be the virtual root (32 `f`). */
export const GroupCreateSchema = z
  .object({
    parent: IdSchema,
    group_name: EntityNameSchema,
    default_storage: IdSchema.nullish(),
    default_class: IdSchema.nullish(),
  })
  .openapi("GroupCreate");

export const GroupUpdateSchema = z
  .object({
    group_name: EntityNameSchema.optional(),
    default_storage: IdSchema.nullable().optional(),
    default_class: IdSchema.nullable().optional(),
    tags: z.array(IdSchema).max(100).optional().openapi({ description: "tag ids; replaces the group's tags" }),
  })
  .openapi("GroupUpdate");

export const IdListSchema = z.object({ ids: z.array(IdSchema).min(1).max(MAX_IDS) }).openapi("IdList");

export const InsertMembersSchema = z
  .object({
    members: z
      .array(z.object({ el_id: IdSchema, el_type: z.enum(MEMBER_TYPES) }))
      .min(1)
      .max(MAX_IDS),
  })
  .openapi("InsertMembers");

export const EntityPathSchema = z
  .object({ path: z.string().min(1).max(4096).openapi({ example: "Съёмки/2026/clip.mp4" }) })
  .openapi("EntityPath");

const SearchText = z
  .string()
  .min(1)
  .max(255)
  .refine((v) => !CONTROL_CHARS.test(v), "текст поиска не может содержать управляющие символы");

export const MembersQuerySchema = PagingQuerySchema.extend({
  // Any skip past the end is an empty page, so the bound is only what a number can hold exactly.
  skip: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .default(0)
    .openapi({ description: "members to pass over (from the nearest seek checkpoint, decision record 017); past the end: an empty page" }),
  type: z.enum(LISTED_TYPES).optional().openapi({ description: "only groups or only assets" }),
  sort: z.enum(MEMBER_SORTS).default("name"),
  order: z.enum(SORT_ORDERS).default("asc"),
  q: SearchText.optional().openapi({ description: "name contains, case-insensitive" }),
  mime: z
    .string()
    .max(255)
    .regex(/^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*(\/[a-zA-Z0-9!#$&^_.+-]*)?$/, "ожидается начало MIME-типа, например video/")
    .optional()
    .openapi({ description: "MIME prefix such as `video/`; lists assets only" }),
  review: z
    .enum([...REVIEW_STATUSES, "none"], { error: "ожидается in_review, approved, changes_requested, rejected или none" })
    .optional()
    .openapi({ description: "only files whose latest version has this review status (`none`: no decision yet); lists assets only" }),
  after: z.string().min(1).max(2048).optional().openapi({ description: "`X-Next-Cursor` of the previous page (key-based paging)" }),
});

export const SearchQuerySchema = PagingQuerySchema.extend({ q: SearchText });

export const DeleteMembersQuerySchema = z.object({
  ids: z
    .string()
    .regex(new RegExp(`^[0-9a-f]{32}(,[0-9a-f]{32}){0,${MAX_IDS - 1}}$`), "ожидаются идентификаторы через запятую")
    .openapi({ description: "comma-separated member ids", example: "01936f0c8a4b7c3d9e2f0a1b2c3d4e5f" }),
});

// ---------------------------------------------------------------------------------------------------------------
// Answers

export const GroupSummarySchema = z
  .object({
    group_id: z.string(),
    group_name: z.string(),
    group_owner: z.string().nullable(),
    owner_name: z.string().nullable(),
    ctime: iso,
    mtime: iso,
    members: z.number().int(),
  })
  .openapi("GroupSummary");

const PathEntrySchema = z.object({ group_id: z.string(), group_name: z.string() }).openapi("GroupPathEntry");

export const GroupSchema = z
  .object({
    group_id: z.string(),
    group_name: z.string(),
    group_owner: z.string().nullable(),
    owner_name: z.string().nullable(),
    group_default_storage: z.string().nullable(),
    group_default_class: z.string().nullable(),
    group_tags: z.array(z.object({ tag_id: z.string(), tag_name: z.string() })),
    parent: z.string().nullable(),
    path: z.array(PathEntrySchema).openapi({ description: "from the virtual root down to this group" }),
    ctime: iso,
    mtime: iso,
    deleted_at: iso,
  })
  .openapi("Group");

const MemberTagSchema = z.object({ tag_id: z.string(), tag_name: z.string() });

const AssetMemberSchema = z.object({
  el_id: z.string(),
  el_type: z.literal("asset"),
  el_info: z.object({
    name: z.string(),
    mimetype: z.string(),
    ctime: iso,
    mtime: iso,
    ver: z.number().int(),
    var: z.string().nullable(),
    var_size: z.number().int().nullable(),
    var_hash: z.string().nullable().openapi({ description: "hex SHA-256 of the main variant" }),
    owner: z.string(),
    owner_name: z.string().nullable(),
    preview: z.string().nullable().openapi({ description: "root-relative thumbnail URL" }),
    tags: z.array(MemberTagSchema).openapi({ description: "its tags by name (an extension of SPEC's el_info)" }),
    review_status: z.enum(REVIEW_STATUSES).nullable().openapi({ description: "current review status of the latest version" }),
    comments: CommentCountsSchema,
  }),
});

const GroupMemberSchema = z.object({
  el_id: z.string(),
  el_type: z.literal("group"),
  el_info: z.object({
    name: z.string(),
    ctime: iso,
    mtime: iso,
    owner: z.string().nullable(),
    owner_name: z.string().nullable(),
    groups: z.number().int(),
    assets: z.number().int(),
    tags: z.array(MemberTagSchema).openapi({ description: "its tags by name (an extension of SPEC's el_info)" }),
  }),
});

export const MemberSchema = z.discriminatedUnion("el_type", [GroupMemberSchema, AssetMemberSchema]).openapi("GroupMember");

export interface TreeNodeShape {
  element_id: string;
  group_id: string | null;
  group_name: string;
  isRoot: boolean;
  isOpen: boolean;
  subGroups: TreeNodeShape[];
  assets?: { asset_id: string; name: string; mimetype: string; ver: number }[];
  assets_more?: boolean;
  assets_cap?: { per_folder: number; total: number };
}

const TreeAssetSchema = z
  .object({ asset_id: z.string(), name: z.string(), mimetype: z.string(), ver: z.number().int().openapi({ description: "latest version; 0 while it has no bytes" }) })
  .openapi("GroupTreeAsset");

export const TreeNodeSchema: z.ZodType<TreeNodeShape> = z
  .object({
    element_id: z.string(),
    group_id: z.string().nullable().openapi({ description: "the parent group" }),
    group_name: z.string(),
    isRoot: z.boolean(),
    isOpen: z.boolean().openapi({ description: "open: the group the tree was asked for; its descendants start closed" }),
    get subGroups(): z.ZodArray<z.ZodType<TreeNodeShape>> {
      return z.array(TreeNodeSchema);
    },
    assets: z
      .array(TreeAssetSchema)
      .optional()
      .openapi({ description: "the folder's first files by name (at most assets_cap.per_folder; none past assets_cap.total); absent with assets=false" }),
    assets_more: z.boolean().optional().openapi({ description: "the folder may hold more files than listed: page them with GET /api/group/members/{id}" }),
    assets_cap: z
      .object({ per_folder: z.number().int(), total: z.number().int() })
      .optional()
      .openapi({ description: "on the root: files listed per folder and in the whole tree at most" }),
  })
  .openapi("GroupTreeNode");

export const DirectoryEntrySchema = z
  .object({
    id: z.string(),
    type: z.enum(["asset", "group"]),
    name: z.string(),
    ctime: iso,
    mtime: iso,
    atime: iso,
    mime: z.string().nullable(),
    size: z.number().int().nullable(),
    ver: z.number().int().nullable(),
    var: z.string().nullable(),
    var_hash: z.string().nullable(),
  })
  .openapi("DirectoryEntry");

export const TrashedGroupSchema = z
  .object({
    group_id: z.string(),
    group_name: z.string(),
    parent: z.string(),
    group_owner: z.string().nullable(),
    deleted_at: z.string(),
    location: z
      .object({ group_id: z.string(), group_name: z.string() })
      .nullable()
      .openapi({ description: "the folder it was in (a restore puts it back); null when the caller may not read it" }),
  })
  .openapi("TrashedGroup");

export const FoundGroupSchema = z
  .object({
    group_id: z.string(),
    group_name: z.string(),
    group_owner: z.string().nullable(),
    owner_name: z.string().nullable(),
    parent: z.string().nullable(),
    path: z.array(PathEntrySchema),
    ctime: iso,
    mtime: iso,
  })
  .openapi("FoundGroup");

export const PreviewListSchema = z
  .object({
    base_url: z.string().openapi({ description: "origin the root-relative references resolve against" }),
    list: z.array(z.object({ el_id: z.string(), preview: z.string().nullable() })),
  })
  .openapi("PreviewList");

export const MoveParamsSchema = z.object({ from: pathId("from"), to: pathId("to") });
