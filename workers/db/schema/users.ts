import { sql } from "drizzle-orm";
import { sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, idColumn, timestamps } from "../columns";

export const users = sqliteTable(
  "users",
  {
    id: idColumn(),
    login: text("login").notNull(),
    name: text("name").notNull(),
    /** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`: the algorithm and count travel with the hash so they can be upgraded. */
    passwordHash: text("password_hash"),
    isAdmin: bool("is_admin").notNull().default(false),
    isRobot: bool("is_robot").notNull().default(false),
    enabled: bool("enabled").notNull().default(true),
    /** JSON array of group ids the user is confined to; empty means no confinement. */
    chrootGroups: text("chroot_groups", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    defaultStorage: text("default_storage"),
    ...timestamps,
  },
  (t) => [uniqueIndex("users_login_unique").on(sql`lower(${t.login})`)],
);

export type UserRow = typeof users.$inferSelect;
