import { describe, expect, it } from "vitest";
import {
  accountThrottleKey,
  ipThrottleKey,
  lockDuration,
  shortlinkThrottleKey,
  THROTTLE_POLICY,
} from "../../durable-objects/login-throttle.policy";

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

describe("throttle keys", () => {
  it("lock an account per (login, address): another address has its own allowance, so nobody can lock the owner out", () => {
    expect(accountThrottleKey("Admin", "203.0.113.1")).not.toBe(accountThrottleKey("admin", "198.51.100.2"));
    // the same login however typed, from the same address, is one lock
    expect(accountThrottleKey("  ADMIN ", "203.0.113.1")).toBe(accountThrottleKey("admin", "203.0.113.1"));
    // a login holding what looks like an address never shares a key with another (login, address) pair
    expect(accountThrottleKey("x@203.0.113.1", "198.51.100.2")).not.toBe(accountThrottleKey("x", "203.0.113.1@198.51.100.2"));
    expect(accountThrottleKey("admin", null)).toBe(accountThrottleKey("admin", null));
    expect(accountThrottleKey("admin", null)).not.toBe(ipThrottleKey("unknown"));
  });

  it("lock a shared link's password per (link, address)", () => {
    expect(shortlinkThrottleKey("L1", "203.0.113.1")).not.toBe(shortlinkThrottleKey("L1", "198.51.100.2"));
    expect(shortlinkThrottleKey("L1", "203.0.113.1")).toBe(shortlinkThrottleKey("L1", "203.0.113.1"));
  });
});
