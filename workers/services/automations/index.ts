/**
 * Automations: user-defined workflows (triggers, conditions, actions, schedules, webhooks) and the outbox dispatcher
 * that hands events to them.
 *
 * The domain's public face (decision record 025): code outside workers/services/automations/ imports only this file
 * or ./pure.
 */
export {
  createWorkflow,
  deleteWorkflow,
  getWorkflow,
  listWorkflows,
  patchWorkflow,
  patchWorkflowSetup,
  setWorkflowEnabled,
} from "./automation.service";
export { executeWorkflow, runDueSchedules } from "./automation-runs.service";
export type { StartedRun } from "./automation-runs.service";
export type { WorkflowInfo } from "./automation.service";
export { deliverEvents } from "./event-outbox.service";
export { RunStopped, ownerActor, performAction } from "./udwf/actions";
export { actionCatalogue, triggerForm } from "./udwf/catalogue";
export type { ActionEntry, FormField, TriggerForm } from "./udwf/catalogue";
