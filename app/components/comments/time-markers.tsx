import { useEffect, useState } from "react";
import { createPortal } from "react-dom";
import { ru } from "../../i18n/ru";
import { formatMoment } from "../../lib/comments-api";
import { useStageSlot } from "./stage-slot";

/** The comments' moments as markers on a strip under the player: a click (or Enter) seeks there. */
export function TimeMarkers({ media, marks, onSeek }: { media: HTMLMediaElement; marks: { id: string; start: number; text: string }[]; onSeek: (id: string, t: number) => void }) {
  const slot = useStageSlot("comment-timeline", "after");
  const [duration, setDuration] = useState(Number.isFinite(media.duration) ? media.duration : 0);
  const [now, setNow] = useState(media.currentTime);
  useEffect(() => {
    const onMeta = () => setDuration(Number.isFinite(media.duration) ? media.duration : 0);
    const onTime = () => setNow(media.currentTime);
    media.addEventListener("loadedmetadata", onMeta);
    media.addEventListener("durationchange", onMeta);
    media.addEventListener("timeupdate", onTime);
    onMeta();
    return () => {
      media.removeEventListener("loadedmetadata", onMeta);
      media.removeEventListener("durationchange", onMeta);
      media.removeEventListener("timeupdate", onTime);
    };
  }, [media]);
  if (!slot || duration <= 0) return null;
  return createPortal(
    <div className="timeline-strip" data-testid="comment-timeline">
      <div className="timeline-now" style={{ left: `${Math.min(100, (now / duration) * 100)}%` }} />
      {marks.map((m) => (
        <button
          key={m.id}
          type="button"
          className="timeline-mark"
          style={{ left: `${Math.min(100, (m.start / duration) * 100)}%` }}
          aria-label={ru.commentsUi.marker(formatMoment(m.start))}
          title={`${formatMoment(m.start)} — ${m.text.slice(0, 80)}`}
          onClick={() => onSeek(m.id, m.start)}
        />
      ))}
    </div>,
    slot,
  );
}
