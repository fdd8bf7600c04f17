import { DurableObject } from "cloudflare:workers";
import { z } from "zod";

export const TASK_COMMANDS = ["pause", "resume", "cancel"] as const;
const LogLevelSchema = z.enum(["info", "warn", "error"]);
const ProgressSchema = z.object({ progress: z.number().min(0).max(100), info: z.string().max(1000).nullable().default(null) });

export interface TaskLogLine {
  seq: number;
  at: number;
  level: z.infer<typeof LogLevelSchema>;
  message: string;
}

/**
 * Live state of one running task (one object per task id).
 * Responsibilities: hold progress and the log while the task runs, and take commands (pause, resume, cancel)
 * that the queue consumer collects between steps. D1 keeps the durable task row for listing.
 */
export class TaskStateDO extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, level TEXT NOT NULL, message TEXT NOT NULL
    )`);
  }

  async setProgress(input: unknown): Promise<void> {
    await this.ctx.storage.put("progress", ProgressSchema.parse(input));
  }

  async getProgress(): Promise<z.infer<typeof ProgressSchema>> {
    return (await this.ctx.storage.get<z.infer<typeof ProgressSchema>>("progress")) ?? { progress: 0, info: null };
  }

  appendLog(level: unknown, message: unknown): number {
    const lvl = LogLevelSchema.parse(level);
    const text = z.string().max(10_000).parse(message);
    const cursor = this.ctx.storage.sql.exec<{ seq: number }>(
      "INSERT INTO log (at, level, message) VALUES (?, ?, ?) RETURNING seq",
      Date.now(),
      lvl,
      text,
    );
    return cursor.one().seq;
  }

  /** Log lines after `afterSeq`, oldest first, at most `limit`. */
  readLog(afterSeq = 0, limit = 500): TaskLogLine[] {
    return this.ctx.storage.sql
      .exec<{ seq: number; at: number; level: TaskLogLine["level"]; message: string }>(
        "SELECT seq, at, level, message FROM log WHERE seq > ? ORDER BY seq LIMIT ?",
        afterSeq,
        Math.min(Math.max(limit, 1), 5000),
      )
      .toArray();
  }

  /** Queues a command for the running operation; the latest command wins. */
  async sendCommand(command: unknown): Promise<void> {
    await this.ctx.storage.put("command", z.enum(TASK_COMMANDS).parse(command));
  }

  /** Returns and clears the pending command: the consumer calls this between steps. */
  async takeCommand(): Promise<(typeof TASK_COMMANDS)[number] | null> {
    const command = (await this.ctx.storage.get<(typeof TASK_COMMANDS)[number]>("command")) ?? null;
    if (command) await this.ctx.storage.delete("command");
    return command;
  }
}
