/**
 * A reference model of the upload queue (SPEC §4 and the /api/uploads contract), written straight from the rules
 * and independent of `durable-objects/upload-queue.rules.ts`, plus random command sequences and a runner that
 * checks a system (the rules applied in memory, or the real UploadQueueDO in workerd) answers exactly like the model.
 * Shared by tests/unit/upload-queue-rules.test.ts and tests/integration/upload-queue-model.test.ts.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { ru } from "../../app/i18n/ru";

export const STALE_MS = 2 * 60_000;
export const RETENTION_MS = 7 * 24 * 60 * 60_000;

type Status = "waiting" | "busy" | "uploading" | "uploaded" | "saving" | "completed" | "error";
const STATUSES: Status[] = ["waiting", "busy", "uploading", "uploaded", "saving", "completed", "error"];

/** The allowed changes, as the brief lists them. */
const ALLOWED: Record<Status, Status[]> = {
  waiting: ["busy", "uploading", "error"],
  busy: ["uploading", "error"],
  uploading: ["uploaded", "completed", "error", "waiting"],
  uploaded: ["saving", "error"],
  saving: ["completed", "error"],
  completed: [],
  error: ["waiting"],
};
const WATCHED: Status[] = ["busy", "uploading", "uploaded"];

/** What the tests compare of an item. */
export interface SeenItem {
  id: string;
  status: Status;
  progress: number;
  speed: number | null;
  error: string | null;
  cancelled: boolean;
  variantId: string | null;
  uploadId: string | null;
  lastSeen: number;
}

export interface Patch {
  status?: Status;
  progress?: number;
  speed?: number | null;
  error?: string;
  variantId?: string;
  uploadId?: string;
}

export type Answer<T = unknown> = { ok: true; value: T } | { ok: false; status: 404 | 409 };

/** The system under test: every call takes the time. */
export interface QueueSystem {
  add(ids: string[], now: number): Promise<Answer<string[]>>;
  update(id: string, patch: Patch, now: number): Promise<Answer>;
  cancel(id: string, now: number): Promise<Answer<{ removed: boolean }>>;
  keepalive(ids: string[], now: number): Promise<void>;
  remove(id: string): Promise<boolean>;
  clear(): Promise<number>;
  /** the alarm's pass: answers the aborts handed on, as "variantId/uploadId" */
  sweep(now: number): Promise<string[]>;
  list(): Promise<SeenItem[]>;
  finished(): Promise<boolean>;
  next(): Promise<string | null>;
}

interface ModelItem extends SeenItem {
  /** last add, accepted report, cancel, keep-alive or failure: what retention counts from */
  activity: number;
}

/** The reference model. */
export class QueueModel {
  items: ModelItem[] = [];

  private find(id: string) {
    return this.items.find((i) => i.id === id);
  }

  add(ids: string[], now: number): Answer<string[]> {
    for (const id of ids) {
      if (this.find(id)) continue;
      this.items.push({ id, status: "waiting", progress: 0, speed: null, error: null, cancelled: false, variantId: null, uploadId: null, lastSeen: now, activity: now });
    }
    return { ok: true, value: ids };
  }

  update(id: string, patch: Patch, now: number): Answer {
    const item = this.find(id);
    if (!item) return { ok: false, status: 404 };
    const to = patch.status ?? item.status;
    const keys = Object.keys(patch).filter((k) => patch[k as keyof Patch] !== undefined);
    if (item.status === "completed") return keys.every((k) => k === "status" && to === "completed") ? { ok: true, value: null } : { ok: false, status: 409 };
    if (item.cancelled && !(to === "error" && keys.every((k) => k === "status" || k === "error"))) return { ok: false, status: 409 };
    if (to !== item.status && !ALLOWED[item.status].includes(to)) return { ok: false, status: 409 };
    if ((patch.progress !== undefined || patch.speed != null) && to !== "uploading") return { ok: false, status: 409 };
    if (patch.error !== undefined && to !== "error") return { ok: false, status: 409 };
    const from = item.status;
    item.status = to;
    if (patch.progress !== undefined) item.progress = patch.progress;
    if (["uploaded", "saving", "completed"].includes(to)) item.progress = 100;
    item.speed = to !== "uploading" ? null : patch.speed !== undefined ? patch.speed : from === "uploading" ? item.speed : null;
    item.error = to === "error" ? (patch.error ?? (from === "error" ? item.error : ru.queue.failed)) : null;
    if (patch.variantId !== undefined) item.variantId = patch.variantId;
    if (patch.uploadId !== undefined) item.uploadId = patch.uploadId;
    item.lastSeen = item.activity = now;
    return { ok: true, value: null };
  }

