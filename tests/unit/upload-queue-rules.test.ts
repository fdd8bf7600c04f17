import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import {
  AddItemSchema,
  AddItemsSchema,
  addItems,
  applyPatch,
  cancelItem,
  canTransition,
  isFinished,
  ItemIdSchema,
  ItemPatchSchema,
  newItem,
  nextToStart,
  QUEUE_POLICY,
  sweep,
  touch,
  TRANSITIONS,
  UPLOAD_STATUSES,
  wakeUpAt,
  type UploadItem,
  type UploadStatus,
} from "../../durable-objects/upload-queue.rules";
import { commandsArb, runAgainstModel, seen, type Patch, type QueueSystem } from "./upload-queue-model";

const T0 = 1_800_000_000_000;
const VARIANT = "0193a1b2c3d4e5f60718293a4b5c6d7e";

const item = (id: string, extra: Partial<UploadItem> = {}, now = T0): UploadItem => ({
  ...newItem(AddItemSchema.parse({ id, fileName: `${id}.mov`, size: 10 }), now),
  ...extra,
});

/** The rules applied to an in-memory array, the way UploadQueueDO applies them to its table. */
class RulesQueue implements QueueSystem {
  items: UploadItem[] = [];
  private at = (id: string) => this.items.findIndex((i) => i.id === id);

  async add(ids: string[], now: number) {
    const outcome = addItems(this.items, AddItemsSchema.parse(ids.map((id) => ({ id, fileName: id, size: 1 }))), now);
    if (!outcome.ok) return outcome;
    this.items.push(...outcome.value.created);
    return { ok: true as const, value: outcome.value.items.map((i) => i.id) };
  }
  async update(id: string, patch: Patch, now: number) {
    const index = this.at(id);
    if (index < 0) return { ok: false as const, status: 404 as const };
    const outcome = applyPatch(this.items[index], ItemPatchSchema.parse(patch), now);
    if (outcome.ok) this.items[index] = outcome.value;
    return outcome;
  }
  async cancel(id: string, now: number) {
    const index = this.at(id);
    if (index < 0) return { ok: false as const, status: 404 as const };
    const outcome = cancelItem(this.items[index], now);
    if (outcome.ok && outcome.value.removed) this.items.splice(index, 1);
    else if (outcome.ok && outcome.value.item) this.items[index] = outcome.value.item;
    return outcome;
  }
  async keepalive(ids: string[], now: number) {
    this.items = this.items.map((i) => (ids.includes(i.id) ? touch(i, now) : i));
  }
  async remove(id: string) {
    const before = this.items.length;
    this.items = this.items.filter((i) => i.id !== id);
    return this.items.length < before;
  }
  async clear() {
    const before = this.items.length;
    this.items = this.items.filter((i) => i.status !== "completed");
    return before - this.items.length;
  }
  async sweep(now: number) {
    const result = sweep(this.items, now);
    const failed = new Map(result.failed.map((i) => [i.id, i]));
    this.items = this.items.filter((i) => !result.expired.includes(i.id)).map((i) => failed.get(i.id) ?? i);
    return result.aborts.map((a) => `${a.variantId}/${a.uploadId}`);
  }
  async list() {
    return this.items.map(seen);
  }
  async finished() {
    return isFinished(this.items);
  }
  async next() {
    return nextToStart(this.items)?.id ?? null;
  }
}

describe("upload queue rules against the reference model", () => {
  it("answer every random sequence of add, start, progress, cancel, fail, complete, resume, keep-alive and time exactly like the model", async () => {
    await fc.assert(
      fc.asyncProperty(commandsArb(80), (commands) => runAgainstModel(new RulesQueue(), commands, T0)),
      { numRuns: 500 },
    );
  });
});

