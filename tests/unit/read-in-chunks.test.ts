import { describe, expect, it } from "vitest";
import { readInChunks } from "../../workers/lib/read-in-chunks";

const KiB = 1024;

/** A stream of `pieces` pieces of 4 KiB (as an R2 body arrives), byte n being n mod 251; counts cancels. */
function pieces(count: number) {
  let sent = 0;
  const state = { cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === count) return controller.close();
      controller.enqueue(Uint8Array.from({ length: 4 * KiB }, (_, i) => (sent * 4 * KiB + i) % 251));
      sent++;
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

describe("readInChunks", () => {
  it("turns 4 KiB pieces into chunks of the asked size, every byte in order", async () => {
    const { stream } = pieces(100); // 400 KiB
    const chunks: Uint8Array[] = [];
    for await (const chunk of readInChunks(stream, 64 * KiB)) chunks.push(chunk);
    expect(chunks.map((c) => c.length)).toEqual([...Array(6).fill(64 * KiB), 16 * KiB]);
    const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    chunks.reduce((at, c) => (all.set(c, at), at + c.length), 0);
    expect(all.length).toBe(400 * KiB);
    expect(all.every((b, n) => b === n % 251)).toBe(true);
  });

  it("passes a piece larger than the chunk size on as it is, and an empty body as nothing", async () => {
    const big = new Uint8Array(300 * KiB).fill(9);
    const chunks: Uint8Array[] = [];
    for await (const chunk of readInChunks(new Blob([big]).stream(), 64 * KiB)) chunks.push(chunk);
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(300 * KiB);
    expect(chunks.slice(0, -1).every((c) => c.length >= 64 * KiB)).toBe(true);
    const none: Uint8Array[] = [];
    for await (const chunk of readInChunks(new Blob([]).stream(), 64 * KiB)) none.push(chunk);
    expect(none).toEqual([]);
  });

  it("cancels the body when the reader stops early (an archive cancelled half-way closes its R2 object)", async () => {
    const { stream, state } = pieces(1000);
    for await (const chunk of readInChunks(stream, 16 * KiB)) {
      expect(chunk.length).toBe(16 * KiB);
      break;
    }
    expect(state.cancelled).toBe(true);
  });
});
