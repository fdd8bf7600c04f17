import { describe, expect, it } from "vitest";
import { TaskMessageSchema } from "../../workers/queue/messages";
import { retryDelaySeconds } from "../../workers/queue/consumer";

describe("retryDelaySeconds", () => {
  it("doubles from 10 seconds", () => {
    expect([1, 2, 3, 4, 5, 6].map(retryDelaySeconds)).toEqual([10, 20, 40, 80, 160, 320]);
  });

  it("is capped at ten minutes", () => {
    expect(retryDelaySeconds(7)).toBe(600);
    expect(retryDelaySeconds(100)).toBe(600);
  });

  it("treats a first delivery (0 attempts) like the first retry", () => {
    expect(retryDelaySeconds(0)).toBe(10);
    expect(retryDelaySeconds(-3)).toBe(10);
  });
});

describe("TaskMessageSchema", () => {
  it("defaults cleanup-sessions to seven days", () => {
    expect(TaskMessageSchema.parse({ op: "cleanup-sessions" })).toEqual({ op: "cleanup-sessions", olderThanDays: 7 });
  });

  it.each([{ op: "rm -rf" }, { op: "cleanup-sessions", olderThanDays: 0 }, { op: "cleanup-sessions", olderThanDays: 1.5 }, null, "x"])(
    "rejects %j",
    (body) => {
      expect(TaskMessageSchema.safeParse(body).success).toBe(false);
    },
  );
});
