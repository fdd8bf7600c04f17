import type { Pixels } from "./image-codec";

/**
 * The 64-bit difference hash (dHash) of a picture, for near-duplicates: the picture is averaged into 9 × 8 grey
 * cells and each bit says whether a cell is darker than its right neighbour. Recompression, resizing and small
 * colour changes move few bits; another picture moves about half of them. Alpha is laid on white, as previews are.
 * The loop runs over the picture's own pixels once (a preview: at most 1280 × 1280).
 */
export function differenceHash(p: Pixels): bigint {
  const COLS = 9;
  const ROWS = 8;
  const sums = new Float64Array(COLS * ROWS);
  const counts = new Uint32Array(COLS * ROWS);
  for (let y = 0; y < p.height; y++) {
    const row = Math.min(ROWS - 1, Math.floor((y * ROWS) / p.height));
    for (let x = 0; x < p.width; x++) {
      const i = (y * p.width + x) * 4;
      const a = p.data[i + 3] / 255;
      // Rec. 601 luma, composited on white.
      const luma = (0.299 * p.data[i] + 0.587 * p.data[i + 1] + 0.114 * p.data[i + 2]) * a + 255 * (1 - a);
      const cell = row * COLS + Math.min(COLS - 1, Math.floor((x * COLS) / p.width));
      sums[cell] += luma;
      counts[cell]++;
    }
  }
  let hash = 0n;
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < COLS - 1; c++) {
      const left = sums[r * COLS + c] / Math.max(1, counts[r * COLS + c]);
      const right = sums[r * COLS + c + 1] / Math.max(1, counts[r * COLS + c + 1]);
      hash = (hash << 1n) | (left < right ? 1n : 0n);
    }
  }
  return hash;
}

/** Bits that differ between two 64-bit hashes. */
export function hammingDistance(a: bigint, b: bigint): number {
  let x = (a ^ b) & 0xffff_ffff_ffff_ffffn;
  let n = 0;
  while (x > 0n) {
    x &= x - 1n;
    n++;
  }
  return n;
}

/** Two pictures are near-duplicates at this many differing bits or fewer. */
export const NEAR_DISTANCE = 6;

/**
 * The seven bands the database indexes (migrations/0049_duplicates.sql): bits 0–8, 9–17, …, 45–53 and 54–63. Two
 * hashes at most NEAR_DISTANCE bits apart agree on at least one whole band.
 */
export const PHASH_BANDS: readonly { shift: number; mask: number }[] = [0, 9, 18, 27, 36, 45, 54].map((shift) => ({
  shift,
  mask: shift === 54 ? 1023 : 511,
}));

/** The band values of a hash, in PHASH_BANDS order. */
export function phashBands(hash: bigint): number[] {
  return PHASH_BANDS.map((b) => Number((hash >> BigInt(b.shift)) & BigInt(b.mask)));
}

/** A hash as its unsigned 32-bit halves (what D1 binds and answers exactly), and back. */
export const phashHalves = (hash: bigint) => ({ hi: Number((hash >> 32n) & 0xffff_ffffn), lo: Number(hash & 0xffff_ffffn) });
export const phashOfHalves = (hi: number, lo: number) => (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
