/**
 * An audio file's waveform, shared by the Worker (which computes it for WAV and stores what a browser posts for
 * other formats) and the UI (which draws it). Served by `GET /api/asset/waveform/{id}/{version}`, accepted by
 * `POST /api/asset/waveform/{id}` (decision 029).
 *
 * `peaks[i]` is the largest absolute sample (0..1, all channels) in bucket i; the buckets split the whole duration
 * evenly, so bucket i covers `[i, i + 1) * durationSec / peaks.length` seconds.
 */
export interface Waveform {
  version: 1;
  /** Samples per second of the source (informational: peaks are per bucket, not per sample). */
  sampleRate: number;
  durationSec: number;
  peaks: number[];
}

/** Buckets the Worker computes (and a browser should post): enough for a 1280-px-wide picture. */
export const WAVEFORM_BUCKETS = 1000;
/** Most buckets accepted from a browser. */
export const WAVEFORM_MAX_BUCKETS = 4000;

/** Peaks rounded to 3 decimals: the JSON of 1,000 buckets stays near 6 KB. */
export function roundPeaks(peaks: ArrayLike<number>): number[] {
  return Array.from(peaks, (p) => Math.round(Math.min(1, Math.max(0, p)) * 1000) / 1000);
}
