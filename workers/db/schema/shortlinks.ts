import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./users";

/**
 * Links that share an asset, a group or a collection with anyone who has the URL (`/sl/<id>`). The id is the secret: 128 random
 * bits in base64url. A link acts with its creator's rights, checked again at every open, so it never grants more
 * than the creator holds now. Revoking keeps the row (counts and the audit trail stay readable).
 */
export const shortlinks = sqliteTable(
  "shortlinks",
  {
    /** 22 base64url characters (128 random bits) */
    id: text("id").primaryKey(),
    entityId: text("entity_id").notNull(),
    entityType: text("entity_type", { enum: ["asset", "group", "collection"] }).notNull(),
    creatorId: text("creator_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    mtime: integer("mtime", { mode: "number" }).notNull(),
    /** epoch ms before which the link does not open; null: from creation */
    notBefore: integer("not_before", { mode: "number" }),
    /** epoch ms after which the link no longer opens; null: until revoked */
    notAfter: integer("not_after", { mode: "number" }),
    /** PBKDF2 hash (workers/lib/password.ts); null: no password */
    passwordHash: text("password_hash"),
    /** bitmask of what a visitor may do: 1 view, 2 download originals, 4 download proxies (see shortlink-acl.ts) */
    acl: integer("acl", { mode: "number" }).notNull(),
    /** JSON array of the addresses the link was mailed to */
    emails: text("emails", { mode: "json" }).$type<string[]>(),
    revokedAt: integer("revoked_at", { mode: "number" }),
    revokedBy: text("revoked_by"),
    views: integer("views", { mode: "number" }).notNull().default(0),
    downloads: integer("downloads", { mode: "number" }).notNull().default(0),
    lastOpenedAt: integer("last_opened_at", { mode: "number" }),
  },
  (t) => [index("shortlinks_entity_idx").on(t.entityId, t.ctime), index("shortlinks_active_idx").on(t.revokedAt, t.ctime)],
);

export type ShortlinkRow = typeof shortlinks.$inferSelect;