  cancel(id: string, now: number): Answer<{ removed: boolean }> {
    const item = this.find(id);
    if (!item) return { ok: false, status: 404 };
    if (item.status === "waiting") {
      this.items = this.items.filter((i) => i !== item);
      return { ok: true, value: { removed: true } };
    }
    if (item.status === "completed") return { ok: false, status: 409 };
    if (!item.cancelled) {
      item.cancelled = true;
      item.speed = null;
      item.lastSeen = item.activity = now;
    }
    return { ok: true, value: { removed: false } };
  }

  keepalive(ids: string[], now: number): void {
    for (const id of ids) {
      const item = this.find(id);
      if (item) item.lastSeen = item.activity = Math.max(item.lastSeen, now);
    }
  }

  remove(id: string): boolean {
    const before = this.items.length;
    this.items = this.items.filter((i) => i.id !== id);
    return this.items.length < before;
  }

  clear(): number {
    const before = this.items.length;
    this.items = this.items.filter((i) => i.status !== "completed");
    return before - this.items.length;
  }

  sweep(now: number): string[] {
    const aborts: string[] = [];
    const kept: ModelItem[] = [];
    for (const item of this.items) {
      if (WATCHED.includes(item.status) && now - item.lastSeen >= STALE_MS) {
        item.status = "error";
        item.error = ru.queue.stale;
        item.speed = null;
        item.activity = now;
        if (item.variantId && item.uploadId) aborts.push(`${item.variantId}/${item.uploadId}`);
      } else if (!WATCHED.includes(item.status) && now - item.activity >= RETENTION_MS) {
        continue;
      }
      kept.push(item);
    }
    this.items = kept;
    return aborts.sort();
  }

  list(): SeenItem[] {
    return this.items.map(({ activity: _activity, ...seen }) => ({ ...seen }));
  }

  finished(): boolean {
    return this.items.every((i) => i.status === "completed" || i.status === "error");
  }

  next(): string | null {
    if (this.finished()) return null;
    return this.items.find((i) => i.status === "waiting")?.id ?? null;
  }
}

// ---- commands ----

const ID_POOL = ["a", "b", "c", "d", "e"];
const VARIANT = "0".repeat(31);

export type Command =
  | { kind: "add"; ids: string[] }
  | { kind: "start"; status: "busy" | "uploading" }
  | { kind: "patch"; id: string; patch: Patch }
  | { kind: "progress"; id: string; progress: number; speed: number | null }
  | { kind: "cancel"; id: string }
  | { kind: "fail"; id: string; error?: string }
  | { kind: "complete"; id: string }
  | { kind: "advance"; id: string }
  | { kind: "drive"; id: string }
  | { kind: "resume"; id: string }
  | { kind: "ids"; id: string }
  | { kind: "uploadId"; id: string }
  | { kind: "keepalive"; ids: string[] }
  | { kind: "remove"; id: string }
  | { kind: "clear" }
  | { kind: "tick"; ms: number };

const id = fc.constantFrom(...ID_POOL);

/** Random commands, weighted towards the ones that move uploads along. */
export const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("add" as const), ids: fc.uniqueArray(id, { minLength: 1, maxLength: 3 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("start" as const), status: fc.constantFrom("busy" as const, "uploading" as const) }), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant("patch" as const),
      id,
      patch: fc.record(
        {
          status: fc.constantFrom(...STATUSES),
          progress: fc.integer({ min: 0, max: 100 }),
          speed: fc.option(fc.integer({ min: 0, max: 1e9 })),
          error: fc.constant("Сбой сети"),
          variantId: fc.constant(`${VARIANT}f`),
          uploadId: fc.constant("upload-patched"),
        },
        { requiredKeys: [] },
      ),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("progress" as const), id, progress: fc.integer({ min: 0, max: 100 }), speed: fc.option(fc.integer({ min: 0, max: 1e9 })) }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant("cancel" as const), id }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("fail" as const), id, error: fc.option(fc.constant("Нет места"), { nil: undefined }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("complete" as const), id }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("advance" as const), id }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("drive" as const), id }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("resume" as const), id }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("ids" as const), id }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("uploadId" as const), id }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("keepalive" as const), ids: fc.uniqueArray(id, { maxLength: 3 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("remove" as const), id }), weight: 1 },
  { arbitrary: fc.constant({ kind: "clear" as const }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant("tick" as const),
      ms: fc.oneof(
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 30_000, max: 3 * 60_000 }),
        fc.constantFrom(STALE_MS - 1, STALE_MS, STALE_MS + 1, RETENTION_MS - 1, RETENTION_MS),
      ),
    }),
    weight: 5,
  },
);

