import type { Pixels } from "./image-codec";

/** Picture sizes of a waveform preview: 2:1, inside the SPEC boxes (thumb 320 × 320, medium 1280 × 1280). */
export const WAVEFORM_IMAGE_SIZES = { thumb: { width: 320, height: 160 }, medium: { width: 1280, height: 640 } } as const;

const BACKGROUND = [0x1b, 0x1f, 0x2a];
const WAVE = [0x5f, 0xb3, 0xff];
const MIDLINE = [0x3a, 0x42, 0x55];

/**
 * Draws peaks as a waveform mirrored around the middle line, one column per pixel (the largest peak of the buckets
 * that fall in it), on the dark theme's background; pure, so it is unit-tested in Node.
 */
export function renderWaveform(peaks: ArrayLike<number>, width: number, height: number): Pixels {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data[i * 4] = BACKGROUND[0];
    data[i * 4 + 1] = BACKGROUND[1];
    data[i * 4 + 2] = BACKGROUND[2];
    data[i * 4 + 3] = 255;
  }
  const mid = Math.floor(height / 2);
  const half = Math.max(1, Math.floor(height * 0.45));
  const n = peaks.length;
  for (let x = 0; x < width; x++) {
    const from = Math.floor((x * n) / width);
    const to = Math.max(from + 1, Math.floor(((x + 1) * n) / width));
    let peak = 0;
    for (let i = from; i < to && i < n; i++) peak = Math.max(peak, Number(peaks[i]) || 0);
    const extent = Math.max(0, Math.min(half, Math.round(Math.min(1, peak) * half)));
    for (let y = mid - extent; y <= mid + extent; y++) {
      const at = (y * width + x) * 4;
      const color = extent === 0 ? MIDLINE : WAVE;
      data[at] = color[0];
      data[at + 1] = color[1];
      data[at + 2] = color[2];
    }
  }
  return { data, width, height };
}
