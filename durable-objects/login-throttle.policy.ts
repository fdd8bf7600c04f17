/**
 * The login throttling policy, kept apart from `LoginThrottleDO` so it is pure (no `cloudflare:workers` import)
 * and can be unit-tested in Node.
 */

/** Failures allowed before the first lock-out, per kind of key. */
export const THROTTLE_POLICY = {
  account: { freeFailures: 5 },
  ip: { freeFailures: 20 },
  baseLockMs: 30_000,
  maxLockMs: 15 * 60_000,
  /** a quiet hour forgets earlier failures */
  forgetAfterMs: 60 * 60_000,
} as const;

export type ThrottleKind = "account" | "ip";

/** Lock duration after `failures` failures: none until the free ones are spent, then doubling up to the cap. */
export function lockDuration(kind: ThrottleKind, failures: number): number {
  const over = failures - THROTTLE_POLICY[kind].freeFailures;
  if (over < 0) return 0;
  return Math.min(THROTTLE_POLICY.baseLockMs * 2 ** over, THROTTLE_POLICY.maxLockMs);
}