/** Sequences of up to `maxLength` commands (`size: "max"`: fast-check's default would keep them short). */
export const commandsArb = (maxLength: number) => fc.array(commandArb, { minLength: 1, maxLength, size: "max" });

const NEXT_STEP: Partial<Record<Status, Status>> = { waiting: "busy", busy: "uploading", uploading: "uploaded", uploaded: "saving", saving: "completed" };

/**
 * Runs the commands against the model and the system, comparing every answer and, after every command, the items,
 * `finished` and `next`. Ticks run the alarm's sweep.
 */
export async function runAgainstModel(system: QueueSystem, commands: Command[], start: number): Promise<void> {
  const model = new QueueModel();
  let now = start;
  for (const [step, cmd] of commands.entries()) {
    const where = `step ${step}: ${JSON.stringify(cmd)}`;
    const patch = async (id: string, p: Patch) => {
      const got = await system.update(id, p, now);
      const want = model.update(id, p, now);
      expect(got.ok ? "ok" : got.status, where).toBe(want.ok ? "ok" : want.status);
    };
    switch (cmd.kind) {
      case "add": {
        const got = await system.add(cmd.ids, now);
        const want = model.add(cmd.ids, now);
        expect(got, where).toEqual(want);
        break;
      }
      case "start": {
        const next = model.next();
        expect(await system.next(), where).toBe(next);
        if (next) await patch(next, { status: cmd.status });
        break;
      }
      case "patch":
        await patch(cmd.id, cmd.patch);
        break;
      case "progress":
        await patch(cmd.id, { progress: cmd.progress, speed: cmd.speed });
        break;
      case "fail":
        await patch(cmd.id, { status: "error", ...(cmd.error ? { error: cmd.error } : {}) });
        break;
      case "complete":
        await patch(cmd.id, { status: "completed" });
        break;
      case "advance": {
        const item = model.items.find((i) => i.id === cmd.id);
        await patch(cmd.id, { status: (item && NEXT_STEP[item.status]) ?? "uploading" });
        break;
      }
      case "drive": {
        // The whole happy path of one item, step by step, until it is completed or a step is refused.
        for (let item = model.items.find((i) => i.id === cmd.id); item && NEXT_STEP[item.status]; ) {
          const before = item.status;
          await patch(cmd.id, { status: NEXT_STEP[item.status] });
          if (item.status === before) break;
        }
        break;
      }
      case "resume":
        await patch(cmd.id, { status: "waiting" });
        break;
      case "ids":
        await patch(cmd.id, { variantId: `${VARIANT}${ID_POOL.indexOf(cmd.id)}`, uploadId: `upload-${cmd.id}` });
        break;
      case "uploadId":
        await patch(cmd.id, { uploadId: `only-${cmd.id}` });
        break;
      case "cancel": {
        const got = await system.cancel(cmd.id, now);
        const want = model.cancel(cmd.id, now);
        expect(got.ok ? { ok: true, removed: got.value.removed } : got.status, where).toEqual(want.ok ? { ok: true, removed: want.value.removed } : want.status);
        break;
      }
      case "keepalive":
        await system.keepalive(cmd.ids, now);
        model.keepalive(cmd.ids, now);
        break;
      case "remove":
        expect(await system.remove(cmd.id), where).toBe(model.remove(cmd.id));
        break;
      case "clear":
        expect(await system.clear(), where).toBe(model.clear());
        break;
      case "tick": {
        now += cmd.ms;
        expect((await system.sweep(now)).sort(), where).toEqual(model.sweep(now));
        break;
      }
    }
    expect(await system.list(), where).toEqual(model.list());
    expect(await system.finished(), where).toBe(model.finished());
    expect(await system.next(), where).toBe(model.next());
  }
}

/** The fields the model knows, from a full item. */
export function seen(item: SeenItem): SeenItem {
  return {
    id: item.id,
    status: item.status,
    progress: item.progress,
    speed: item.speed,
    error: item.error,
    cancelled: item.cancelled,
    variantId: item.variantId,
    uploadId: item.uploadId,
    lastSeen: item.lastSeen,
  };
}
