import type { InputAudioTrack, InputVideoTrack, Source } from "mediabunny";
import { ru } from "../../../shared/i18n/ru";
import { ParseLimitError, mib } from "./extract/parse-limit";
import { withinTime } from "./extract/pdf";
import { loadMediabunny } from "./load-mediabunny";

/**
 * Technical data of audio and video (MP4/MOV/M4A, WebM/MKV, MP3, WAV, OGG, FLAC, ADTS) read with mediabunny's
 * demuxers. Every demux is bounded three ways, because mediabunny's Matroska reader has been seen to spin forever
 * on a crafted 518-byte file (an element whose size does not parse makes its resync land on the same element again;
 * with the bytes cached the loop never awaits, so no timer can end it):
 * - a count of the source's slice reads (each loop turn of every demuxer asks the source for bytes; past the budget
 *   the read throws and the demux unwinds),
 * - a count of bytes fetched from storage,
 * - a wall-clock deadline around each step (for the honest but slow file; the read count is what ends a loop).
 * mediabunny itself is loaded by the first probe (load-mediabunny.ts), not with the Worker.
 */

/** Slice reads one probe may make: a two-hour MediaRecorder WebM scanned to its last cluster stays well below. */
export const AV_MAX_READS = 20_000;
/** Bytes fetched from storage by one probe (the scan for the last timestamp of a file without a duration header). */
export const AV_MAX_SOURCE_BYTES = 256 * 1024 * 1024;
/** Wall time of one probe. */
export const AV_TIME_BUDGET_MS = 20_000;
/** Packets looked at for the frame rate and bit rate of a track. */
const STATS_PACKETS = 120;

export interface AvFields {
  /** the container as mediabunny names it: «MP4», «QuickTime File Format», «WebM», «Matroska», «MP3», «WAVE», «Ogg», «FLAC» */
  container: string;
  /** seconds, from the last packet's end (a file without a duration header gets its real length) */
  duration?: number;
  /** codec strings as `<video>`/MSE know them («avc1.64001f», «opus», «pcm-s16») */
  codecs: string[];
  width?: number;
  height?: number;
  /** frames per second, averaged over the first packets */
  frame_rate?: number;
  sample_rate?: number;
  channels?: number;
  /** bits per second over the whole file (size × 8 / duration) */
  bit_rate?: number;
}

/** A mediabunny source's slice reader: every demuxer loop asks it for bytes (not a public API: see guardReads). */
interface SliceReader {
  _read?: (...args: unknown[]) => unknown;
}

class AvBudgetError extends ParseLimitError {}

/**
 * Makes the source throw once it has served `maxReads` slices. mediabunny's Reader calls `source._read` for every
 * slice, cached or not, so this is the one place a loop that never awaits can be stopped. Refuses to probe at all if
 * a future mediabunny renames it (a probe without the guard could hang the queue consumer).
 */
export function guardReads(source: Source, maxReads: number): Source {
  const reader = source as unknown as SliceReader;
  const read = reader._read;
  if (typeof read !== "function") throw new AvBudgetError(ru.av.readBudget(0));
  let reads = 0;
  reader._read = (...args: unknown[]) => {
    if (++reads > maxReads) throw new AvBudgetError(ru.av.readBudget(maxReads));
    return read.apply(source, args);
  };
  return source;
}

/** Reads `length` bytes at `offset` from storage; null past the end. */
export type AvRangeReader = (offset: number, length: number) => Promise<Uint8Array | null>;

export interface AvProbeInput {
  size: number;
  /** the first bytes of the file (the whole file when it is no larger) */
  head: Uint8Array;
  read: AvRangeReader;
  limits?: { maxReads?: number; maxSourceBytes?: number; timeMs?: number };
}

type Mediabunny = Awaited<ReturnType<typeof loadMediabunny>>;

