import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isQueueFinished,
  LARGE_UPLOAD_BYTES,
  MAX_PARALLEL_LARGE,
  MAX_PARALLEL_UPLOADS,
  nextToStart,
} from "../../app/lib/upload-engine/queue-rules";
import type { UploadItem, UploadStatus } from "../../app/lib/upload-engine/types";

/**
 * The browser engine's side of the upload queue state machine (SPEC §4), against a declarative model: random
 * sequences of files added (small and large, some whose bytes this tab does not hold), engine ticks, completions,
 * failures, retries, re-picked files and cancels of waiting items. At every tick the items `nextToStart` starts must
 * be the longest prefix, in queue order, of the startable items (waiting, not running, file held here) that fits
 * the limits — at most `MAX_PARALLEL_UPLOADS` running, of them at most `MAX_PARALLEL_LARGE` large — and nothing
 * once the queue is finished. And driving the engine to the end always uploads every file this tab holds.
 * (The server's queue object has its own model-based tests: tests/unit/upload-queue-rules.test.ts and
 * tests/integration/upload-queue-model.test.ts.)
 */

type Command =
  | { op: "add"; sizes: { large: boolean; held: boolean }[] }
  | { op: "tick" }
  | { op: "complete"; pick: number }
  | { op: "fail"; pick: number }
  | { op: "retry"; pick: number }
  | { op: "pickFile"; pick: number }
  | { op: "cancelWaiting"; pick: number };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .array(fc.record({ large: fc.nat(3).map((x) => x === 0), held: fc.nat(5).map((x) => x !== 0) }), { minLength: 1, maxLength: 8 })
      .map((sizes) => ({ op: "add" as const, sizes })),
  },
  { weight: 4, arbitrary: fc.constant({ op: "tick" as const }) },
  { weight: 3, arbitrary: fc.nat().map((pick) => ({ op: "complete" as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ op: "fail" as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ op: "retry" as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ op: "pickFile" as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ op: "cancelWaiting" as const, pick })) },
);

/** The engine as the controller drives it: the server's items, the ids this tab runs, the files it holds. */
class Engine {
  items: UploadItem[] = [];
  running = new Set<string>();
  files = new Set<string>();
  private seq = 0;
  private clock = 1_000;

  add(sizes: { large: boolean; held: boolean }[]): void {
    // A batch shares its arrival time: queue order within it is the order given.
    this.clock += 1;
    for (const s of sizes) {
      const id = `item-${++this.seq}`;
      this.items.push({
        id,
        fileName: `${id}.bin`,
        size: s.large ? LARGE_UPLOAD_BYTES + this.seq : 1000 + this.seq,
        ctime: this.clock,
        status: "waiting",
      } as UploadItem);
      if (s.held) this.files.add(id);
    }
  }

  set(id: string, status: UploadStatus): void {
    this.items = this.items.map((i) => (i.id === id ? { ...i, status } : i));
  }

  /** One tick: what `nextToStart` starts begins uploading. */
  tick(): UploadItem[] {
    const started = nextToStart(this.items, { running: this.running, hasFile: (id) => this.files.has(id) });
    for (const item of started) {
      this.running.add(item.id);
      this.set(item.id, "uploading");
    }
    return started;
  }

  end(pick: number, status: "completed" | "error"): void {
    const ids = [...this.running];
    if (ids.length === 0) return;
    const id = ids[pick % ids.length];
    this.running.delete(id);
    this.set(id, status);
  }

  pickOf(pick: number, status: UploadStatus): string | null {
    const ids = this.items.filter((i) => i.status === status).map((i) => i.id);
    return ids.length === 0 ? null : ids[pick % ids.length];
  }
}

const isLarge = (i: UploadItem) => i.size >= LARGE_UPLOAD_BYTES;

/** The model of one tick: the longest prefix of startable items, in queue order, that fits both limits. */
function expectedStart(before: UploadItem[], running: ReadonlySet<string>, files: ReadonlySet<string>): string[] {
  if (isQueueFinished(before)) return [];
  const order = before.map((item, index) => ({ item, index })).sort((a, b) => a.item.ctime - b.item.ctime || a.index - b.index);
  const startable = order.map((o) => o.item).filter((i) => i.status === "waiting" && !running.has(i.id) && files.has(i.id));
  const runningLarge = before.filter((i) => running.has(i.id) && isLarge(i)).length;
  let best = 0;
  for (let k = 1; k <= startable.length; k++) {
    const prefix = startable.slice(0, k);
    const fits = running.size + k <= MAX_PARALLEL_UPLOADS && runningLarge + prefix.filter(isLarge).length <= MAX_PARALLEL_LARGE;
    if (!fits) break;
    best = k;
  }
  return startable.slice(0, best).map((i) => i.id);
}

describe("the upload engine's scheduling against the model", () => {
  it("starts exactly the longest fitting prefix of startable items at every tick, within both limits", () => {
    fc.assert(
      fc.property(fc.array(commandArb, { minLength: 1, maxLength: 60 }), (commands) => {
        const engine = new Engine();
        for (const c of commands) {
          switch (c.op) {
            case "add":
              engine.add(c.sizes);
              break;
            case "tick": {
              const expected = expectedStart(engine.items, new Set(engine.running), new Set(engine.files));
              expect(engine.tick().map((i) => i.id)).toEqual(expected);
              break;
            }
            case "complete":
              engine.end(c.pick, "completed");
              break;
            case "fail":
              engine.end(c.pick, "error");
              break;
            case "retry": {
              const id = engine.pickOf(c.pick, "error");
              if (id) engine.set(id, "waiting");
              break;
            }
            case "pickFile": {
              const id = engine.pickOf(c.pick, "waiting");
              if (id) engine.files.add(id);
              break;
            }
            case "cancelWaiting": {
              const id = engine.pickOf(c.pick, "waiting");
              if (id) engine.items = engine.items.filter((i) => i.id !== id);
              break;
            }
          }
          const active = engine.items.filter((i) => engine.running.has(i.id));
          expect(active.length).toBeLessThanOrEqual(MAX_PARALLEL_UPLOADS);
          expect(active.filter(isLarge).length).toBeLessThanOrEqual(MAX_PARALLEL_LARGE);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("driven to the end, uploads every file this tab holds, oldest first, and only those", () => {
    fc.assert(
      fc.property(fc.array(commandArb, { minLength: 1, maxLength: 40 }), (commands) => {
        const engine = new Engine();
        for (const c of commands) {
          if (c.op === "add") engine.add(c.sizes);
          else if (c.op === "pickFile") {
            const id = engine.pickOf(c.pick, "waiting");
            if (id) engine.files.add(id);
          }
        }
        const startOrder: string[] = [];
        for (let guard = 0; guard < 10_000; guard++) {
          startOrder.push(...engine.tick().map((i) => i.id));
          if (engine.running.size === 0) break;
          engine.end(0, "completed");
        }
        const held = engine.items.filter((i) => engine.files.has(i.id)).map((i) => i.id);
        expect(
          engine.items
            .filter((i) => i.status === "completed")
            .map((i) => i.id)
            .sort(),
        ).toEqual([...held].sort());
        expect(engine.items.filter((i) => i.status === "waiting").every((i) => !engine.files.has(i.id))).toBe(true);
        // First in, first started: the start order is the queue order of the held files.
        expect(startOrder).toEqual(held);
      }),
      { numRuns: 300 },
    );
  });
});
