import { count, eq, sql } from "drizzle-orm";
import type { Database } from "../client";
import { users, type UserRow } from "../schema";

export function findUserByLogin(db: Database, login: string): Promise<UserRow | undefined> {
  return db
    .select()
    .from(users)
    .where(sql`lower(${users.login}) = lower(${login})`)
    .get();
}

export function findUserById(db: Database, id: string): Promise<UserRow | undefined> {
  return db.select().from(users).where(eq(users.id, id)).get();
}

export async function countUsers(db: Database): Promise<number> {
  const row = await db.select({ n: count() }).from(users).get();
  return row?.n ?? 0;
}

/** Inserts a user unless the login is taken (case-insensitively); returns whether it was inserted. */
export async function insertUserIfLoginFree(db: Database, row: typeof users.$inferInsert): Promise<boolean> {
  const result = await db.insert(users).values(row).onConflictDoNothing().run();
  return result.meta.changes > 0;
}
