import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import { RATE_LIMITS, capacityOf, takeToken, type BucketState } from "./rate-limit.policy";

const TakeSchema = z.object({
  bucket: z.enum(Object.keys(RATE_LIMITS) as [keyof typeof RATE_LIMITS, ...(keyof typeof RATE_LIMITS)[]]),
  subject: z.enum(["user", "ip"]),
  now: z.number().optional(),
});

/**
 * Rate limiting of expensive calls for one key (a user or a client IP in one bucket), one object per key, like
 * `LoginThrottleDO`. Responsibilities: keep the key's token bucket and answer how long the caller must wait.
 * The bucket lives in memory: an object evicted after a quiet spell would have refilled its bucket anyway.
 */
export class RateLimitDO extends DurableObject<Env> {
  private state: BucketState | undefined;

  /** Takes one call from the bucket; answers the wait in milliseconds (0: go ahead). */
  async take(input: z.input<typeof TakeSchema>): Promise<number> {
    const { bucket, subject, now = Date.now() } = TakeSchema.parse(input);
    const result = takeToken(this.state, capacityOf(bucket, subject), now);
    this.state = result.state;
    return result.retryAfterMs;
  }
}
