import { sql } from "drizzle-orm";
import { z } from "zod";
import { ru } from "../../../../shared/i18n/ru";
import { readMove, type LibraryMove, type MoveStep } from "../../../db/repositories/library-move.repository";
import { AppError } from "../../../lib/errors";
import { ROOT_GROUP_ID } from "../../../lib/ids";
import { requireAdmin } from "../../access";
import { abandonLibraryMove, continueLibraryMove, startLibraryMove } from "../../library";
import type { TaskOperation } from "./operation";
import { titleOf } from "./title";

/** How long one step copies before the runner checks in (commands, progress, its own budget). */
const STEP_MS = 5_000;
/** Runs a paused library may take to switch within one step; the tail is under `PAUSE_BELOW` entries, so one is usual. */
const PAUSED_RUNS = 20;

/** Progress at the start of each step of a move, in percent: copying the files is most of it. */
const STEP_PROGRESS: Record<MoveStep, number> = { folders: 0, assets: 10, "catch-up": 70, check: 80, final: 95, done: 100 };

const LibraryMoveOptionsSchema = z.object({
  /** give the library's move up instead (decision 045): the library stays in the catalog, the shard's copy goes */
  abandon: z.boolean().default(false),
});
type LibraryMoveOptions = z.infer<typeof LibraryMoveOptionsSchema>;

interface LibraryMoveState {
  /** the step the move was at after the last task step, for the log */
  step: MoveStep;
  /** the last difference the check recorded, for the log */
  error: string | null;
  /** the task gives the move up rather than continuing it */
  abandon?: boolean;
}

/**
 * `library-move` (decision 044, issue 40 item 4): moves one library — a top-level folder and its subtree — from the
 * catalog into a shard of its own, for administrators. Each step continues the move for a few seconds
 * (`continueLibraryMove`: its progress is the directory row, so a task retried, paused, or restarted resumes it and
 * a run ended anywhere loses nothing); once the library's writes are paused, the same step goes on to the switch, so
 * a pause of the task never leaves a library refusing writes. With `abandon`, the task gives a move that has not
 * switched up instead (decision 045). The dry run is `GET /api/library-shards/plan`.
 */
export const libraryMoveOperation: TaskOperation<LibraryMoveOptions, LibraryMoveState> = {
  name: "library-move",
  entityTypes: ["group"],
  options: LibraryMoveOptionsSchema,
  async authorize(rc, actor, options, entities) {
    requireAdmin(actor);
    if (entities.length !== 1) throw new AppError("BAD_REQUEST", ru.tasks.oneLibraryPerTask);
    const { id } = entities[0];
    const folder = await rc.env.DB.prepare("SELECT name, parent_id AS parent FROM groups WHERE id = ? AND deleted_at IS NULL")
      .bind(id)
      .first<{ name: string; parent: string | null }>();
    if (!folder) throw new AppError("NOT_FOUND", ru.tasks.groupNotFound);
    if (id === ROOT_GROUP_ID || folder.parent !== ROOT_GROUP_ID) throw new AppError("BAD_REQUEST", ru.tasks.notALibrary(folder.name));
    const move = await readMove(rc.env.DB, id);
    if (move?.state === "shard") throw new AppError("CONFLICT", ru.tasks.libraryMoved(folder.name));
    if (options.abandon && !move) throw new AppError("CONFLICT", ru.tasks.noMoveToAbandon);
    const queued = await rc.db.get(sql`
      select 1 as queued from tasks where operation_class = 'library-move' and src_entity = ${id}
        and status in ('none', 'inqueue', 'running', 'paused') limit 1`);
    if (queued) throw new AppError("CONFLICT", ru.tasks.libraryMoveQueued(folder.name));
  },
  title: (entities, names) => `${ru.tasks.operations["library-move"]}: ${titleOf(entities, names)}`,
  async start(ctx) {
    const id = ctx.task.affected[0].id;
    if (ctx.options.abandon) return { step: "folders", error: null, abandon: true };
    const move = (await readMove(ctx.rc.env.DB, id)) ?? (await startLibraryMove(ctx.rc.env, id));
    await ctx.log("info", ru.tasks.log.moveStep(move.name, ru.tasks.moveSteps[move.step]));
    return { step: move.step, error: move.error };
  },
  async step(ctx, state) {
    const { env } = ctx.rc;
    const id = ctx.task.affected[0].id;
    if (state.abandon) {
      const move = await abandonLibraryMove(env, id);
      if (move) await ctx.log("info", ru.tasks.log.moveAbandoned(move.name));
      return { state, done: true, progress: 100, result: { library: id, abandoned: true } };
    }
    const run = () => continueLibraryMove(env, id, { deadline: Date.now() + STEP_MS });
    let move: LibraryMove = await run();
    // The library's writes are paused: the same step goes on until it switches (the journal's tail, seconds).
    for (let i = 0; move.state === "moving" && i < PAUSED_RUNS; i++) move = await run();
    if (move.error && move.error !== state.error) await ctx.log("warn", ru.tasks.log.moveRestarted(move.error));
    if (move.step !== state.step) {
      await ctx.log("info", ru.tasks.log.moveStep(move.name, ru.tasks.moveSteps[move.step]));
      if (move.step === "done") await ctx.log("info", ru.tasks.log.moveSwitched(move.name, move.shard));
    }
    const done = move.step === "done";
    return {
      state: { step: move.step, error: move.error },
      done,
      progress: STEP_PROGRESS[move.step],
      info: ru.tasks.moveSteps[move.step],
      result: done ? { library: id, shard: move.shard, switched_at: new Date(move.switchedAt ?? Date.now()).toISOString() } : undefined,
    };
  },
};
