/**
 * The browser's video proxy maker (decision 029, «The proxy maker»): mediabunny reads the container (MP4, MOV,
 * WebM, MKV, MPEG-TS …) with Range requests on the signed play link, decodes through WebCodecs and writes a small
 * WebM (VP9, else VP8) or MP4 (H.264) that every `<video>` plays. A `.client` module reached only through a dynamic
 * import: mediabunny loads the first time a browser meets a video it cannot play, never with the app or the Worker.
 */
import {
  ALL_FORMATS,
  Conversion,
  Input,
  Mp4OutputFormat,
  Output,
  Quality,
  StreamTarget,
  UrlSource,
  WebMOutputFormat,
  canEncodeAudio,
  canEncodeVideo,
  type StreamTargetChunk,
  type VideoCodec,
} from "mediabunny";
import { ru } from "../i18n/ru";
import { PROBE_DEADLINE_MS, probeVideo } from "./video-probe";
import {
  VIDEO_PROXY_MAX_BYTES,
  VIDEO_PROXY_MAX_MILLIS,
  VIDEO_PROXY_MAX_SOURCE_SECONDS,
  VIDEO_PROXY_MAX_WIDTH,
  type VideoProxyMime,
} from "../../workers/services/library/pure";

/** Video bitrate of a proxy: 640 px wide is watchable at this rate, and ten minutes stay near 60 MiB. */
const VIDEO_BITS_PER_SECOND = 800_000;
const AUDIO_BITS_PER_SECOND = 96_000;

/** Codec names as people know them, for «браузер не умеет декодировать …». */
const CODEC_NAMES: Record<string, string> = {
  avc: "H.264",
  hevc: "HEVC (H.265)",
  vp8: "VP8",
  vp9: "VP9",
  av1: "AV1",
  prores: "ProRes",
};

export type ProxyMade = { ok: true; blob: Blob; mime: VideoProxyMime; width: number } | { ok: false; reason: string };

/** Why a conversion was stopped by one of our limits (its Russian reason). */
class LimitReached extends Error {}

/** The first encoder this browser has, in the order of preference: WebM VP9, WebM VP8, MP4 H.264. */
async function pickEncoder(width: number, height: number): Promise<{ codec: VideoCodec; mime: VideoProxyMime } | null> {
  const config = { width, height, bitrate: VIDEO_BITS_PER_SECOND };
  for (const codec of ["vp9", "vp8"] as const) if (await canEncodeVideo(codec, config)) return { codec, mime: "video/webm" };
  if (await canEncodeVideo("avc", config)) return { codec: "avc", mime: "video/mp4" };
  return null;
}

/** An even width ≤ `VIDEO_PROXY_MAX_WIDTH` (H.264 wants even sizes) and its aspect-kept height. */
function proxySize(width: number, height: number): { width: number; height: number } {
  const w = Math.max(2, Math.min(VIDEO_PROXY_MAX_WIDTH, width) & ~1);
  return { width: w, height: Math.max(2, Math.round((height * w) / Math.max(1, width)) & ~1) };
}

/**
 * Converts the video at `link` into a proxy, calling `onProgress` with 0..1. Answers the proxy, or the Russian
 * reason none was made: the container is unreadable, the video codec is not decodable here (ProRes, HEVC without
 * platform support), the source is longer than the cap, the output would pass the size cap, or it took too long.
 */
