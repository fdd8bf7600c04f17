import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";
import { z } from "zod";
import { TaskMessageSchema } from "../queue/messages";
import { runOperation } from "../queue/operations";

export const AutomationParamsSchema = z.object({
  name: z.string().min(1).max(200),
  steps: z.array(TaskMessageSchema).min(1).max(100),
});
export type AutomationParams = z.infer<typeof AutomationParamsSchema>;

/**
 * An automation run: each action is one named, retried `step.do`, so a crash resumes after the last finished
 * action and never repeats a side effect that completed.
 */
export class AutomationWorkflow extends WorkflowEntrypoint<Env, AutomationParams> {
  async run(event: WorkflowEvent<AutomationParams>, step: WorkflowStep) {
    const params = AutomationParamsSchema.parse(event.payload);
    const results: string[] = [];
    for (const [index, action] of params.steps.entries()) {
      const summary = await step.do(
        `${index + 1}: ${action.op}`,
        { retries: { limit: 3, delay: "10 seconds", backoff: "exponential" }, timeout: "10 minutes" },
        () => runOperation(this.env, action),
      );
      results.push(summary);
    }
    return { name: params.name, results };
  }
}
