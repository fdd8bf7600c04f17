import { describe, expect, it } from "vitest";
import { TaskMessageSchema } from "../../workers/queue/messages";

const id = "0193" + "a".repeat(28);

describe("purge-group task message", () => {
  it("fills in the chunk size and budget", () => {
    expect(TaskMessageSchema.parse({ op: "purge-group", groupId: id, actorId: id })).toEqual({
      op: "purge-group",
      groupId: id,
      actorId: id,
      chunkSize: 100,
      budget: 20,
    });
  });

  it("needs no actor when the retention purge (purge-trash) queued it", () => {
    expect(TaskMessageSchema.parse({ op: "purge-group", groupId: id })).toEqual({
      op: "purge-group",
      groupId: id,
      chunkSize: 100,
      budget: 20,
    });
  });

  it.each([
    { op: "purge-group", groupId: "f".repeat(31), actorId: id },
    { op: "purge-group", groupId: id, actorId: "x" },
    { op: "purge-group", groupId: id, actorId: id, chunkSize: 0 },
    { op: "purge-group", groupId: id, actorId: id, chunkSize: 501 },
    { op: "purge-group", groupId: id, actorId: id, budget: 1.5 },
    { op: "purge-group", groupId: id.toUpperCase(), actorId: id },
  ])("rejects %j", (body) => {
    expect(TaskMessageSchema.safeParse(body).success).toBe(false);
  });
});
