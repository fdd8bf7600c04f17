import { describe, expect, it } from "vitest";
import { TaskMessageSchema } from "../../workers/queue/messages";

const id = "0193" + "b".repeat(28);

describe("purge-trash task message", () => {
  it("is complete as the cron trigger sends it: chunk size, budget and phase filled in", () => {
    expect(TaskMessageSchema.parse({ op: "purge-trash" })).toEqual({ op: "purge-trash", chunkSize: 100, budget: 10, phase: "groups" });
  });

  it("carries a continuation's cutoff, phase and resume point", () => {
    const continuation = {
      op: "purge-trash",
      chunkSize: 5,
      budget: 2,
      before: 1_700_000_000_000,
      phase: "assets",
      after: { at: 1_600_000_000_000, id },
    };
    expect(TaskMessageSchema.parse(continuation)).toEqual(continuation);
  });

  it.each([
    { op: "purge-trash", chunkSize: 0 },
    // one sendBatch of purge-group messages holds at most 100
    { op: "purge-trash", chunkSize: 101 },
    { op: "purge-trash", budget: 0 },
    { op: "purge-trash", phase: "users" },
    { op: "purge-trash", before: 1.5 },
    { op: "purge-trash", after: { at: 1, id: "nope" } },
  ])("rejects %j", (body) => {
    expect(TaskMessageSchema.safeParse(body).success).toBe(false);
  });
});
