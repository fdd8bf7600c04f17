import { describe, expect, it } from "vitest";
import { findEmbeddedJpegs } from "../../workers/services/imaging/embedded-jpeg";
import { sniffImage } from "../../workers/services/imaging/sniff";

const enc = (s: string) => new TextEncoder().encode(s);
const timed = <T>(work: () => T): [T, number] => {
  const started = performance.now();
  const result = work();
  return [result, performance.now() - started];
};

/** HEIC/AVIF/CR3 and the sniffer, tried as an attacker would: their scans stay linear in the bytes scanned. */
describe("photo scans stay linear", () => {
  it("32 embedded JPEG headers over 16 MiB of D9 bytes: the end is searched once, not once per candidate", () => {
    const head = new Uint8Array(16 * 1024 * 1024).fill(0xd9);
    const header = Uint8Array.of(0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0, 16, 0, 16, 1, 1, 0x11, 0);
    for (let i = 0; i < 32; i++) head.set(header, i * 32);
    const [found, ms] = timed(() => findEmbeddedJpegs(head));
    expect(found).toHaveLength(32);
    expect(found.every((j) => j.length === null)).toBe(true);
    // ~28 s before (each candidate walked every D9 byte; 64 candidates 55 s); about 1 s now, most of it the one walk.
    expect(ms).toBeLessThan(8_000);
  }, 30_000);

  it("an embedded JPEG still ends at the first FF D9 after its header", () => {
    const jpeg = Uint8Array.of(0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0, 16, 0, 16, 1, 1, 0x11, 0, 0xd9, 1, 0xff, 0xd9);
    const bytes = new Uint8Array([9, 9, ...jpeg, 7, ...jpeg]);
    expect(findEmbeddedJpegs(bytes).map((j) => [j.offset, j.length])).toEqual([
      [2, jpeg.length],
      [3 + jpeg.length, jpeg.length],
    ]);
  });

  it("comments before a non-SVG do not make the sniffer backtrack (22 took 0.3 s, 40 would take hours)", () => {
    // 24 (about 2 s with the old pattern, so a run on the old code fails instead of hanging), then 500.
    expect(timed(() => sniffImage(enc(`${"<!---->".repeat(24)}x`)))[1]).toBeLessThan(100);
    const [kind, ms] = timed(() => sniffImage(enc(`${"<!---->".repeat(500)}x`)));
    expect(kind).toBeNull();
    expect(ms).toBeLessThan(100);
    expect(sniffImage(enc(`\uFEFF<?xml version="1.0"?>\n<!-- a --><!DOCTYPE svg><!----> <svg xmlns="http://www.w3.org/2000/svg"/>`))).toBe("svg");
    expect(sniffImage(enc(`<!-- not closed <svg>`.padEnd(20)))).toBeNull();
    expect(sniffImage(enc(`<SVG\nviewBox="0 0 1 1">`))).toBe("svg");
  });
});
