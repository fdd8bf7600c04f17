import type { EngineCommand, EngineCommandType, EngineEvent, EngineEventType } from "./messages";

/**
 * The SPEC §7 message names as they cross `postMessage` between the pages and the upload Service Worker. Nothing
 * else crosses: a message whose `type` is not one of these (another script's, a stale worker's) is dropped, so
 * neither side acts on something it does not understand.
 */

/** What the worker receives (SPEC §7 "Received"). */
export const COMMAND_TYPES: readonly EngineCommandType[] = [
  "init",
  "token",
  "idServer",
  "uploadFile",
  "addCancelId",
  "resumeUploadFile",
  "notClose",
];
/** What the worker sends back to every tab (SPEC §7 "Sent back"). */
export const EVENT_TYPES: readonly EngineEventType[] = [
  "cancelUpload",
  "uploadCompleted",
  "uploadError",
  "changeStatus",
  "updateProgress",
  "resumeUpload",
];

/** The SPEC §8 error when the page cannot get the worker (no Service Worker support, insecure origin, blocked). */
export const NO_REGISTRATION = "No service worker registration";

/** Where the worker script is served from (the site root, so its default scope is the whole app). */
export const UPLOAD_WORKER_URL = "/upload-sw.js";

const hasType = (value: unknown): value is { type: unknown } => typeof value === "object" && value !== null && "type" in value;
const isId = (value: unknown) => typeof value === "string" && value.length > 0;
const isItem = (value: unknown) => typeof value === "object" && value !== null && isId((value as { id?: unknown }).id);
const isFileOrNull = (value: unknown) => value === null || (typeof File !== "undefined" && value instanceof File);

/** Whether `data` is a well-formed command of the protocol (checked on the worker's side of `postMessage`). */
export function isEngineCommand(data: unknown): data is EngineCommand {
  if (!hasType(data)) return false;
  const m = data as Record<string, unknown>;
  switch (m.type) {
    case "init":
      return "bearer" in m && "serverId" in m;
    case "token":
      return "bearer" in m && (m.bearer === null || typeof m.bearer === "string");
    case "idServer":
      return "serverId" in m && (m.serverId === null || typeof m.serverId === "string");
    case "uploadFile":
      return isItem(m.item) && typeof File !== "undefined" && m.file instanceof File;
    case "resumeUploadFile":
      return isItem(m.item) && isFileOrNull(m.file);
    case "addCancelId":
      return isId(m.id);
    case "notClose":
      return true;
    default:
      return false;
  }
}

/** Whether `data` is an event of the protocol (checked on the page's side). */
export function isEngineEvent(data: unknown): data is EngineEvent {
  return hasType(data) && (EVENT_TYPES as readonly unknown[]).includes(data.type) && isId((data as { id?: unknown }).id);
}

/** The event that ends an item's run in the engine (its bytes, its lock), or null. */
export function endedItem(event: EngineEvent): string | null {
  return event.type === "uploadCompleted" || event.type === "uploadError" || event.type === "cancelUpload" ? event.id : null;
}
