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
  /** sends a batch (the upload worker has no page API client of its own); POST /api/uploads/report by default */
  send?(reports: { id: string; patch: UploadPatch }[]): Promise<queueApi.ReportResult[]>;
}

/** Reports made within this long of each other travel in one request. */
const GATHER_MS = 50;

interface Waiting {
  id: string;
  patch: UploadPatch;
  done: () => void;
}

/**
 * Reports to the server's queue in batches (POST /api/uploads/report): one request in flight at a time, holding
 * every report made meanwhile in the order they were made, so a later report never overtakes an earlier one. A batch
 * of hundreds of small files changes several times per file; a request per change filled the browser's six
 * connections to the server that the uploads themselves need. Progress reports are merged: only the newest is sent.
 */
export class QueueReporter {
  #waiting: Waiting[] = [];
  readonly #progress = new Map<string, { patch: UploadPatch; done: (() => void)[] }>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #sending = false;

  constructor(private readonly hooks: ReporterHooks) {}

  /** Sends a status (or ids) report; resolves once the queue has answered it. */
  report(id: string, patch: UploadPatch): Promise<void> {
    // A status report supersedes a progress report still waiting (progress is only taken while uploading).
    const superseded = this.#progress.get(id);
    this.#progress.delete(id);
    return new Promise((resolve) => {
      this.#waiting.push({ id, patch, done: resolve });
      for (const done of superseded?.done ?? []) done();
      this.#schedule();
    });
  }

  /** Sends the newest progress of an item with the next batch. */
  reportProgress(id: string, patch: UploadPatch): Promise<void> {
    return new Promise((resolve) => {
      const entry = this.#progress.get(id) ?? { patch, done: [] };
      entry.patch = patch;
      entry.done.push(resolve);
      this.#progress.set(id, entry);
      this.#schedule();
    });
  }

  #schedule() {
    if (this.#sending || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#send();
    }, GATHER_MS);
  }

  async #send() {
    const batch = this.#waiting.splice(0, queueApi.MAX_REPORTS);
    const room = queueApi.MAX_REPORTS - batch.length;
    for (const [id, entry] of [...this.#progress].slice(0, room)) {
      this.#progress.delete(id);
      const done = () => entry.done.forEach((d) => d());
      if (this.hooks.isRunning(id)) batch.push({ id, patch: entry.patch, done });
      else done();
    }
    if (batch.length === 0) return;
    this.#sending = true;
    try {
      const reports = batch.map(({ id, patch }) => ({ id, patch }));
      const results = await (this.hooks.send ?? queueApi.reportUploads)(reports);
      for (const result of results) {
        if (result.status === 200) this.hooks.onAnswer(result.item);
        else if (result.status === 404) this.hooks.onGone(result.id);
        // 409: the queue has moved on (cancelled, another tab); its own state arrives over the socket.
        else console.warn("upload queue report refused", result.id, result.message);
      }
    } catch (error) {
      console.warn("upload queue reports not sent", error);
    } finally {
      this.#sending = false;
      for (const waiting of batch) waiting.done();
      if (this.#waiting.length > 0 || this.#progress.size > 0) this.#schedule();
    }
  }
}
