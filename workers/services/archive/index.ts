/**
 * Archive: ZIPs of selections — files and folders recursively — for the app, links and export tasks, through one
 * streaming Zip64 writer (workers/lib/zip-stream.ts).
 *
 * The domain's public face (decision record 025): code outside workers/services/archive/ imports only this file.
 */
export {
  mergeZipPlans,
  planZip,
  withVariants,
  ZIP_MAX_IDS,
  ZIP_REQUEST_MAX_BYTES,
  ZIP_REQUEST_MAX_FILES,
  ZIP_TASK_MAX_FILES,
} from "./zip-plan.service";
export type { PlannedFile, ZipPlan, ZipSelection } from "./zip-plan.service";
export { openZipEntry, planStream } from "./zip-stream.service";
export { liveFoldersWhereTheyLive, planExport, variantsWhereTheyLive } from "./zip-export.service";
export type { ZipDownloader, ZipProgress } from "./zip-stream.service";
export { openZipLink, requestZip, ZIP_LINK_SECONDS } from "./zip-request.service";
export type { StartZipTask, ZipAnswer, ZipPlanner } from "./zip-request.service";
