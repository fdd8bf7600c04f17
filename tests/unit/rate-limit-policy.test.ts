import { describe, expect, it } from "vitest";
import { capacityOf, takeToken, type BucketState } from "../../durable-objects/rate-limit.policy";

describe("rate limit token bucket", () => {
  it("allows a burst of the whole allowance, then refuses with the wait until the next token", () => {
    let state: BucketState | undefined;
    for (let i = 0; i < 60; i++) {
      const r = takeToken(state, 60, 1_000);
      expect(r.retryAfterMs).toBe(0);
      state = r.state;
    }
    const refused = takeToken(state, 60, 1_000);
    expect(refused.retryAfterMs).toBe(1_000); // one token a second at 60 per minute
    expect(takeToken(refused.state, 60, 2_000).retryAfterMs).toBe(0);
  });

  it("a refused call takes nothing: waiting Retry-After is enough", () => {
    let state: BucketState = { tokens: 0, updatedAt: 0 };
    for (let i = 0; i < 5; i++) state = takeToken(state, 120, 100).state;
    expect(takeToken(state, 120, 500).retryAfterMs).toBe(0);
  });

  it("refills to the capacity, never beyond", () => {
    const r = takeToken({ tokens: 0, updatedAt: 0 }, 10, 3_600_000);
    expect(r.state.tokens).toBe(9);
  });

  it("an IP gets twice a user's allowance", () => {
    expect(capacityOf("search", "ip")).toBe(2 * capacityOf("search", "user"));
    expect(capacityOf("rag", "user")).toBeLessThan(capacityOf("search", "user"));
  });
});
