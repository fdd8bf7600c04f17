import { useEffect, useRef, useSyncExternalStore } from "react";
import { EMPTY_UPLOADS, uploadController, type UploadsSnapshot } from "./controller";
import type { EngineEvent } from "./messages";

/**
 * Uploads in the browser: the engine (SPEC §7 message protocol), the controller that applies the SPEC §4 rules to
 * the server's queue, and the React hooks the status panel and MamGroup use.
 *
 * @example
 *   const { views, summary } = useUploads();
 *   useUploadEvents((e) => e.type === "uploadCompleted" && e.groupId === groupId && addToList(e.assetId));
 *   await uploadController().enqueue(groupId, pickedFromFiles(files));
 */
export { uploadController, type UploadView, type UploadsSnapshot } from "./controller";
export type { EngineCommand, EngineEvent } from "./messages";
export { pickedFromDrop, pickedFromFiles, rememberFolders, type PickedFile } from "./pick";
export type { UploadItem, UploadStatus } from "./types";

const noSubscribe = () => () => undefined;
const emptySnapshot = () => EMPTY_UPLOADS;

/** The queue as the panel shows it; empty while rendering on the server. */
export function useUploads(): UploadsSnapshot {
  const controller = typeof window === "undefined" ? null : uploadController();
  return useSyncExternalStore(controller?.subscribe ?? noSubscribe, controller?.getSnapshot ?? emptySnapshot, emptySnapshot);
}

/**
 * Runs uploads while mounted (the signed-in shell): queue, keep-alive, resume, leave-page prompt. Answers the stop
 * for a sign-out (`stop({ signOut: true })` also stops the shared upload worker's uploads).
 */
export function useUploadsRunning(): (options?: { signOut?: boolean }) => void {
  const stop = useRef<(options?: { signOut?: boolean }) => void>(() => undefined);
  useEffect(() => {
    stop.current = uploadController().start();
    return () => stop.current();
  }, []);
  return (options) => stop.current(options);
}

/** Calls `handler` with every message the engine sends (the latest handler, without resubscribing). */
export function useUploadEvents(handler: (event: EngineEvent) => void): void {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => uploadController().onEngineEvent((event) => latest.current(event)), []);
}
