import type { UploadItem, UploadStatus } from "./types";

/**
 * The background upload worker protocol (SPEC §7). The engine receives `EngineCommand`s and answers with
 * `EngineEvent`s; nothing else crosses the line, so the engine can run in the page (as now) or in a Web Worker
 * without its callers noticing. Every message is plain structured-cloneable data (a `File` clones too).
 */

/** What the engine needs to know about a queued item to upload (or resume) it. */
export type UploadTarget = Pick<UploadItem, "id" | "fileName" | "size" | "groupId" | "assetId" | "versionOf" | "variantId" | "uploadId" | "status">;

/** Messages the engine receives. */
export type EngineCommand =
  /** once, before anything else: the bearer and the chosen upload/download server */
  | { type: "init"; bearer: string | null; serverId: string | null; maxParallel: number }
  /** the access token changed (refresh, another tab) */
  | { type: "token"; bearer: string | null }
  /** the chosen upload/download server changed (`prefer-uldl-server`) */
  | { type: "idServer"; serverId: string | null }
  /** start uploading a waiting item */
  | { type: "uploadFile"; item: UploadTarget; file: File }
  /** cancel an item the engine is uploading (answered by `cancelUpload`) */
  | { type: "addCancelId"; id: string }
  /**
   * continue an interrupted item from the parts already stored: after the page was hidden, a network failure, or a
   * full reload (then `file` is the one the user picked again)
   */
  | { type: "resumeUploadFile"; item: UploadTarget; file: File | null }
  /** the page is alive: sent every 3 s (SPEC §9); the engine reports its uploads alive and checks for stalls */
  | { type: "notClose" };

/** Messages the engine sends back. */
export type EngineEvent =
  /** an item was cancelled in the engine: no more bytes go out; the asset still exists */
  | { type: "cancelUpload"; id: string; assetId: string | null }
  /** the bytes are stored, checked and committed: the asset is in its group */
  | { type: "uploadCompleted"; id: string; assetId: string; groupId: string | null; variantId: string }
  | { type: "uploadError"; id: string; message: string }
  /** a status change, with the ids learnt on the way (the queue keeps them so the upload can resume elsewhere) */
  | {
      type: "changeStatus";
      id: string;
      status: UploadStatus;
      assetId?: string;
      variantId?: string;
      uploadId?: string;
    }
  /** bytes sent so far; `speed` in bytes per second */
  | { type: "updateProgress"; id: string; loaded: number; total: number; progress: number; speed: number | null }
  /** an interrupted upload continues: `stored` bytes were already on the server and are not sent again */
  | { type: "resumeUpload"; id: string; stored: number };

export type EngineCommandType = EngineCommand["type"];
export type EngineEventType = EngineEvent["type"];
