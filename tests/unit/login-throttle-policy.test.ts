import { describe, expect, it } from "vitest";
import { lockDuration, THROTTLE_POLICY } from "../../durable-objects/login-throttle.policy";

describe("lockDuration", () => {
  it("does not lock while free failures remain", () => {
    for (let f = 0; f < THROTTLE_POLICY.account.freeFailures; f++) expect(lockDuration("account", f)).toBe(0);
    for (let f = 0; f < THROTTLE_POLICY.ip.freeFailures; f++) expect(lockDuration("ip", f)).toBe(0);
  });

  it("locks for the base time once the free failures are spent, then doubles", () => {
    const first = THROTTLE_POLICY.account.freeFailures;
    expect([0, 1, 2, 3].map((n) => lockDuration("account", first + n))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(lockDuration("ip", THROTTLE_POLICY.ip.freeFailures)).toBe(30_000);
  });

  it("is capped, so nobody is locked out for long, however many failures", () => {
    expect(lockDuration("account", 10)).toBe(THROTTLE_POLICY.maxLockMs);
    expect(lockDuration("account", 10_000)).toBe(THROTTLE_POLICY.maxLockMs);
    expect(THROTTLE_POLICY.maxLockMs).toBe(15 * 60_000);
  });

  it("grows monotonically", () => {
    const locks = Array.from({ length: 40 }, (_, f) => lockDuration("ip", f));
    expect(locks).toEqual([...locks].sort((a, b) => a - b));
  });
});