/** A storage-backed source that counts the bytes it fetches and refuses past the budget. */
function storageSource(mb: Mediabunny, input: AvProbeInput, maxBytes: number): Source {
  let fetched = 0;
  return new mb.CustomSource({
    getSize: () => input.size,
    read: async (start, end) => {
      if (end <= input.head.length) return input.head.slice(start, end);
      fetched += end - start;
      if (fetched > maxBytes) throw new AvBudgetError(ru.av.byteBudget(mib(maxBytes)));
      const bytes = await input.read(start, end - start);
      if (!bytes || bytes.length !== end - start) throw new Error("short read");
      return bytes;
    },
    prefetchProfile: "network",
    maxCacheSize: 4 * 1024 * 1024,
  });
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

async function videoFields(track: InputVideoTrack, out: AvFields) {
  const codec = (await track.getCodecParameterString()) ?? (await track.getCodec());
  if (codec) out.codecs.push(codec);
  out.width = await track.getDisplayWidth();
  out.height = await track.getDisplayHeight();
  const stats = await track.computePacketStats(STATS_PACKETS);
  if (stats.packetCount > 1 && Number.isFinite(stats.averagePacketRate) && stats.averagePacketRate > 0) {
    // WebM stores millisecond timestamps: 30 fps averages 29.997, which nobody means.
    out.frame_rate = round(stats.averagePacketRate, 2);
  }
}

async function audioFields(track: InputAudioTrack, out: AvFields) {
  const codec = (await track.getCodecParameterString()) ?? (await track.getCodec());
  if (codec) out.codecs.push(codec);
  out.sample_rate = await track.getSampleRate();
  out.channels = await track.getNumberOfChannels();
}

/**
 * The technical data of an audio or video file, or null when no demuxer recognises it. Throws a ParseLimitError
 * (with «нет данных» in its reason) when the file runs past a budget; any other demuxer error means «not media».
 */
export async function probeAv(input: AvProbeInput): Promise<AvFields | null> {
  const maxReads = input.limits?.maxReads ?? AV_MAX_READS;
  const maxBytes = input.limits?.maxSourceBytes ?? AV_MAX_SOURCE_BYTES;
  const timeMs = input.limits?.timeMs ?? AV_TIME_BUDGET_MS;
  const mb = await loadMediabunny();
  const whole = input.head.length >= input.size;
  const source = guardReads(whole ? new mb.BufferSource(input.head.subarray(0, input.size)) : storageSource(mb, input, maxBytes), maxReads);
  const inputFile = new mb.Input({ source, formats: mb.ALL_FORMATS });
  const deadline = Date.now() + timeMs;
  const step = <T>(work: Promise<T>) =>
    withinTime(work, Math.max(1, deadline - Date.now()), () => new AvBudgetError(ru.av.timeBudget(Math.round(timeMs / 1000))));
  try {
    let format;
    try {
      format = await step(inputFile.getFormat());
    } catch (error) {
      if (error instanceof AvBudgetError) throw error;
      return null; // no demuxer recognises the bytes
    }
    const out: AvFields = { container: format.name, codecs: [] };
    try {
      const video = await step(inputFile.getPrimaryVideoTrack());
      const audio = await step(inputFile.getPrimaryAudioTrack());
      if (!video && !audio) return null;
      if (video) await step(videoFields(video, out));
      if (audio) await step(audioFields(audio, out));
      // The real length: the end of the last packet, so a MediaRecorder WebM without a duration header gets one.
      const duration = await step(inputFile.computeDuration());
      if (Number.isFinite(duration) && duration > 0) {
        out.duration = round(duration, 3);
        out.bit_rate = Math.round((input.size * 8) / duration);
      }
    } catch (error) {
      if (error instanceof AvBudgetError) throw error;
      // A track mediabunny cannot fully read still leaves the container named; nothing else is guessed.
      if (out.codecs.length === 0) return null;
    }
    return out;
  } finally {
    inputFile.dispose();
  }
}
