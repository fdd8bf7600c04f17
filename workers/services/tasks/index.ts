/**
 * Tasks: the task service, the runner and the processing operations (previews, copies, exports, purges, reindexing,
 * technical fields).
 *
 * The domain's public face (decision record 025): code outside workers/services/tasks/ imports only this file or
 * ./pure; the task runner, which links every decoder, is ./runner, imported only by the media Worker's queue code
 * (decision 032).
 */
export { OPERATION_CLASSES } from "./processing/operation";
export { taskStub } from "./task-live";
export { wakeStrandedTasks } from "./task-stranded";
export {
  DEFAULT_PRIORITY,
  MAX_PRIORITY,
  MIN_PRIORITY,
  availableProfiles,
  availableTasks,
  commandTask,
  countCurrentTasks,
  getTask,
  listCurrentTasks,
  listTaskNames,
  openExport,
  setTaskPriority,
  taskCommands,
  taskLog,
  taskResult,
  taskStatuses,
  taskTemplates,
} from "./task.service";
export { createTask, enqueueTask, reportExternalTask, taskEntityChecks, uploadDecode } from "./task-create.service";
export type { TaskEntityCheck, TaskEntityReader } from "./task-create.service";
export type { TaskView } from "./task.service";
export { startMetadataCsvImport } from "./processing/metadata-csv.operation";
