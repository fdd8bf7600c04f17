import { BATCH_MAX_FILES } from "./queue-rules";

/** What the server answers for each file of a batch (SPEC's upload-complete, the fields the engine uses). */
export interface BatchDone {
  asset_id: string;
  asset_variant_id: string;
}

/** Sends `files` as new assets into `groupId` in one request; answers their upload-complete in the same order. */
export type SendBatch = (groupId: string, files: File[], signal: AbortSignal) => Promise<BatchDone[]>;

/** The batch request of a file failed as a whole: nothing of it was committed, the file may go again on its own. */
export class BatchFailed extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
    this.name = "BatchFailed";
  }
}

/** The file was withdrawn (cancelled, or the engine stopped) before its batch answered. */
export class BatchWithdrawn extends Error {
  constructor() {
    super("withdrawn");
    this.name = "AbortError";
  }
}

interface Entry {
  groupId: string;
  file: File;
  resolve: (done: BatchDone) => void;
  reject: (error: unknown) => void;
  /** the request the file went out in, shared with the rest of its batch */
  request: { abort: AbortController; entries: Entry[] } | null;
  withdrawn: boolean;
}

/**
 * How long the batcher gathers a burst of starts: the controller starts files one message each (across the worker
 * boundary every message is its own task), so a burst is only seen whole after a moment.
 */
const GATHER_MS = 15;

/**
 * Puts the small files the engine is told to upload into shared requests. A burst is spread over the free request
 * slots (12 files with six slots free: six requests of two; 96 files: six of sixteen), so a few files still go in
 * parallel and many go in few requests.
 */
export class SmallFileBatcher {
  #pending: Entry[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #inFlight = 0;

  constructor(
    private readonly send: SendBatch,
    private readonly slots: number,
  ) {}

  /** Queues `file` for the next batch into `groupId`. `withdraw` gives it up (its request is aborted once all did). */
  add(groupId: string, file: File): { done: Promise<BatchDone>; withdraw: () => void } {
    let entry!: Entry;
    const done = new Promise<BatchDone>((resolve, reject) => {
      entry = { groupId, file, resolve, reject, request: null, withdrawn: false };
    });
    this.#pending.push(entry);
    this.#timer ??= setTimeout(() => this.#flush(), GATHER_MS);
    return { done, withdraw: () => this.#withdraw(entry) };
  }

  #withdraw(entry: Entry) {
    if (entry.withdrawn) return;
    entry.withdrawn = true;
    if (!entry.request) {
      this.#pending = this.#pending.filter((e) => e !== entry);
      entry.reject(new BatchWithdrawn());
    } else if (entry.request.entries.every((e) => e.withdrawn)) {
      entry.request.abort.abort();
    }
  }

  #flush() {
    this.#timer = null;
    const byGroup = new Map<string, Entry[]>();
    for (const entry of this.#pending) byGroup.set(entry.groupId, [...(byGroup.get(entry.groupId) ?? []), entry]);
    this.#pending = [];
    for (const entries of byGroup.values()) {
      const free = Math.max(1, this.slots - this.#inFlight);
      const size = Math.min(BATCH_MAX_FILES, Math.ceil(entries.length / free));
      for (let i = 0; i < entries.length; i += size) void this.#request(entries.slice(i, i + size));
    }
  }

  async #request(entries: Entry[]) {
    const request = { abort: new AbortController(), entries };
    for (const entry of entries) entry.request = request;
    this.#inFlight += 1;
    try {
      const done = await this.send(entries[0].groupId, entries.map((e) => e.file), request.abort.signal);
      entries.forEach((entry, i) => entry.resolve(done[i]));
    } catch (error) {
      for (const entry of entries) entry.reject(entry.withdrawn ? new BatchWithdrawn() : new BatchFailed(error));
    } finally {
      this.#inFlight -= 1;
    }
  }
}
