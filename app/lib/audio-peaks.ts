import { apiRequest } from "./api-client";
import { ApiError } from "./api-error";
import { announceHealed } from "./heal-events";
import type { Waveform } from "../../shared/waveform";

/**
 * An audio file's peaks, as the Worker serves and accepts them (`GET`/`POST /api/asset/waveform/…`): the shape of
 * shared/waveform.ts, made by the in-Worker WAV maker or sent by a browser; `peaks` are 0..1 per column.
 */
export type { Waveform } from "../../shared/waveform";

/** How many columns a browser computes: enough for a 1440 px viewer at one column per 2 px. */
export const PEAK_COLUMNS = 720;

/** Audio files a browser decodes for peaks only up to this size (the whole file is read into memory). */
export const MAX_DECODE_BYTES = 64 * 1024 * 1024;

/** The stored peaks of a version, or null when none were made yet (404) or the answer is not peaks. */
export async function storedWaveform(assetId: string, version: number, signal?: AbortSignal): Promise<Waveform | null> {
  try {
    const body = await apiRequest<Waveform>(`/api/asset/waveform/${assetId}/${version}`, { toast: false, signal });
    return body && Array.isArray(body.peaks) && body.peaks.length > 0 ? body : null;
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

/**
 * Peaks of decoded audio: per column, the largest absolute sample over all channels, normalised so the loudest
 * column is 1 (a quiet recording still shows its shape).
 */
export function peaksOf(channels: Float32Array[], columns = PEAK_COLUMNS): number[] {
  const length = channels[0]?.length ?? 0;
  if (length === 0) return [];
  const n = Math.min(columns, length);
  const peaks = new Array<number>(n).fill(0);
  const per = length / n;
  for (const data of channels) {
    for (let c = 0; c < n; c++) {
      const from = Math.floor(c * per);
      const to = Math.min(length, Math.floor((c + 1) * per));
      let max = peaks[c];
      for (let i = from; i < to; i++) {
        const v = Math.abs(data[i]);
        if (v > max) max = v;
      }
      peaks[c] = max;
    }
  }
  const loudest = Math.max(...peaks);
  return loudest > 0 ? peaks.map((p) => Math.round((p / loudest) * 1000) / 1000) : peaks;
}

/** Decodes the file in this browser (MP3, AAC, OGG, FLAC, WAV: what `decodeAudioData` reads) and answers its peaks. */
export async function decodePeaks(bytes: ArrayBuffer): Promise<Waveform | null> {
  const context = new OfflineAudioContext(1, 1, 44_100);
  let audio: AudioBuffer;
  try {
    audio = await context.decodeAudioData(bytes);
  } catch {
    return null;
  }
  const channels = Array.from({ length: audio.numberOfChannels }, (_, i) => audio.getChannelData(i));
  return { version: 1, sampleRate: Math.round(audio.sampleRate), durationSec: audio.duration, peaks: peaksOf(channels) };
}

/**
 * Stores peaks this browser decoded, so the next view reads them instead of decoding again, and the server draws
 * them as the version's missing thumb and medium pictures. Posted as a heal (decision 029), like every picture a
 * viewing browser stores: `read` suffices, the first peaks of a version win (409 afterwards), rate-limited.
 * Answers whether they were stored.
 */
export async function storeDecodedPeaks(assetId: string, version: number, waveform: Waveform): Promise<boolean> {
  try {
    await apiRequest(`/api/asset/waveform/${assetId}`, { method: "POST", body: waveform, query: { version, heal: "true" }, toast: false });
    announceHealed(assetId);
    return true;
  } catch {
    return false;
  }
}

/**
 * Draws peaks as mirrored bars filling `width` × `height`; columns left of `played` (0..1) in `playedColor`.
 * Several peaks share a bar when there are more peaks than bars.
 */
export function drawPeaks(
  g: CanvasRenderingContext2D,
  peaks: number[],
  width: number,
  height: number,
  colors: { wave: string; played: string; background?: string },
  played = 0,
) {
  g.clearRect(0, 0, width, height);
  if (colors.background) {
    g.fillStyle = colors.background;
    g.fillRect(0, 0, width, height);
  }
  const bar = 2;
  const gap = 1;
  const bars = Math.max(1, Math.floor(width / (bar + gap)));
  const mid = height / 2;
  for (let b = 0; b < bars; b++) {
    const from = Math.floor((b / bars) * peaks.length);
    const to = Math.max(from + 1, Math.floor(((b + 1) / bars) * peaks.length));
    let peak = 0;
    for (let i = from; i < to && i < peaks.length; i++) peak = Math.max(peak, peaks[i]);
    const h = Math.max(1, peak * (height - 4));
    g.fillStyle = b / bars < played ? colors.played : colors.wave;
    g.fillRect(b * (bar + gap), mid - h / 2, bar, h);
  }
}

/** The waveform as a 320 × 160 JPEG: an audio file's grid thumbnail, healed by the browser that drew it. */
export function waveformThumb(peaks: number[]): Promise<Blob | null> {
  const canvas = document.createElement("canvas");
  canvas.width = 320;
  canvas.height = 160;
  drawPeaks(canvas.getContext("2d")!, peaks, 320, 160, { wave: "#7aa2ff", played: "#7aa2ff", background: "#1b1f2a" });
  return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.85));
}
