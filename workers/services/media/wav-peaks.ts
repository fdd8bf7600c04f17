import { ru } from "../../../shared/i18n/ru";

/** What a WAV's `fmt ` and `data` chunks say. */
export interface WavFormat {
  encoding: "pcm" | "float";
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** bytes of one frame (all channels of one sample) */
  blockAlign: number;
  /** where the samples start in the file, and how many bytes of them there are (cut to the file's size) */
  dataOffset: number;
  dataBytes: number;
  durationSec: number;
}

/** A WAV this maker cannot read; `reason` is Russian, for the preview stage. */
export class WavError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "WavError";
  }
}

const u16 = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8);
const u32 = (b: Uint8Array, i: number) => (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
const tag = (b: Uint8Array, i: number) => String.fromCharCode(b[i], b[i + 1], b[i + 2], b[i + 3]);

/** True when the bytes start like a WAV (RIFF/RF64 … WAVE). */
export function looksLikeWav(head: Uint8Array): boolean {
  return head.length >= 12 && (tag(head, 0) === "RIFF" || tag(head, 0) === "RF64") && tag(head, 8) === "WAVE";
}

/**
 * Reads a WAV's format from its first bytes (the `fmt ` chunk and the start of `data` must be in `head`). PCM 8, 16,
 * 24 and 32 bit and IEEE float 32/64, WAVE_FORMAT_EXTENSIBLE with either; a `data` size larger than the file (or the
 * 0xFFFFFFFF of a streamed recording) is cut to what the file holds.
 */
export function parseWav(head: Uint8Array, fileSize: number): WavFormat {
  if (!looksLikeWav(head)) throw new WavError(ru.makers.notWhatItSays("WAV"));
  let fmt: Omit<WavFormat, "dataOffset" | "dataBytes" | "durationSec"> | null = null;
  let at = 12;
  while (at + 8 <= head.length) {
    const id = tag(head, at);
    const size = u32(head, at + 4);
    const body = at + 8;
    if (id === "fmt ") {
      if (body + 16 > head.length) break;
      let code = u16(head, body);
      if (code === 0xfffe && size >= 40 && body + 26 <= head.length) code = u16(head, body + 24); // the sub-format GUID's first two bytes
      const channels = u16(head, body + 2);
      const sampleRate = u32(head, body + 4);
      const blockAlign = u16(head, body + 12);
      const bitsPerSample = u16(head, body + 14);
      const encoding = code === 1 ? "pcm" : code === 3 ? "float" : null;
      if (!encoding) throw new WavError(ru.makers.wavUnsupported(`кодек 0x${code.toString(16)}`));
      const bytesPerSample = bitsPerSample / 8;
      const valid =
        channels >= 1 &&
        channels <= 32 &&
        sampleRate >= 1 &&
        sampleRate <= 1_536_000 &&
        (encoding === "pcm" ? [8, 16, 24, 32].includes(bitsPerSample) : [32, 64].includes(bitsPerSample)) &&
        blockAlign === channels * bytesPerSample;
      if (!valid) throw new WavError(ru.makers.wavUnsupported(`${channels} кан., ${bitsPerSample} бит, блок ${blockAlign}`));
      fmt = { encoding, channels, sampleRate, bitsPerSample, blockAlign };
    } else if (id === "data") {
      if (!fmt) throw new WavError(ru.makers.corrupt("WAV"));
      const present = Math.max(0, fileSize - body);
      const dataBytes = Math.floor(Math.min(size, present) / fmt.blockAlign) * fmt.blockAlign;
      if (dataBytes === 0) throw new WavError(ru.makers.corrupt("WAV"));
      return { ...fmt, dataOffset: body, dataBytes, durationSec: dataBytes / fmt.blockAlign / fmt.sampleRate };
    }
    if (size > fileSize) break;
    at = body + size + (size & 1);
  }
  throw new WavError(ru.makers.corrupt("WAV"));
}

/**
 * Peaks per bucket over a WAV's samples, fed in pieces of any length (a frame cut between two pieces is carried
 * over). `add(bytes, frameIndex)` takes samples starting at frame `frameIndex`, so the sampled mode can feed windows
 * spread over the file; buckets never reached by a window take the nearest reached one's value.
 */
export class PeakAccumulator {
  readonly peaks: Float32Array;
  private readonly reached: Uint8Array;
  private readonly totalFrames: number;
  private carry = new Uint8Array(0);
  private nextFrame = 0;

  constructor(private readonly format: WavFormat, buckets: number) {
    this.peaks = new Float32Array(buckets);
    this.reached = new Uint8Array(buckets);
    this.totalFrames = Math.max(1, format.dataBytes / format.blockAlign);
  }

  /** Samples from frame `frame` on (default: right after the previous piece). */
  add(piece: Uint8Array, frame = this.nextFrame) {
    // Carried bytes are the start of frame `nextFrame`: joined only when this piece continues it.
    let bytes = piece;
    if (frame === this.nextFrame && this.carry.length > 0) {
      bytes = new Uint8Array(this.carry.length + piece.length);
      bytes.set(this.carry);
      bytes.set(piece, this.carry.length);
    } else if (frame !== this.nextFrame) this.carry = new Uint8Array(0);
    const { blockAlign, channels, bitsPerSample, encoding } = this.format;
    const frames = Math.floor(bytes.length / blockAlign);
    this.carry = bytes.slice(frames * blockAlign);
    const view = new DataView(bytes.buffer, bytes.byteOffset, frames * blockAlign);
    const buckets = this.peaks.length;
    const bytesPer = bitsPerSample / 8;
    let bucket = Math.min(buckets - 1, Math.floor((frame * buckets) / this.totalFrames));
    let bucketEnd = Math.ceil(((bucket + 1) * this.totalFrames) / buckets);
    let peak = 0;
    for (let f = 0; f < frames; f++) {
      const absolute = frame + f;
      if (absolute >= bucketEnd) {
        this.flush(bucket, peak);
        peak = 0;
        bucket = Math.min(buckets - 1, Math.floor((absolute * buckets) / this.totalFrames));
        bucketEnd = Math.ceil(((bucket + 1) * this.totalFrames) / buckets);
      }
      const base = f * blockAlign;
      for (let c = 0; c < channels; c++) {
        const at = base + c * bytesPer;
        let v: number;
        if (encoding === "float") v = bitsPerSample === 32 ? view.getFloat32(at, true) : view.getFloat64(at, true);
        else if (bitsPerSample === 16) v = view.getInt16(at, true) / 32768;
        else if (bitsPerSample === 8) v = (view.getUint8(at) - 128) / 128;
        else if (bitsPerSample === 24) v = ((view.getUint8(at) | (view.getUint8(at + 1) << 8) | (view.getInt8(at + 2) << 16)) as number) / 8388608;
        else v = view.getInt32(at, true) / 2147483648;
        if (v < 0) v = -v;
        if (v > peak) peak = v === v ? v : peak; // NaN in float data is ignored
      }
    }
    if (frames > 0) this.flush(bucket, peak);
    this.nextFrame = frame + frames;
  }

  private flush(bucket: number, peak: number) {
    const p = Math.min(1, peak);
    if (!this.reached[bucket] || p > this.peaks[bucket]) this.peaks[bucket] = p;
    this.reached[bucket] = 1;
  }

  /** The peaks, with buckets no window reached filled from the nearest reached one. */
  result(): Float32Array {
    const n = this.peaks.length;
    let last = -1;
    for (let i = 0; i < n; i++) {
      if (this.reached[i]) {
        for (let j = last + 1; j < i; j++) this.peaks[j] = last >= 0 && j - last < i - j ? this.peaks[last] : this.peaks[i];
        last = i;
      }
    }
    if (last >= 0) for (let j = last + 1; j < n; j++) this.peaks[j] = this.peaks[last];
    return this.peaks;
  }
}
