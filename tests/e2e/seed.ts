import { createHash } from "node:crypto";
import { storedPasswordHash } from "../../scripts/dev-server.mjs";

/** A non-administrator seeded into the e2e database before the server starts. */
export const EDITOR = { id: "0000000000007000800000000000e2e1", login: "editor", name: "Редактор", password: "editor-password-1" };

/** A one-time sign-in token for EDITOR, as an SSO callback would hand to /login?token=… */
export const EDITOR_ONE_TIME_TOKEN = "e2e-one-time-sign-in-token-0001";

/** SQL that seeds the e2e users (run after migrations, before `wrangler dev`). */
export function seedSql(): string {
  const now = Date.now();
  return `INSERT INTO users (id, login, name, password_hash, is_admin, is_robot, enabled, chroot_groups, ctime, mtime)
VALUES ('${EDITOR.id}', '${EDITOR.login}', '${EDITOR.name}', '${storedPasswordHash(EDITOR.password)}', 0, 0, 1, '[]', ${now}, ${now});
INSERT INTO one_time_tokens (id, token_hash, user_id, ctime, expires_at)
VALUES ('0000000000007000800000000000e2e2', '${createHash("sha256").update(EDITOR_ONE_TIME_TOKEN).digest("hex")}', '${
    EDITOR.id
  }', ${now}, ${now + 24 * 3600_000});`;
}
