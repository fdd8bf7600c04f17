/**
 * Logs: old audit rows, finished tasks and delivered events moved out of the hot database into `LOGS` by the minute
 * cron, and the reads that merge both (decision 038).
 *
 * The domain's public face (decision record 025): code outside workers/services/logs/ imports only this file.
 */
export { runLogsMove } from "./logs-move.service";
export { logsDb, mergedPage, mergeWindow, shadowedKeys } from "./logs-read";
export type { MergeSource } from "./logs-read";
