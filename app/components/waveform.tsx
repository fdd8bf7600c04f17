import { useEffect, useRef, useState } from "react";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { decodePeaks, drawPeaks, MAX_DECODE_BYTES, storeDecodedPeaks, storedWaveform, waveformThumb, type Waveform as Peaks } from "../lib/audio-peaks";
import { hasPreview, storeHealed } from "../lib/heal-preview";

const COLORS = { wave: "#4a5468", played: "#7aa2ff" };
const HEIGHT = 72;

/**
 * The peaks of an audio version: the stored ones (GET /api/asset/waveform/{id}/{version}), else — when this caller
 * may fetch the original and it is small enough — decoded here with `decodeAudioData`. A browser that decoded them
 * stores them (a heal: the server keeps the first and draws the missing pictures); when the server refuses, it
 * heals the file's missing grid thumbnail with its own picture of them (decision 029).
 */
function usePeaks(asset: { id: string; version: number; variantId: string; mime: string; bytes: number | null }, mayFetch: boolean) {
  const [state, setState] = useState<{ peaks: Peaks | null; why: string | null } | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    setState(null);
    (async () => {
      const stored = await storedWaveform(asset.id, asset.version, controller.signal);
      if (stored) return setState({ peaks: stored, why: null });
      if (!mayFetch) return setState({ peaks: null, why: null });
      if (asset.bytes && asset.bytes > MAX_DECODE_BYTES) return setState({ peaks: null, why: ru.library.waveformTooLarge });
      const { link } = await apiRequest<{ link: string }>(`/api/asset/content/play-variant/${asset.variantId}`, {
        method: "POST",
        query: { a: asset.id },
        body: {},
        toast: false,
      });
      const response = await fetch(link, { signal: controller.signal });
      const peaks = response.ok ? await decodePeaks(await response.arrayBuffer()) : null;
      if (controller.signal.aborted) return;
      setState({ peaks, why: peaks ? null : ru.library.unreadableFormat });
      if (peaks) {
        // Stored peaks spare the next viewer the decode, and the server draws them as the missing pictures.
        if (await storeDecodedPeaks(asset.id, asset.version, peaks)) return;
        const lacksThumb = !(await hasPreview(asset.id, "thumb").catch(() => true));
        const thumb = lacksThumb ? await waveformThumb(peaks.peaks) : null;
        if (thumb) await storeHealed(asset.id, asset.version, "thumb", thumb);
      }
    })().catch(() => !controller.signal.aborted && setState({ peaks: null, why: null }));
    return () => controller.abort();
  }, [asset.id, asset.version, asset.variantId, asset.mime, asset.bytes, mayFetch]);
  return state;
}

/**
 * The waveform under the audio player: a canvas of the peaks, the played part highlighted as the player moves, a
 * click seeks there. Says why when there is none («Превью недоступно: …»).
 */
export function Waveform({
  asset,
  media,
  mayFetch,
}: {
  asset: { id: string; version: number; variantId: string; mime: string; bytes: number | null };
  media: HTMLMediaElement | null;
  /** whether the caller may fetch the original (to decode it here when no peaks are stored) */
  mayFetch: boolean;
}) {
  const state = usePeaks(asset, mayFetch);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [played, setPlayed] = useState(0);

  useEffect(() => {
    if (!media) return;
    let frame = 0;
    const update = () => setPlayed(media.duration > 0 ? media.currentTime / media.duration : 0);
    const tick = () => {
      update();
      frame = requestAnimationFrame(tick);
    };
    const play = () => (frame = requestAnimationFrame(tick));
    const stop = () => {
      cancelAnimationFrame(frame);
      update();
    };
    media.addEventListener("play", play);
    media.addEventListener("pause", stop);
    media.addEventListener("seeked", update);
    media.addEventListener("ended", stop);
    return () => {
      cancelAnimationFrame(frame);
      media.removeEventListener("play", play);
      media.removeEventListener("pause", stop);
      media.removeEventListener("seeked", update);
      media.removeEventListener("ended", stop);
    };
  }, [media]);

  useEffect(() => {
    const element = canvas.current;
    const peaks = state?.peaks?.peaks;
    if (!element || !peaks) return;
    const draw = () => {
      const width = Math.max(1, Math.round(element.clientWidth));
      const ratio = window.devicePixelRatio || 1;
      element.width = Math.round(width * ratio);
      element.height = Math.round(HEIGHT * ratio);
      const g = element.getContext("2d");
      if (!g) return;
      g.setTransform(ratio, 0, 0, ratio, 0, 0);
      drawPeaks(g, peaks, width, HEIGHT, COLORS, played);
    };
    draw();
    const observer = new ResizeObserver(draw);
    observer.observe(element);
    return () => observer.disconnect();
  }, [state, played]);

  if (!state) return <div className="waveform waveform-empty muted">{ru.common.loading}</div>;
  if (!state.peaks) {
    return state.why ? (
      <div className="waveform waveform-empty muted" data-testid="waveform-unavailable">
        {ru.library.previewUnavailable(state.why)}
      </div>
    ) : null;
  }
  const seek = (e: React.MouseEvent<HTMLCanvasElement>) => {
    if (!media) return;
    const box = e.currentTarget.getBoundingClientRect();
    const duration = media.duration > 0 ? media.duration : state.peaks!.durationSec;
    media.currentTime = Math.max(0, Math.min(1, (e.clientX - box.left) / box.width)) * duration;
    setPlayed(media.currentTime / duration);
  };
  return (
    <canvas
      ref={canvas}
      className="waveform"
      data-testid="waveform"
      data-peaks={state.peaks.peaks.length}
      style={{ height: HEIGHT }}
      onClick={seek}
      onKeyDown={(e) => {
        if (!media || (e.key !== "ArrowLeft" && e.key !== "ArrowRight")) return;
        e.preventDefault();
        media.currentTime = Math.max(0, media.currentTime + (e.key === "ArrowLeft" ? -5 : 5));
      }}
      tabIndex={0}
      role="slider"
      aria-label={ru.library.waveform}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(played * 100)}
    />
  );
}