describe("transitions", () => {
  const allowed: [UploadStatus, UploadStatus][] = [
    ["waiting", "busy"],
    ["waiting", "uploading"],
    ["waiting", "error"],
    ["busy", "uploading"],
    ["busy", "error"],
    ["uploading", "uploaded"],
    ["uploading", "completed"],
    ["uploading", "error"],
    ["uploading", "waiting"],
    ["uploaded", "saving"],
    ["uploaded", "error"],
    ["saving", "completed"],
    ["saving", "error"],
    ["error", "waiting"],
  ];
  const key = (from: string, to: string) => `${from}→${to}`;
  const allowedKeys = new Set(allowed.map(([a, b]) => key(a, b)));

  it("allow exactly the listed changes (and keeping a status, except on completed)", () => {
    for (const from of UPLOAD_STATUSES) {
      for (const to of UPLOAD_STATUSES) {
        const expected = allowedKeys.has(key(from, to)) || from === to;
        expect(canTransition(from, to), key(from, to)).toBe(expected);
        const outcome = applyPatch(item("a", { status: from }), { status: to }, T0 + 1);
        const accepted = expected && !(from === "completed" && to !== "completed");
        expect(outcome.ok, key(from, to)).toBe(accepted);
        if (!outcome.ok) {
          expect(outcome.status).toBe(409);
          expect(outcome.message).toBe(from === "completed" ? ru.queue.completedFinal : ru.queue.illegalTransition(ru.queue.statusNames[from], ru.queue.statusNames[to]));
        }
      }
    }
    expect(TRANSITIONS.completed).toEqual([]);
  });

  it("completed is final: only a repeated 'completed' is accepted, and it changes nothing", () => {
    const done = item("a", { status: "completed", progress: 100 });
    expect(applyPatch(done, { status: "completed" }, T0 + 5)).toEqual({ ok: true, value: done });
    for (const patch of [{ status: "error" as const }, { status: "waiting" as const }, { progress: 50 }, { assetId: VARIANT }, { status: "completed" as const, error: "x" }]) {
      expect(applyPatch(done, patch, T0 + 5)).toMatchObject({ ok: false, status: 409, message: ru.queue.completedFinal });
    }
  });

  it("takes progress and speed only while uploading; from uploaded on progress is 100; speed is null outside uploading", () => {
    expect(applyPatch(item("a"), { progress: 5 }, T0)).toMatchObject({ ok: false, status: 409, message: ru.queue.progressOnlyUploading });
    expect(applyPatch(item("a", { status: "busy" }), { speed: 5 }, T0)).toMatchObject({ ok: false, status: 409 });
    const up = applyPatch(item("a"), { status: "uploading", progress: 30, speed: 1e6 }, T0 + 1);
    expect(up).toMatchObject({ ok: true, value: { status: "uploading", progress: 30, speed: 1e6 } });
    if (!up.ok) return;
    const more = applyPatch(up.value, { progress: 60 }, T0 + 2);
    expect(more).toMatchObject({ ok: true, value: { progress: 60, speed: 1e6 } });
    if (!more.ok) return;
    expect(applyPatch(more.value, { status: "uploaded" }, T0 + 3)).toMatchObject({ ok: true, value: { progress: 100, speed: null } });
    expect(applyPatch(more.value, { status: "waiting" }, T0 + 3)).toMatchObject({ ok: true, value: { status: "waiting", progress: 60, speed: null } });
    expect(applyPatch(more.value, { status: "uploaded", progress: 100 }, T0 + 3)).toMatchObject({ ok: false, status: 409 });
  });

  it("sets an error text with error (a default when none is given) and clears it on retry", () => {
    expect(applyPatch(item("a"), { error: "x" }, T0)).toMatchObject({ ok: false, status: 409, message: ru.queue.errorOnlyWithError });
    const failed = applyPatch(item("a", { status: "uploading" }), { status: "error" }, T0);
    expect(failed).toMatchObject({ ok: true, value: { status: "error", error: ru.queue.failed } });
    const told = applyPatch(item("a", { status: "uploading" }), { status: "error", error: "Диск переполнен" }, T0);
    expect(told).toMatchObject({ ok: true, value: { error: "Диск переполнен" } });
    if (!told.ok) return;
    expect(applyPatch(told.value, { status: "waiting" }, T0 + 1)).toMatchObject({ ok: true, value: { status: "waiting", error: null } });
  });

  it("counts every accepted report as a sign of life, and moves mtime only for visible changes", () => {
    const a = item("a", { status: "uploading", progress: 10 });
    const same = applyPatch(a, { progress: 10 }, T0 + 1000);
    expect(same).toMatchObject({ ok: true, value: { lastSeen: T0 + 1000, mtime: T0 } });
    const moved = applyPatch(a, { progress: 11 }, T0 + 1000);
    expect(moved).toMatchObject({ ok: true, value: { lastSeen: T0 + 1000, mtime: T0 + 1000 } });
  });
});

