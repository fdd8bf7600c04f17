import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";

/**
 * Security-relevant actions (sign-in, failed sign-in, user, rule and token changes) and what people did to files and
 * folders (asset.*, group.*), that administrators page through. Rows are only ever appended.
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: idColumn(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    /** who acted; null for an anonymous caller (a failed sign-in names the login in `details`) */
    actorId: text("actor_id"),
    /** dotted action name, e.g. `auth.login`, `auth.login_failed`, `user.create`, `acl.create`, `robot_token.create` */
    action: text("action").notNull(),
    objectType: text("object_type"),
    objectId: text("object_id"),
    /** JSON object with action-specific details; never holds secrets */
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>(),
    ip: text("ip"),
    /** file and folder events: the folder the file or sub-folder was in when it happened (a folder's history) */
    folderId: text("folder_id"),
  },
  (t) => [
    index("audit_log_ctime_idx").on(t.ctime),
    index("audit_log_actor_idx").on(t.actorId, t.ctime),
    index("audit_log_object_idx").on(t.objectId, t.ctime),
    index("audit_log_folder_idx").on(t.folderId, t.ctime),
    index("audit_log_action_idx").on(t.action, t.ctime),
  ],
);

export type AuditLogRow = typeof auditLog.$inferSelect;
