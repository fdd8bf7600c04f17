import { DurableObject } from "cloudflare:workers";
import { z } from "zod";

/** Commands a running task acts on at its next check-in (the others only change the D1 row). */
export const LIVE_COMMANDS = ["pause", "resume", "cancel", "restart"] as const;
export type LiveCommand = (typeof LIVE_COMMANDS)[number];

const LogLevelSchema = z.enum(["info", "warn", "error"]);
export type TaskLogLevel = z.infer<typeof LogLevelSchema>;
const ProgressSchema = z.object({ progress: z.number().min(0).max(100), info: z.string().max(1000).nullable().default(null) });
const LogLineSchema = z.object({ level: LogLevelSchema, message: z.string().max(10_000) });

/** Log lines kept per task; older lines are dropped beyond this (a note says so). */
export const MAX_LOG_LINES = 20_000;

export interface TaskLogLine {
  seq: number;
  at: number;
  level: TaskLogLevel;
  message: string;
}

export interface LiveTaskState {
  progress: number;
  info: string | null;
}

/**
 * Live state of one task (one object per task id, `idFromName(taskId)`).
 * Responsibilities: hold the task's log (SQLite, append-only, paged by `seq`) and its live progress, and keep the
 * latest command people sent so the queue consumer picks it up at its next check-in between steps. D1 keeps the
 * durable task row for listing and claiming; the consumer mirrors progress there, throttled.
 */
export class TaskStateDO extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, level TEXT NOT NULL, message TEXT NOT NULL
    )`);
  }

  async setProgress(input: unknown): Promise<void> {
    await this.ctx.storage.put<LiveTaskState>("progress", ProgressSchema.parse(input));
  }

  async getProgress(): Promise<LiveTaskState> {
    return (await this.ctx.storage.get<LiveTaskState>("progress")) ?? { progress: 0, info: null };
  }

  appendLog(level: unknown, message: unknown): number {
    return this.appendLogs([{ level, message }]);
  }

  /** Appends lines in order; answers the seq of the last one. */
  appendLogs(lines: unknown): number {
    const parsed = z.array(LogLineSchema).min(1).max(1000).parse(lines);
    let seq = 0;
    const now = Date.now();
    for (const line of parsed) {
      seq = this.ctx.storage.sql
        .exec<{ seq: number }>("INSERT INTO log (at, level, message) VALUES (?, ?, ?) RETURNING seq", now, line.level, line.message)
        .one().seq;
    }
    if (seq > MAX_LOG_LINES && seq % 1000 === 0) this.ctx.storage.sql.exec("DELETE FROM log WHERE seq <= ?", seq - MAX_LOG_LINES);
    return seq;
  }

  /** Log lines after `afterSeq`, oldest first, at most `limit`. */
  readLog(afterSeq = 0, limit = 500): TaskLogLine[] {
    return this.ctx.storage.sql
      .exec<{ seq: number; at: number; level: TaskLogLevel; message: string }>(
        "SELECT seq, at, level, message FROM log WHERE seq > ? ORDER BY seq LIMIT ?",
        afterSeq,
        Math.min(Math.max(limit, 1), 5000),
      )
      .toArray();
  }

  /** Number of lines and the last seq (for paging). */
  logStats(): { count: number; last: number } {
    const row = this.ctx.storage.sql
      .exec<{ count: number; last: number | null }>("SELECT count(*) AS count, max(seq) AS last FROM log")
      .one();
    return { count: row.count, last: row.last ?? 0 };
  }

  /** Keeps a command for the running operation; the latest command wins (a resume after a pause replaces it). */
  async sendCommand(command: unknown): Promise<void> {
    await this.ctx.storage.put("command", z.enum(LIVE_COMMANDS).parse(command));
  }

  /** Returns and clears the pending command. */
  async takeCommand(): Promise<LiveCommand | null> {
    const command = (await this.ctx.storage.get<LiveCommand>("command")) ?? null;
    if (command) await this.ctx.storage.delete("command");
    return command;
  }

  /**
   * The consumer's check-in between steps: records live progress and answers the pending command (cleared), in one
   * call so a check-in costs one round trip.
   */
  async checkIn(input: unknown): Promise<LiveCommand | null> {
    await this.setProgress(input);
    return this.takeCommand();
  }
}
