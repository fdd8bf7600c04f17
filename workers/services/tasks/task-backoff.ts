/** Delay before the n-th retry: 10 s, 20 s, 40 s … capped at 10 minutes (queue messages and task runs alike). */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(10 * 2 ** Math.max(0, attempts - 1), 600);
}