describe("cancelling", () => {
  it("removes a waiting item, marks any other cancelled (idempotently) and refuses a completed one", () => {
    expect(cancelItem(item("a"), T0)).toEqual({ ok: true, value: { removed: true, item: null } });
    for (const status of ["busy", "uploading", "uploaded", "saving", "error"] as const) {
      const outcome = cancelItem(item("a", { status, speed: status === "uploading" ? 5 : null }), T0 + 1);
      expect(outcome, status).toMatchObject({ ok: true, value: { removed: false, item: { status, cancelled: true, speed: null, mtime: T0 + 1 } } });
      if (outcome.ok && outcome.value.item) expect(cancelItem(outcome.value.item, T0 + 2)).toEqual({ ok: true, value: { removed: false, item: outcome.value.item } });
    }
    expect(cancelItem(item("a", { status: "completed" }), T0)).toMatchObject({ ok: false, status: 409, message: ru.queue.cancelCompleted });
  });

  it("a cancelled item takes only a failure report (the engine could not cancel it)", () => {
    const cancelled = item("a", { status: "uploading", cancelled: true });
    expect(applyPatch(cancelled, { progress: 50 }, T0)).toMatchObject({ ok: false, status: 409, message: ru.queue.cancelled });
    expect(applyPatch(cancelled, { status: "uploaded" }, T0)).toMatchObject({ ok: false, status: 409 });
    expect(applyPatch(cancelled, { status: "error", error: "Не удалось удалить файл" }, T0)).toMatchObject({
      ok: true,
      value: { status: "error", cancelled: true, error: "Не удалось удалить файл" },
    });
    expect(applyPatch({ ...cancelled, status: "error" }, { status: "waiting" }, T0)).toMatchObject({ ok: false, status: 409 });
  });
});

describe("the queue", () => {
  it("is finished when every item is completed or error, and starts the oldest waiting item", () => {
    expect(isFinished([])).toBe(true);
    expect(nextToStart([])).toBeNull();
    const items = [item("a", { status: "completed" }), item("b", { status: "uploading" }), item("c"), item("d")];
    expect(isFinished(items)).toBe(false);
    expect(nextToStart(items)?.id).toBe("c");
    expect(isFinished([item("a", { status: "completed" }), item("b", { status: "error" })])).toBe(true);
    expect(nextToStart([item("a", { status: "uploading" })])).toBeNull();
  });

  it("adds idempotently, in input order, and refuses to overflow", () => {
    const existing = [item("a", { status: "uploading" })];
    const outcome = addItems(existing, AddItemsSchema.parse([{ id: "b", fileName: "b", size: 1 }, { id: "a", fileName: "other", size: 2 }, { id: "b", fileName: "b2", size: 3 }]), T0);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.value.items.map((i) => [i.id, i.fileName, i.status])).toEqual([
      ["b", "b", "waiting"],
      ["a", "a.mov", "uploading"],
      ["b", "b", "waiting"],
    ]);
    expect(outcome.value.created.map((i) => i.id)).toEqual(["b"]);
    const full = Array.from({ length: QUEUE_POLICY.maxItems }, (_, n) => item(`f${n}`));
    expect(addItems(full, AddItemsSchema.parse([{ id: "x", fileName: "x", size: 1 }]), T0)).toMatchObject({ ok: false, status: 409 });
    expect(addItems(full, AddItemsSchema.parse([{ id: "f1", fileName: "x", size: 1 }]), T0).ok).toBe(true);
  });
});

