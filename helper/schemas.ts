import { z } from "zod";
import { invisibleCharIn } from "../shared/visible-name.ts";

/**
 * The helper's HTTP contract (SPEC §7: GET /status, POST /token, POST /mount): request bodies the handler parses and
 * the answers it gives, which the contract suite (tests/contract) checks answers against.
 */

/** POST /token: the user's bearer, as the app holds it. */
export const TokenBodySchema = z.object({ token: z.string().min(1).max(8192) });

/** POST /mount: SPEC's two fields. `name` becomes one folder under the root, so it is one plain path segment. */
export const MountBodySchema = z.object({
  group_id: z.string().regex(/^[0-9a-f]{32}$/, "ожидается id папки из 32 шестнадцатеричных символов"),
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .refine((n) => !/[\u0000-\u001f/\\:*?"<>|]/.test(n) && !n.startsWith(".") && !n.endsWith("."), "недопустимое имя папки (без / \\ : * ? \" < > |, не с точки)")
    .refine((n) => invisibleCharIn(n) === null, "имя папки не может содержать невидимые символы и символы смены направления текста"),
});

/** One mount as GET /status and POST /mount answer it. */
export const MountStatusSchema = z.object({
  group_id: z.string(),
  group_name: z.string(),
  name: z.string(),
  /** the local folder */
  path: z.string(),
  state: z.enum(["starting", "syncing", "idle", "waiting-token", "error"]),
  /** files in step on both sides */
  files: z.number().int(),
  /** uploads started and not finished (they continue after a restart) */
  pending_uploads: z.number().int(),
  last_sync_at: z.string().nullable(),
  last_error: z.string().nullable(),
  totals: z.object({
    uploaded: z.number().int(),
    downloaded: z.number().int(),
    trashed_local: z.number().int(),
    trashed_remote: z.number().int(),
    conflicts: z.number().int(),
  }),
});

/** GET /status and POST /token: the helper's version, the signed-in user, the mounts and the overall sync state. */
export const HelperStatusSchema = z.object({
  version: z.string(),
  root: z.string(),
  user: z.object({ id: z.string(), name: z.string() }).nullable(),
  /** the worst state of any mount: "idle" when every mount is in step (or there are none); "no-token" before POST /token */
  sync: z.enum(["idle", "syncing", "waiting-token", "error", "no-token"]),
  mounts: z.array(MountStatusSchema),
});

export type MountStatus = z.infer<typeof MountStatusSchema>;
export type HelperStatus = z.infer<typeof HelperStatusSchema>;
export type MountState = MountStatus["state"];
