import { DurableObject } from "cloudflare:workers";
import { THROTTLE_POLICY, lockDuration, type ThrottleKind } from "./login-throttle.policy";

export {
  THROTTLE_POLICY,
  accountThrottleKey,
  ipThrottleKey,
  lockDuration,
  shortlinkThrottleKey,
  type ThrottleKind,
} from "./login-throttle.policy";

interface ThrottleState {
  failures: number;
  lastFailureAt: number;
  lockedUntil: number;
}

/**
 * Login throttling for one key (an account login from one address, or a client address), one object per key.
 * Responsibilities: count recent failures, answer how long the key stays locked, forget after success or a quiet hour.
 * Locks are temporary by design: a flood of wrong passwords slows an attacker without locking the owner out forever.
 */
export class LoginThrottleDO extends DurableObject<Env> {
  private async load(now: number): Promise<ThrottleState> {
    const state = (await this.ctx.storage.get<ThrottleState>("state")) ?? { failures: 0, lastFailureAt: 0, lockedUntil: 0 };
    if (state.failures > 0 && now - state.lastFailureAt > THROTTLE_POLICY.forgetAfterMs) {
      return { failures: 0, lastFailureAt: 0, lockedUntil: 0 };
    }
    return state;
  }

  /** Milliseconds until the key may try again; 0 when it may try now. */
  async retryAfterMs(now = Date.now()): Promise<number> {
    const state = await this.load(now);
    return Math.max(0, state.lockedUntil - now);
  }

  /** Records a failed attempt; returns the new lock in milliseconds (0 when still free). */
  async recordFailure(kind: ThrottleKind, now = Date.now()): Promise<number> {
    const state = await this.load(now);
    state.failures += 1;
    state.lastFailureAt = now;
    const lock = lockDuration(kind, state.failures);
    state.lockedUntil = lock > 0 ? now + lock : 0;
    await this.ctx.storage.put("state", state);
    return lock;
  }

  /**
   * Starts a sign-in attempt, atomically: when the key is locked, answers how long (and counts nothing); otherwise
   * counts the attempt as a failure up front, so parallel wrong passwords cannot slip past the allowance while the
   * password is being checked. `succeeded` takes the count back.
   */
  async begin(kind: ThrottleKind, now = Date.now()): Promise<number> {
    const wait = await this.retryAfterMs(now);
    if (wait > 0) return wait;
    await this.recordFailure(kind, now);
    return 0;
  }

  /** The attempt started by `begin` succeeded: an account starts over, an IP gets that one attempt back. */
  async succeeded(kind: ThrottleKind, now = Date.now()): Promise<void> {
    if (kind === "account") return this.reset();
    const state = await this.load(now);
    state.failures = Math.max(0, state.failures - 1);
    const lock = lockDuration(kind, state.failures);
    state.lockedUntil = lock > 0 ? state.lastFailureAt + lock : 0;
    await this.ctx.storage.put("state", state);
  }

  async reset(): Promise<void> {
    await this.ctx.storage.delete("state");
  }
}