describe("keep-alive, staleness and retention", () => {
  const { staleAfterMs, retentionMs } = QUEUE_POLICY;

  it("uses a 3 s keep-alive and a 2 minute stale limit by default", () => {
    expect(QUEUE_POLICY.keepAliveMs).toBe(3_000);
    expect(staleAfterMs).toBe(120_000);
  });

  it("fails busy, uploading and uploaded items not heard from for the stale limit, and asks to abort their uploads", () => {
    const items = [
      item("busy", { status: "busy" }),
      item("up", { status: "uploading", speed: 9, variantId: VARIANT, uploadId: "u-1" }),
      item("sent", { status: "uploaded", variantId: VARIANT, uploadId: "u-2" }),
      item("saving", { status: "saving" }),
      item("waiting"),
      item("fresh", { status: "uploading", lastSeen: T0 + 1 }),
    ];
    expect(sweep(items, T0 + staleAfterMs - 1)).toEqual({ failed: [], aborts: [], expired: [] });
    const result = sweep(items, T0 + staleAfterMs);
    expect(result.failed.map((i) => [i.id, i.status, i.error, i.speed, i.mtime])).toEqual([
      ["busy", "error", ru.queue.stale, null, T0 + staleAfterMs],
      ["up", "error", ru.queue.stale, null, T0 + staleAfterMs],
      ["sent", "error", ru.queue.stale, null, T0 + staleAfterMs],
    ]);
    expect(result.aborts).toEqual([
      { variantId: VARIANT, uploadId: "u-1" },
      { variantId: VARIANT, uploadId: "u-2" },
    ]);
  });

  it("a keep-alive postpones staleness; it never moves time backwards", () => {
    const a = item("a", { status: "uploading" });
    const kept = touch(a, T0 + 100_000);
    expect(sweep([kept], T0 + staleAfterMs).failed).toEqual([]);
    expect(touch(kept, T0)).toBe(kept);
  });

  it("forgets items nobody watches after the retention period", () => {
    const items = [item("done", { status: "completed" }), item("failed", { status: "error" }), item("waiting", { lastSeen: T0 + 10 })];
    expect(sweep(items, T0 + retentionMs).expired).toEqual(["done", "failed"]);
    expect(sweep(items, T0 + retentionMs + 10).expired).toEqual(["done", "failed", "waiting"]);
  });

  it("wakes up at the earliest deadline", () => {
    expect(wakeUpAt([])).toBeNull();
    expect(wakeUpAt([item("a", { status: "completed" })])).toBe(T0 + retentionMs);
    expect(wakeUpAt([item("a", { status: "completed" }), item("b", { status: "uploading", lastSeen: T0 + 5 })])).toBe(T0 + 5 + staleAfterMs);
  });
});

describe("input schemas", () => {
  it("take ids of 1–64 characters and file names of 1–255 characters of any Unicode, counted as characters", () => {
    expect(ItemIdSchema.safeParse("uppy-a/b/c-1e-image/jpeg-123").success).toBe(true);
    expect(ItemIdSchema.safeParse("я".repeat(64)).success).toBe(true);
    expect(ItemIdSchema.safeParse("x".repeat(65)).success).toBe(false);
    expect(ItemIdSchema.safeParse("").success).toBe(false);
    expect(ItemIdSchema.safeParse("a\nb").success).toBe(false);
    const name = (fileName: string) => AddItemSchema.safeParse({ id: "a", fileName, size: 0 }).success;
    expect(name("🎬".repeat(255))).toBe(true);
    expect(name("🎬".repeat(256))).toBe(false);
    expect(name("Съёмка 2026 — финал (1).mov")).toBe(true);
    expect(name("\ud800broken")).toBe(false);
    expect(name("")).toBe(false);
  });

  it("refuse unknown patch fields, out-of-range numbers and malformed ids", () => {
    expect(ItemPatchSchema.safeParse({ fileName: "x" }).success).toBe(false);
    expect(ItemPatchSchema.safeParse({ progress: 101 }).success).toBe(false);
    expect(ItemPatchSchema.safeParse({ progress: Number.NaN }).success).toBe(false);
    expect(ItemPatchSchema.safeParse({ speed: -1 }).success).toBe(false);
    expect(ItemPatchSchema.safeParse({ assetId: "not-an-id" }).success).toBe(false);
    expect(ItemPatchSchema.safeParse({ uploadId: "has space" }).success).toBe(false);
    expect(ItemPatchSchema.safeParse({ status: "done" }).success).toBe(false);
    expect(ItemPatchSchema.safeParse({ speed: null, assetId: VARIANT, uploadId: "AbC-123.xyz_" }).success).toBe(true);
  });
});
