import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep, type WorkflowStepConfig } from "cloudflare:workers";
import { z } from "zod";
import { ru } from "../../shared/i18n/ru";
import { ID_PATTERN } from "../lib/ids";
import { createRequestContext, type RequestContext } from "../services/access";
import { reportExternalTask } from "../services/tasks";
import { ownerActor, performAction, RunStopped } from "../services/automations";
import { setCause } from "../services/events";
import { ActionSchema, ASSET_ACTIONS, MAX_ACTIONS, type Action } from "../services/automations/pure";

const Id = z.string().regex(ID_PATTERN);

/** One run of an automation, with the setup as it was when the run started (automation.service `startRun`). */
export const AutomationParamsSchema = z.object({
  workflowId: Id,
  /** the run's task in /jobs; also the instance id */
  taskId: Id,
  name: z.string().min(1).max(200),
  ownerId: Id,
  /** how the run was started, for the log */
  trigger: z.string().max(300),
  assetId: Id.nullable(),
  /** the group the triggering event happened in */
  groupId: Id.nullable(),
  /** runs started by runs: 0 for the first (see udwf/cause.ts) */
  depth: z.number().int().min(0),
  /** empty for a draft created without actions: execute runs it, and it is done at once */
  actions: z.array(ActionSchema).max(MAX_ACTIONS),
});
export type AutomationParams = z.infer<typeof AutomationParamsSchema>;

export type RunOutcome = { status: "done" | "error" | "canceled"; steps: string[]; error?: string };

/** Each action: retried three times with exponential backoff (10 s, 20 s, 40 s), five minutes at most per try. */
export const ACTION_STEP_CONFIG: WorkflowStepConfig = {
  retries: { limit: 3, delay: "10 seconds", backoff: "exponential" },
  timeout: "5 minutes",
};

type StepResult = { ok: true; detail: string } | { ok: false; stop: "canceled" | "error"; detail: string };

/**
 * An automation run: each action is one named, retried `step.do` (a 'wait' is a durable `step.sleep`), so a crash
 * resumes after the last finished action and never repeats a side effect that completed. Every step reports to the
 * run's task (log line, progress) and sees a cancel sent from /jobs before it acts. Changes the actions make carry
 * the run as their cause, so the events they raise start further runs one level deeper (loops end at the limit).
 */
export class AutomationWorkflow extends WorkflowEntrypoint<Env, AutomationParams> {
  private context(params: AutomationParams): RequestContext {
    const rc = createRequestContext(this.env, (p) => this.ctx.waitUntil(p), params.taskId);
    setCause(rc, { taskId: params.taskId, workflowId: params.workflowId, depth: params.depth });
    return rc;
  }

  private async runStep(params: AutomationParams, index: number, action: Action): Promise<StepResult> {
    const rc = this.context(params);
    const log = ru.automations.log;
    const n = index + 1;
    const total = params.actions.length;
    const title = ru.automations.actions[action.type];
    const status = await reportExternalTask(rc, params.taskId, { log: [{ level: "info", message: log.step(n, total, title) }] });
    if (status !== "running") return { ok: false, stop: "canceled", detail: log.canceled };
    let detail: string;
    if (ASSET_ACTIONS.has(action.type) && !params.assetId) {
      detail = log.skippedNoAsset(n);
      await reportExternalTask(rc, params.taskId, { log: [{ level: "warn", message: detail }], progress: (n / total) * 100, info: title });
      return { ok: true, detail };
    }
    try {
      const actor = await ownerActor(rc, params.ownerId);
      detail = await performAction(rc, actor, { ...params, workflowName: params.name, step: n }, action);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof RunStopped) return { ok: false, stop: "error", detail: message };
      await reportExternalTask(rc, params.taskId, { log: [{ level: "warn", message: log.stepFailed(n, message) }] });
      throw error;
    }
    await reportExternalTask(rc, params.taskId, {
      log: [{ level: "info", message: log.stepDone(n, detail) }],
      progress: (n / total) * 100,
      info: title,
    });
    return { ok: true, detail };
  }

  private async end(params: AutomationParams, outcome: RunOutcome): Promise<RunOutcome> {
    const rc = this.context(params);
    const log = ru.automations.log;
    if (outcome.status === "done") {
      await reportExternalTask(rc, params.taskId, { log: [{ level: "info", message: log.done }], end: "done" });
    } else if (outcome.status === "canceled") {
      await reportExternalTask(rc, params.taskId, { log: [{ level: "warn", message: log.canceled }] });
    } else if (outcome.status === "error") {
      await reportExternalTask(rc, params.taskId, {
        log: [{ level: "error", message: log.failed(outcome.error ?? "") }],
        end: "error",
        error: outcome.error,
      });
    }
    return outcome;
  }

  async run(event: WorkflowEvent<AutomationParams>, step: WorkflowStep): Promise<RunOutcome> {
    const params = AutomationParamsSchema.parse(event.payload);
    const steps: string[] = [];
    try {
      for (const [index, action] of params.actions.entries()) {
        const name = `${index + 1}: ${action.type}`;
        const result = await step.do(name, ACTION_STEP_CONFIG, () => this.runStep(params, index, action));
        if (!result.ok) {
          const outcome: RunOutcome = { status: result.stop, steps, ...(result.stop === "error" ? { error: result.detail } : {}) };
          return await step.do("end", () => this.end(params, outcome));
        }
        steps.push(result.detail);
        if (action.type === "wait") await step.sleep(`${index + 1}: sleep`, `${action.seconds} seconds`);
      }
      return await step.do("end", () => this.end(params, { status: "done", steps }));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await step.do("end", () => this.end(params, { status: "error", steps, error: message }));
      throw error;
    }
  }
}
