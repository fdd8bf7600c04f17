import { countUsers, insertUserIfLoginFree } from "../../db/repositories/user.repository";
import { newId } from "../../lib/ids";
import { hashPassword } from "../../lib/password";
import type { RequestContext } from "./context";

/** Set once this isolate has seen at least one user; saves a COUNT on every later request. */
let bootstrapped = false;

/**
 * Creates the administrator from ADMIN_LOGIN / ADMIN_PASSWORD when the users table is empty, so a fresh
 * deployment is usable at once. Safe under concurrency: the login is unique, a racing insert is ignored.
 */
export async function ensureAdministrator(rc: RequestContext): Promise<void> {
  if (bootstrapped) return;
  if ((await countUsers(rc.db)) > 0) {
    bootstrapped = true;
    return;
  }
  const password = rc.config.ADMIN_PASSWORD;
  if (!password) {
    console.warn(
      JSON.stringify({ level: "warn", message: "users table is empty and ADMIN_PASSWORD is not set: no administrator created" }),
    );
    return;
  }
  const now = Date.now();
  await insertUserIfLoginFree(rc.db, {
    id: newId(now),
    login: rc.config.ADMIN_LOGIN,
    name: "Администратор",
    passwordHash: await hashPassword(password),
    isAdmin: true,
    ctime: now,
    mtime: now,
  });
  bootstrapped = true;
}
