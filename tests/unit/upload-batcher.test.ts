import { describe, expect, it } from "vitest";
import { BatchFailed, BatchWithdrawn, SmallFileBatcher, type BatchDone } from "../../app/lib/upload-engine/batcher";

/** The upload engine's batcher (app/lib/upload-engine/batcher.ts): how a burst of small files is put into requests. */

const GROUP = "a".repeat(32);
const OTHER = "b".repeat(32);
const fileOf = (name: string) => new File([name], name);

/** A sender that records each request and answers it when told to (or at once with `auto`). */
function recorder(auto = true) {
  const requests: { groupId: string; names: string[]; signal: AbortSignal; answer: () => void; fail: (e: unknown) => void }[] = [];
  const send = (groupId: string, files: File[], signal: AbortSignal) =>
    new Promise<BatchDone[]>((resolve, reject) => {
      const answer = () => resolve(files.map((f) => ({ asset_id: `asset-${f.name}`, asset_variant_id: `variant-${f.name}` })));
      requests.push({ groupId, names: files.map((f) => f.name), signal, answer, fail: reject });
      signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      if (auto) answer();
    });
  return { requests, send };
}

const names = (n: number, prefix = "f") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe("SmallFileBatcher", () => {
  it("spreads a burst over the free slots, at most 16 files a request, in the order added", async () => {
    const { requests, send } = recorder();
    const batcher = new SmallFileBatcher(send, 6);
    const done = await Promise.all(names(96).map((n) => batcher.add(GROUP, fileOf(n)).done));
    expect(requests.map((r) => r.names.length)).toEqual([16, 16, 16, 16, 16, 16]);
    expect(requests.flatMap((r) => r.names)).toEqual(names(96));
    expect(done[40]).toEqual({ asset_id: "asset-f40", asset_variant_id: "variant-f40" });

    // A few files still go in parallel: 12 files over six free slots are six requests of two.
    requests.length = 0;
    await Promise.all(names(12).map((n) => batcher.add(GROUP, fileOf(n)).done));
    expect(requests.map((r) => r.names.length)).toEqual([2, 2, 2, 2, 2, 2]);
  });

  it("fills only the slots left while requests are in flight, and keeps folders apart", async () => {
    const { requests, send } = recorder(false);
    const batcher = new SmallFileBatcher(send, 6);
    const first = names(80).map((n) => batcher.add(GROUP, fileOf(n)).done);
    await new Promise((r) => setTimeout(r, 20));
    expect(requests).toHaveLength(6);
    const later = [...names(5, "g").map((n) => batcher.add(GROUP, fileOf(n)).done), batcher.add(OTHER, fileOf("x")).done];
    await new Promise((r) => setTimeout(r, 20));
    // No slot is free: the five go together (one request), the other folder's file in a request of its own.
    expect(requests.slice(6).map((r) => [r.groupId, r.names])).toEqual([
      [GROUP, names(5, "g")],
      [OTHER, ["x"]],
    ]);
    for (const r of requests) r.answer();
    await Promise.all([...first, ...later]);
  });

  it("fails every file of a failed request with BatchFailed, so each can go again alone", async () => {
    const { requests, send } = recorder(false);
    const batcher = new SmallFileBatcher(send, 1);
    const tickets = names(3).map((n) => batcher.add(GROUP, fileOf(n)).done);
    await new Promise((r) => setTimeout(r, 20));
    requests[0].fail(new Error("503"));
    const outcomes = await Promise.allSettled(tickets);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBeInstanceOf(BatchFailed);
    expect((outcomes[0] as PromiseRejectedResult).reason.message).toBe("503");
  });

  it("drops a file withdrawn before its request, and aborts a request once every file in it was withdrawn", async () => {
    const { requests, send } = recorder(false);
    const batcher = new SmallFileBatcher(send, 1);
    const [a, b, c] = names(3).map((n) => batcher.add(GROUP, fileOf(n)));
    a.withdraw();
    await expect(a.done).rejects.toBeInstanceOf(BatchWithdrawn);
    await new Promise((r) => setTimeout(r, 20));
    expect(requests.map((r) => r.names)).toEqual([["f1", "f2"]]);
    b.withdraw();
    expect(requests[0].signal.aborted).toBe(false);
    c.withdraw();
    expect(requests[0].signal.aborted).toBe(true);
    await expect(b.done).rejects.toBeInstanceOf(BatchWithdrawn);
    await expect(c.done).rejects.toBeInstanceOf(BatchWithdrawn);
  });
});
