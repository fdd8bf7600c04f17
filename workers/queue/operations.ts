import { and, isNotNull, lt, or } from "drizzle-orm";
import { createDb } from "../db/client";
import { deleteDeadSessions } from "../db/repositories/session.repository";
import { oneTimeTokens } from "../db/schema";
import { runPurgeGroup } from "../services/group.service";
import type { TaskMessage } from "./messages";

const DAY_MS = 86_400_000;

/**
 * Runs one operation; shared by the queue consumer and automation workflow steps. Returns a short summary for
 * logs. Throws to ask for a retry.
 */
export async function runOperation(env: Env, message: TaskMessage): Promise<string> {
  switch (message.op) {
    case "cleanup-sessions": {
      const db = createDb(env.DB);
      const cutoff = Date.now() - message.olderThanDays * DAY_MS;
      const [sessions, tokens] = await db.batch([
        deleteDeadSessions(db, cutoff),
        db
          .delete(oneTimeTokens)
          .where(or(lt(oneTimeTokens.expiresAt, cutoff), and(isNotNull(oneTimeTokens.usedAt), lt(oneTimeTokens.usedAt, cutoff)))),
      ]);
      return `removed ${sessions.meta.changes} dead refresh tokens and ${tokens.meta.changes} one-time tokens`;
    }
    case "purge-group":
      return runPurgeGroup(env, message);
  }
}
