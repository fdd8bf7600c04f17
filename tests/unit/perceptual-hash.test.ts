import { describe, expect, it } from "vitest";
import { NEAR_DISTANCE, differenceHash, hammingDistance, phashBands, phashHalves, phashOfHalves } from "../../workers/services/imaging/perceptual-hash";
import { filesToHash, resolveDuplicates, HASH_MAX_FILE_BYTES, type DuplicateMatch } from "../../app/lib/upload-engine/duplicate-check";
import type { PickedFile } from "../../app/lib/upload-engine/pick";

/** A seeded 64-bit value (xorshift). */
function* randoms(seed = 0x9e3779b97f4a7c15n) {
  let x = seed;
  for (;;) {
    x ^= (x << 13n) & 0xffff_ffff_ffff_ffffn;
    x ^= x >> 7n;
    x ^= (x << 17n) & 0xffff_ffff_ffff_ffffn;
    yield x;
  }
}

describe("difference hash and its bands", () => {
  it("counts differing bits, and round-trips through the 32-bit halves D1 stores", () => {
    expect(hammingDistance(0n, 0xffff_ffff_ffff_ffffn)).toBe(64);
    expect(hammingDistance(0b1011n, 0b0001n)).toBe(2);
    const h = 0xfedc_ba98_7654_3210n;
    const { hi, lo } = phashHalves(h);
    expect([hi, lo]).toEqual([0xfedcba98, 0x76543210]);
    expect(phashOfHalves(hi, lo)).toBe(h);
  });

  it("two hashes at most 6 bits apart always share a band (1,000 random pairs); the bands cover all 64 bits", () => {
    const rng = randoms();
    for (let i = 0; i < 1000; i++) {
      const a = rng.next().value as bigint;
      let b = a;
      const flips = 1 + (i % NEAR_DISTANCE);
      for (let f = 0; f < flips; f++) b ^= 1n << BigInt(Number((rng.next().value as bigint) % 64n));
      const [ba, bb] = [phashBands(a), phashBands(b)];
      expect(ba.some((v, k) => v === bb[k])).toBe(true);
    }
    expect(phashBands(0xffff_ffff_ffff_ffffn)).toEqual([511, 511, 511, 511, 511, 511, 1023]);
  });

  it("hashes a left-to-right gradient as all ones, its mirror as all zeros, and ignores a uniform brightening", () => {
    const picture = (f: (x: number) => number) => {
      const width = 90;
      const height = 40;
      const data = new Uint8ClampedArray(width * height * 4);
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([f(x), f(x), f(x), 255], (y * width + x) * 4);
      return { data, width, height };
    };
    expect(differenceHash(picture((x) => x * 2))).toBe(0xffff_ffff_ffff_ffffn);
    expect(differenceHash(picture((x) => 200 - x * 2))).toBe(0n);
    expect(differenceHash(picture((x) => x * 2 + 30))).toBe(0xffff_ffff_ffff_ffffn);
  });
});

describe("the upload panel's duplicate rule", () => {
  const file = (name: string, size: number): PickedFile => ({ file: new File([new Uint8Array(Math.min(size, 16))], name), folders: [] });
  const sized = (name: string, size: number): PickedFile => {
    const p = file(name, size);
    Object.defineProperty(p.file, "size", { value: size });
    return p;
  };

  it("hashes new, non-empty files within the per-file budget; never a new version", () => {
    const small = sized("a.pdf", 10);
    const huge = sized("b.mov", HASH_MAX_FILE_BYTES + 1);
    const empty = sized("c.txt", 0);
    const version = { ...sized("d.pdf", 10), versionOf: "f".repeat(32) };
    expect(filesToHash([small, huge, empty, version])).toEqual([small]);
  });

  it("applies each answer: open skips the file, anyway keeps it, version targets the first match, closed skips", async () => {
    const [a, b, c, d, e] = ["a", "b", "c", "d", "e"].map((n) => file(`${n}.pdf`, 10));
    const match = (id: string): DuplicateMatch => ({ asset_id: id, name: `${id}.pdf`, mime: "application/pdf", size: 10, version: 1, folder: null, preview: null });
    const found = new Map([
      [a, [match("1".repeat(32)), match("2".repeat(32))]],
      [b, [match("3".repeat(32))]],
      [c, [match("4".repeat(32))]],
      [d, [match("5".repeat(32))]],
    ]);
    const answers = { "a.pdf": "version", "b.pdf": "anyway", "c.pdf": "open", "d.pdf": null } as const;
    const { queue, open } = await resolveDuplicates([a, b, c, d, e], found, async (name) => answers[name as keyof typeof answers]);
    expect(queue.map((p) => [p.file.name, p.versionOf ?? null])).toEqual([
      ["a.pdf", "1".repeat(32)],
      ["b.pdf", null],
      ["e.pdf", null],
    ]);
    expect(open.map((m) => m.asset_id)).toEqual(["4".repeat(32)]);
  });
});