export async function makeVideoProxy(link: string, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<ProxyMade> {
  if (typeof VideoDecoder === "undefined" || typeof VideoEncoder === "undefined")
    return { ok: false, reason: ru.library.videoProxy.noWebCodecs };
  // The container is read first in a Web Worker with a deadline: a looping demuxer ends there, not in this tab.
  const absolute = new URL(link, window.location.href);
  const probe = await probeVideo(absolute.href, signal);
  if (!probe.ok) {
    if (probe.why === "timeout") return { ok: false, reason: ru.techAv.probeTimeout(PROBE_DEADLINE_MS / 1000) };
    return { ok: false, reason: probe.why === "noVideoTrack" ? ru.library.videoProxy.noVideoTrack : ru.library.unreadableFormat };
  }
  const input = new Input({ source: new UrlSource(absolute), formats: ALL_FORMATS });
  try {
    let track;
    try {
      track = await input.getPrimaryVideoTrack();
    } catch {
      return { ok: false, reason: ru.library.unreadableFormat };
    }
    if (!track) return { ok: false, reason: ru.library.videoProxy.noVideoTrack };
    if (!(await track.canDecode())) {
      const name = track.codec ? CODEC_NAMES[track.codec] ?? track.codec : ru.library.videoProxy.unknownCodec;
      return { ok: false, reason: ru.library.videoProxy.cannotDecode(name) };
    }
    const seconds = await input.computeDuration();
    if (seconds > VIDEO_PROXY_MAX_SOURCE_SECONDS)
      return { ok: false, reason: ru.library.videoProxy.tooLong(VIDEO_PROXY_MAX_SOURCE_SECONDS / 60) };
    const size = proxySize(track.displayWidth, track.displayHeight);
    const encoder = await pickEncoder(size.width, size.height);
    if (!encoder) return { ok: false, reason: ru.library.videoProxy.noEncoder };
    const audioCodec = (await canEncodeAudio("opus", { numberOfChannels: 2, sampleRate: 48_000, bitrate: AUDIO_BITS_PER_SECOND }))
      ? "opus"
      : null;

    // The output is collected by position (muxers go back to patch sizes and cues) and capped as it grows.
    const chunks: StreamTargetChunk[] = [];
    let length = 0;
    let stopped: string | null = null;
    const writable = new WritableStream<StreamTargetChunk>({
      write(chunk) {
        length = Math.max(length, chunk.position + chunk.data.byteLength);
        if (length > VIDEO_PROXY_MAX_BYTES) {
          stopped ??= ru.library.videoProxy.tooLarge(VIDEO_PROXY_MAX_BYTES / 1024 / 1024);
          throw new LimitReached(stopped);
        }
        chunks.push(chunk);
      },
    });
    const output = new Output({
      format: encoder.mime === "video/webm" ? new WebMOutputFormat() : new Mp4OutputFormat({ fastStart: "in-memory" }),
      target: new StreamTarget(writable),
    });
    const conversion = await Conversion.init({
      input,
      output,
      tracks: "primary",
      video: {
        width: size.width,
        height: size.height,
        fit: "contain",
        codec: encoder.codec,
        quality: new Quality({ bitrate: VIDEO_BITS_PER_SECOND }),
        forceTranscode: true,
      },
      audio: audioCodec ? { codec: audioCodec, quality: new Quality({ bitrate: AUDIO_BITS_PER_SECOND }) } : { discard: true },
      showWarnings: false,
    });
    if (!conversion.isValid) return { ok: false, reason: ru.library.videoProxy.failed };
    conversion.onProgress = (fraction) => onProgress(Math.min(1, Math.max(0, fraction)));
    const stop = (reason: string) => {
      stopped ??= reason;
      void conversion.cancel();
    };
    const timer = setTimeout(() => stop(ru.library.videoProxy.tooSlow(VIDEO_PROXY_MAX_MILLIS / 60_000)), VIDEO_PROXY_MAX_MILLIS);
    const onAbort = () => stop(ru.library.videoProxy.failed);
    signal?.addEventListener("abort", onAbort);
    try {
      await conversion.execute();
    } catch (error) {
      if (error instanceof LimitReached) return { ok: false, reason: error.message };
      if (stopped) return { ok: false, reason: stopped };
      console.warn("video proxy failed", error);
      return { ok: false, reason: ru.library.videoProxy.failed };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    if (stopped) return { ok: false, reason: stopped };
    const bytes = new Uint8Array(length);
    for (const chunk of chunks) bytes.set(chunk.data, chunk.position);
    return { ok: true, blob: new Blob([bytes], { type: encoder.mime }), mime: encoder.mime, width: size.width };
  } finally {
    input.dispose();
  }
}
