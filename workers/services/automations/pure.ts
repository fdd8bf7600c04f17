/**
 * The pure part of the automations domain (decision record 025): constants, types and validation with no bindings
 * and no
 * storage behind them, so the browser bundle and the database schema may import them without pulling in the domain.
 */
export { cronProblem, nextCronTime, parseCron } from "./udwf/cron";
export {
  ASSET_ACTIONS,
  ActionSchema,
  ConditionSchema,
  MAX_ACTIONS,
  TriggerSchema,
  WorkflowCreateSchema,
  WorkflowDraftCreateSchema,
  WorkflowMetaSchema,
  WorkflowSetupSchema,
} from "./udwf/setup";
export type { Action } from "./udwf/setup";
