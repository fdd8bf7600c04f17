import type { RequestContext } from "../access";

/**
 * What caused the changes a request context makes: set by the automation runner on the context it runs actions
 * with, read by the event hook. Events made by a run start further runs one level deeper; at `MAX_CHAIN_DEPTH` the
 * chain is stopped and logged, so a workflow whose actions retrigger it (directly or through others) cannot run
 * forever.
 */
export interface RunCause {
  /** the task of the run that made the change */
  taskId: string;
  workflowId: string;
  /** 0 for a run started by a person, a schedule or an outside event; +1 for each run started by a run */
  depth: number;
}

/** Runs started by runs, at most this deep (the first run is depth 0). */
export const MAX_CHAIN_DEPTH = 5;

const causes = new WeakMap<RequestContext, RunCause>();

/** Marks every change made through `rc` as made by the run. */
export function setCause(rc: RequestContext, cause: RunCause): void {
  causes.set(rc, cause);
}

/** The run that is making changes through `rc`, if any. */
export function causeOf(rc: RequestContext): RunCause | undefined {
  return causes.get(rc);
}
