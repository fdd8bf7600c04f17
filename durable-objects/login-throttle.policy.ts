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

/** Stands for a client address the request did not name (only local runs: Cloudflare always sets one). */
const NO_ADDRESS = "unknown";

/**
 * The key of an account's lock: the login (trimmed, lower-cased) *and* the address the attempts come from. Failures
 * from one address lock that address out of that account only, so nobody can keep an account — an administrator's
 * included — locked for its owner by failing from elsewhere; the right password from an address that has not failed
 * goes through. Guessing from many addresses is held by each address's own allowance (`ipThrottleKey`).
 */
export function accountThrottleKey(login: string, ip: string | null): string {
  // JSON keeps the two apart whatever a login contains (logins are often e-mail addresses)
  return `account:${JSON.stringify([ip ?? NO_ADDRESS, login.trim().toLowerCase()])}`;
}

/** The key of an address's lock across all accounts. */
export function ipThrottleKey(ip: string): string {
  return `ip:${ip}`;
}

/** The key of a password-protected shared link's lock: the link and the address, like an account's. */
export function shortlinkThrottleKey(linkId: string, ip: string | null): string {
  return `shortlink:${JSON.stringify([ip ?? NO_ADDRESS, linkId])}`;
}

/** Lock duration after `failures` failures: none until the free ones are spent, then doubling up to the cap. */
export function lockDuration(kind: ThrottleKind, failures: number): number {
  const over = failures - THROTTLE_POLICY[kind].freeFailures;
  if (over < 0) return 0;
  return Math.min(THROTTLE_POLICY.baseLockMs * 2 ** over, THROTTLE_POLICY.maxLockMs);
}
