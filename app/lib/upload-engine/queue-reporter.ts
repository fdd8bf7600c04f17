import { ApiError } from "../api-error";
import * as queueApi from "./queue-api";
import type { UploadItem, UploadPatch } from "./types";

/** What the reporter tells its controller. */
export interface ReporterHooks {
  /** the queue took the report; `item` is its copy of the item when it answered one */
  onAnswer(item: UploadItem | null): void;
  /** the queue no longer has the item */
  onGone(id: string): void;
  /** whether this tab still uploads the item (progress of a stopped upload is not sent) */
  isRunning(id: string): boolean;
  /** how the report travels (the upload Service Worker has its own API client); the page's queue API by default */
  patch?(id: string, patch: UploadPatch): Promise<UploadItem | null>;
}

/**
 * Reports to the server's queue, one request at a time per item, so a later report never overtakes an earlier one;
 * progress reports are merged so only the newest waiting one is sent.
 */
export class QueueReporter {
  readonly #chains = new Map<string, Promise<unknown>>();
  readonly #pendingProgress = new Map<string, UploadPatch>();

  constructor(private readonly hooks: ReporterHooks) {}

  report(id: string, patch: UploadPatch, progressOnly = false): Promise<void> {
    // A status or id report supersedes a progress report still waiting (progress is only taken while uploading).
    if (!progressOnly) this.#pendingProgress.delete(id);
    const previous = this.#chains.get(id) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        try {
          const item = await (this.hooks.patch ? this.hooks.patch(id, patch) : queueApi.patchUpload(id, patch));
          this.hooks.onAnswer(item && typeof item === "object" && "id" in item ? item : null);
        } catch (error) {
          if (error instanceof ApiError && error.status === 404) return this.hooks.onGone(id);
          // 409: the queue has moved on (cancelled, another tab); its own state arrives over the socket.
          console.warn("upload queue report refused", id, patch, error);
        }
      });
    this.#chains.set(id, next);
    void next.finally(() => this.#chains.get(id) === next && this.#chains.delete(id));
    return next;
  }

  reportProgress(id: string, patch: UploadPatch) {
    const waiting = this.#pendingProgress.has(id);
    this.#pendingProgress.set(id, patch);
    if (waiting) return;
    const previous = this.#chains.get(id) ?? Promise.resolve();
    void previous.finally(() => {
      const latest = this.#pendingProgress.get(id);
      this.#pendingProgress.delete(id);
      if (latest && this.hooks.isRunning(id)) void this.report(id, latest, true);
    });
  }
}
