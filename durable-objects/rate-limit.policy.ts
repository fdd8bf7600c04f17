/**
 * Limits of the expensive calls, kept apart from `RateLimitDO` so they are pure and unit-tested in Node.
 * Each bucket allows `perMinute` calls per user, and twice that per client IP (several people may share one
 * address behind a NAT), refilled continuously: a burst of the whole allowance, then one call every 60/perMinute s.
 */
export const RATE_LIMITS = {
  search: { perMinute: 120 },
  rag: { perMinute: 20 },
  "group-size": { perMinute: 120 },
  previews: { perMinute: 600 },
  /** heal-on-view previews (a reader's browser stores a missing preview: thumb, medium, strip per file) */
  "preview-heal": { perMinute: 120 },
  enqueue: { perMinute: 60 },
  "csp-report": { perMinute: 60 },
  /** survey answers (POST /api/pqi): a person answers once a month; this only stops scripted floods */
  pqi: { perMinute: 6 },
  /**
   * changes across libraries (decision 046) by people other than administrators: each holds the shards it touches for
   * its moment, refusing others' writes there, whether or not its own checks then let it through
   */
  "across-libraries": { perMinute: 30 },
  /**
   * comments written and edited, per person: a flood would stay on a file for everyone who reads it, notify whom it
   * mentions, and weigh on every copy of the file into a library's shard (10,000 characters each)
   */
  comments: { perMinute: 60 },
  /** the dry run of moving libraries into shards (GET /api/library-shards/plan): a pass over the whole catalog */
  "library-plan": { perMinute: 10 },
} as const;

export type RateLimitBucket = keyof typeof RATE_LIMITS;
export type RateLimitSubject = "user" | "ip";

export interface BucketState {
  tokens: number;
  updatedAt: number;
}

/** The allowance of one key: per user as listed, per IP twice that. */
export function capacityOf(bucket: RateLimitBucket, subject: RateLimitSubject): number {
  return RATE_LIMITS[bucket].perMinute * (subject === "ip" ? 2 : 1);
}

/**
 * One call against a token bucket: the new state and how long to wait (0 when the call may go ahead). A refused
 * call takes nothing, so a client that waits Retry-After gets through.
 */
export function takeToken(state: BucketState | undefined, capacity: number, now: number): { state: BucketState; retryAfterMs: number } {
  const refillPerMs = capacity / 60_000;
  const current = state ? Math.min(capacity, state.tokens + Math.max(0, now - state.updatedAt) * refillPerMs) : capacity;
  if (current >= 1) return { state: { tokens: current - 1, updatedAt: now }, retryAfterMs: 0 };
  return { state: { tokens: current, updatedAt: now }, retryAfterMs: Math.ceil((1 - current) / refillPerMs) };
}
