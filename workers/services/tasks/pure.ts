/**
 * The pure part of the tasks domain (decision record 025): constants, types and validation with no bindings and no
 * storage behind them, so the browser bundle and the database schema may import them without pulling in the domain.
 */
export { retryDelaySeconds } from "./task-backoff";
export { TASK_COMMANDS } from "./task-status";
