import { and, eq, notInArray, sql } from "drizzle-orm";
import type { Database } from "../client";
import { sessions, userGroupMembers, users } from "../schema/index";
import { ID_PATTERN } from "../../lib/ids";
import { runBatch } from "./asset.repository";

/**
 * The caller as a library shard needs them (decision 043): the access SQL joins the caller's row (their chroot) and
 * their memberships in groups of users, which live in the global database. A call to a shard carries both, read from
 * the global database in the request; the shard writes them into its own copies before the operation runs, so every
 * check in a shard uses the caller's groups as they are now, never a stale copy. The password hash never leaves the
 * global database.
 */
export interface CallerCopy {
  user: {
    id: string;
    login: string;
    name: string;
    isAdmin: boolean;
    isRobot: boolean;
    enabled: boolean;
    chrootGroups: string[];
    ctime: number;
    mtime: number;
  };
  /** ids of the groups of users the caller belongs to */
  groups: string[];
}

/** In the global database: the caller's row and memberships, in one round trip. */
export async function readCallerCopy(db: Database, userId: string): Promise<CallerCopy | null> {
  // On every call into a shard: the plain keyed reads, not the list form below.
  const [rows, memberships] = await db.batch([
    db.select(copyColumns).from(users).where(eq(users.id, userId)),
    db.select({ groupId: userGroupMembers.groupId }).from(userGroupMembers).where(eq(userGroupMembers.userId, userId)),
  ]);
  const user = rows[0];
  return user ? { user, groups: memberships.map((m) => m.groupId) } : null;
}

const copyColumns = {
  id: users.id,
  login: users.login,
  name: users.name,
  isAdmin: users.isAdmin,
  isRobot: users.isRobot,
  enabled: users.enabled,
  chrootGroups: users.chrootGroups,
  ctime: users.ctime,
  mtime: users.mtime,
};

/** In the global database: the copies of those of `userIds` who exist, in one round trip however many they are. */
export async function readCallerCopies(db: Database, userIds: readonly string[]): Promise<CallerCopy[]> {
  if (userIds.length === 0) return [];
  // One bound parameter whatever the count (D1 takes 100 per statement).
  const ids = JSON.stringify([...new Set(userIds)]);
  const [rows, memberships] = await db.batch([
    db
      .select(copyColumns)
      .from(users)
      .where(sql`${users.id} IN (SELECT value FROM json_each(${ids}))`),
    db
      .select({ userId: userGroupMembers.userId, groupId: userGroupMembers.groupId })
      .from(userGroupMembers)
      .where(sql`${userGroupMembers.userId} IN (SELECT value FROM json_each(${ids}))`),
  ]);
  return rows.map((user) => ({ user, groups: memberships.filter((m) => m.userId === user.id).map((m) => m.groupId) }));
}

/** Copies read ahead, per request (keyed by its context), of the user who signed in (null: by the page's session). */
const ahead = new WeakMap<object, { userId: string | null; copy: Promise<CallerCopy | null> }>();

/**
 * Starts reading `userId`'s copy for request `key` beside sign-in (its round trip), so that a call into a library's
 * shard, which carries it, waits for no read of its own. Only while some library may live in a shard.
 */
export function readCallerCopyAhead(key: object, db: Database, userId: string): void {
  const copy = readCallerCopy(db, userId);
  copy.catch(() => undefined);
  ahead.set(key, { userId, copy });
}

/**
 * For a page, whose cookie names its session, not its user: the copy of the session's user read beside the
 * session's own lookup (`callerCopyOf` answers it once that lookup has shown whose session it is).
 */
export function readCallerCopyAheadOfSession(key: object, db: Database, tokenHash: string): void {
  const user = sql`(SELECT ${sessions.userId} FROM ${sessions} WHERE ${sessions.tokenHash} = ${tokenHash})`;
  const copy = db
    .batch([
      db.select(copyColumns).from(users).where(eq(users.id, user)),
      db.select({ groupId: userGroupMembers.groupId }).from(userGroupMembers).where(eq(userGroupMembers.userId, user)),
    ])
    .then(([rows, memberships]) => (rows[0] ? { user: rows[0], groups: memberships.map((m) => m.groupId) } : null));
  copy.catch(() => undefined);
  ahead.set(key, { userId: null, copy });
}

/** `userId`'s copy: the one read ahead for request `key` when it is his, else read now. */
export async function callerCopyOf(key: object, db: Database, userId: string): Promise<CallerCopy | null> {
  const found = ahead.get(key);
  if (found?.userId === userId) return found.copy;
  const bySession = found?.userId === null ? await found.copy.catch(() => null) : null;
  return bySession?.user.id === userId ? bySession : readCallerCopy(db, userId);
}

/** The copy of someone a request names by id or login (a reviewer asked for), or null when nobody is. */
export async function readPersonCopy(db: Database, who: string): Promise<CallerCopy | null> {
  if (ID_PATTERN.test(who)) return readCallerCopy(db, who);
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.login}) = lower(${who})`);
  return row ? readCallerCopy(db, row.id) : null;
}

/** Whether the shard's copy already says what `copy` says: then nothing is written (a write holds the answer back
 * until it is durable). */
async function copyIsCurrent(db: Database, copy: CallerCopy): Promise<boolean> {
  const stored = await readCallerCopy(db, copy.user.id);
  if (!stored) return false;
  const sameGroups = stored.groups.length === copy.groups.length && stored.groups.every((g) => copy.groups.includes(g));
  return sameGroups && JSON.stringify(stored.user) === JSON.stringify(copy.user);
}

/**
 * In a shard: the caller's copy made current, as one batch, when it differs. Upserted, never deleted and re-inserted: rows of the
 * shard point at users (a link's creator), and a delete would cascade. Another copy still holding the caller's login
 * (a stale copy of someone who has since renamed) gives it up first: logins are unique here as there.
 */
export async function storeCallerCopy(db: Database, copy: CallerCopy, now: number): Promise<void> {
  if (await copyIsCurrent(db, copy)) return;
  const { user, groups } = copy;
  await runBatch(db, [
    db
      .update(users)
      .set({ login: sql`${users.id}` })
      .where(and(sql`lower(${users.login}) = lower(${user.login})`, sql`${users.id} <> ${user.id}`)),
    db
      .insert(users)
      .values(user)
      .onConflictDoUpdate({
        target: users.id,
        set: {
          login: user.login,
          name: user.name,
          isAdmin: user.isAdmin,
          isRobot: user.isRobot,
          enabled: user.enabled,
          chrootGroups: user.chrootGroups,
          mtime: user.mtime,
        },
      }),
    db.delete(userGroupMembers).where(and(eq(userGroupMembers.userId, user.id), notInArray(userGroupMembers.groupId, groups))),
    ...groups.map((groupId) => db.insert(userGroupMembers).values({ groupId, userId: user.id, ctime: now }).onConflictDoNothing()),
  ]);
}
