import { DurableObject } from "cloudflare:workers";
import { z } from "zod";

/** WOPI locks expire 30 minutes after they are taken or last refreshed (the protocol's rule). */
export const WOPI_LOCK_TTL_MS = 30 * 60 * 1000;
/** The protocol's limit on a lock id. */
export const WOPI_LOCK_MAX_LENGTH = 1024;

const LockIdSchema = z.string().min(1).max(WOPI_LOCK_MAX_LENGTH);
const HolderSchema = z.object({ userId: z.string().min(1).max(64), name: z.string().max(200) });

export type WopiLockHolder = z.infer<typeof HolderSchema>;

/** The lock a file holds now. */
export interface WopiLockState {
  lockId: string;
  holder: WopiLockHolder;
  expiresAt: number;
}

/** A lock operation: done, or refused with the lock the file holds now ("" when it holds none). */
export type WopiLockResult = { ok: true; lock: WopiLockState | null } | { ok: false; current: string };

/**
 * The WOPI lock of one file (one object per asset id), shared by every editor and by the app's own text editor.
 * Responsibilities: take, refresh, release and swap the lock by its lock id with the protocol's rules, let a lock
 * lapse 30 minutes after it was last taken or refreshed, and answer who holds it. A Durable Object serialises the
 * calls for one file, so two editors racing for the lock cannot both win.
 */
export class WopiLockDO extends DurableObject<Env> {
  private async current(now: number): Promise<WopiLockState | null> {
    const lock = (await this.ctx.storage.get<WopiLockState>("lock")) ?? null;
    if (lock && lock.expiresAt <= now) {
      await this.ctx.storage.delete("lock");
      return null;
    }
    return lock;
  }

  private async hold(lockId: string, holder: WopiLockHolder, now: number): Promise<WopiLockState> {
    const lock = { lockId, holder, expiresAt: now + WOPI_LOCK_TTL_MS };
    await this.ctx.storage.put("lock", lock);
    // The alarm only tidies storage; expiry itself is checked on every read.
    await this.ctx.storage.setAlarm(lock.expiresAt);
    return lock;
  }

  /** The lock the file holds now, or null. */
  async get(now = Date.now()): Promise<WopiLockState | null> {
    return this.current(now);
  }

  /**
   * Lock: takes a free file, or refreshes the caller's own lock (same id); refused while another id holds it.
   * With `oldLockId` it is UnlockAndRelock: the lock is swapped only when the file holds exactly `oldLockId`.
   */
  async lock(input: { lockId: string; oldLockId?: string; holder: WopiLockHolder }, now = Date.now()): Promise<WopiLockResult> {
    const lockId = LockIdSchema.parse(input.lockId);
    const holder = HolderSchema.parse(input.holder);
    const current = await this.current(now);
    if (input.oldLockId !== undefined) {
      const oldLockId = LockIdSchema.parse(input.oldLockId);
      if (!current || current.lockId !== oldLockId) return { ok: false, current: current?.lockId ?? "" };
      return { ok: true, lock: await this.hold(lockId, holder, now) };
    }
    if (current && current.lockId !== lockId) return { ok: false, current: current.lockId };
    return { ok: true, lock: await this.hold(lockId, current?.holder ?? holder, now) };
  }

  /** RefreshLock: restarts the 30 minutes of the caller's lock; refused when the file holds another lock or none. */
  async refresh(lockId: string, now = Date.now()): Promise<WopiLockResult> {
    const id = LockIdSchema.parse(lockId);
    const current = await this.current(now);
    if (!current || current.lockId !== id) return { ok: false, current: current?.lockId ?? "" };
    return { ok: true, lock: await this.hold(id, current.holder, now) };
  }

  /** Unlock: releases the caller's lock; refused when the file holds another lock or none. */
  async unlock(lockId: string, now = Date.now()): Promise<WopiLockResult> {
    const id = LockIdSchema.parse(lockId);
    const current = await this.current(now);
    if (!current || current.lockId !== id) return { ok: false, current: current?.lockId ?? "" };
    await this.ctx.storage.delete("lock");
    await this.ctx.storage.deleteAlarm();
    return { ok: true, lock: null };
  }

  async alarm(): Promise<void> {
    await this.current(Date.now());
  }
}
