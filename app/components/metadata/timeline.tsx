import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { GuardedButton } from "../guarded-button";
import { Icon } from "../icons";
import * as api from "./api";
import { draftError, formatFieldValue, ValueInput } from "./value-input";

const t = ru.metadataAdmin;

/** 75.25 → "01:15.2"; an hour or more → "1:01:15.2". */
export function formatTimecode(seconds: number): string {
  const whole = Math.max(0, seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  const ss = s.toFixed(1).padStart(4, "0");
  const mm = String(m).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** The player's time and duration, following its events. */
function usePlayback(video: HTMLMediaElement | null) {
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState(0);
  useEffect(() => {
    if (!video) return;
    const update = () => {
      setTime(video.currentTime);
      if (Number.isFinite(video.duration)) setDuration(video.duration);
    };
    update();
    const events = ["timeupdate", "durationchange", "loadedmetadata", "seeked"] as const;
    for (const e of events) video.addEventListener(e, update);
    return () => {
      for (const e of events) video.removeEventListener(e, update);
    };
  }, [video]);
  return { time, duration };
}

interface Props {
  assetId: string;
  video: HTMLMediaElement | null;
  templates: api.FieldTemplateInfo[];
  /** the asset's time-ranged values */
  values: api.FieldValueInfo[];
  onChanged: () => void;
  /** why the caller may not add or delete values (no `update`) */
  editRefused?: string | null;
}

/**
 * Time-ranged values under the player: each one is a segment on the track (clicking it seeks the player to its
 * start), new ones are made by marking in and out while playing, then choosing a field and a value.
 */
export function Timeline({ assetId, video, templates, values, onChanged, editRefused = null }: Props) {
  const { time, duration } = usePlayback(video);
  const [markIn, setMarkIn] = useState<number | null>(null);
  const [markOut, setMarkOut] = useState<number | null>(null);
  const [defId, setDefId] = useState("");
  const [value, setValue] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const template = templates.find((tpl) => tpl.field_def_id === defId) ?? null;
  const byId = new Map(templates.map((tpl) => [tpl.field_def_id, tpl]));
  const span = Math.max(duration, ...values.map((v) => v.pts?.[1] ?? 0), 1);
  const pct = (s: number) => `${Math.min(100, (s / span) * 100)}%`;
  const error = template && value !== undefined ? draftError(template, value) : null;
  const ready = template && value !== undefined && !error && markIn !== null && markOut !== null && markIn <= markOut;

  const seek = (seconds: number) => {
    if (!video) return;
    video.currentTime = seconds;
  };

  async function add() {
    if (!ready) return;
    setBusy(true);
    try {
      await api.createValue(assetId, { def_id: defId, asset_version_id: null, data: value, pts: [round(markIn!), round(markOut!)] });
      setMarkIn(null);
      setMarkOut(null);
      setValue(undefined);
      onChanged();
    } catch {
      // the API client showed the message
    } finally {
      setBusy(false);
    }
  }

  const sorted = [...values].sort((a, b) => a.pts![0] - b.pts![0]);
  const label = (v: api.FieldValueInfo) => t.rangeLabel(formatTimecode(v.pts![0]), formatTimecode(v.pts![1]));

  return (
    <section className="panel viewer-section md-timeline" aria-label={t.timeline}>
      <div className="md-panel-head">
        <h2>{t.timeline}</h2>
        <span className="muted num md-clock" data-testid="timeline-clock">
          {formatTimecode(time)} / {formatTimecode(duration)}
        </span>
      </div>
      <div
        className="md-track"
        onClick={(e) => seek(((e.clientX - e.currentTarget.getBoundingClientRect().left) / e.currentTarget.clientWidth) * span)}
      >
        {sorted.map((v, i) => (
          <button
            key={v.field_id}
            type="button"
            className={`md-segment md-seg-${i % 5}`}
            style={{ left: pct(v.pts![0]), width: `max(6px, ${pct(v.pts![1] - v.pts![0])})` }}
            title={`${byId.get(v.def_id)?.field_def_name ?? ""}: ${label(v)}`}
            aria-label={t.seekTo(label(v))}
            onClick={(e) => {
              e.stopPropagation();
              seek(v.pts![0]);
            }}
          />
        ))}
        {markIn !== null && (
          <span
            className="md-mark-range"
            style={{ left: pct(markIn), width: pct(Math.max(0, (markOut ?? time) - markIn)) }}
            aria-hidden="true"
          />
        )}
        <span className="md-playhead" style={{ left: pct(time) }} aria-hidden="true" />
      </div>

      <div className="md-mark-bar">
        <GuardedButton className="btn" reason={editRefused} onClick={() => setMarkIn(video?.currentTime ?? 0)} disabled={!video}>
          [ {t.markIn}
        </GuardedButton>
        <span className="num md-mark" data-testid="mark-in">
          {markIn === null ? "--:--" : formatTimecode(markIn)}
        </span>
        <GuardedButton className="btn" reason={editRefused} onClick={() => setMarkOut(video?.currentTime ?? 0)} disabled={!video}>
          {t.markOut} ]
        </GuardedButton>
        <span className="num md-mark" data-testid="mark-out">
          {markOut === null ? "--:--" : formatTimecode(markOut)}
        </span>
        {(markIn !== null || markOut !== null) && (
          <button type="button" className="btn btn-ghost" onClick={() => (setMarkIn(null), setMarkOut(null))}>
            {t.clearMarks}
          </button>
        )}
      </div>
      {markIn !== null && markOut !== null && (
        <div className="md-range-form">
          <select
            className="input select"
            aria-label={t.rangeField}
            value={defId}
            onChange={(e) => (setDefId(e.target.value), setValue(undefined))}
          >
            <option value="">{t.rangeField}</option>
            {templates.map((tpl) => (
              <option key={tpl.field_def_id} value={tpl.field_def_id}>
                {tpl.field_def_name}
              </option>
            ))}
          </select>
          {template && <ValueInput template={template} value={value} onChange={setValue} invalid={!!error} />}
          <button type="button" className="btn btn-primary" disabled={!ready || busy} onClick={() => void add()}>
            {t.addRange}
          </button>
          {error && <span className="md-field-error">{error}</span>}
          {markIn > markOut && <span className="md-field-error">{ru.metadata.ptsOrder}</span>}
        </div>
      )}
      {sorted.length === 0 ? (
        <p className="muted md-hint">{t.timelineHint}</p>
      ) : (
        <ul className="md-ranges">
          {sorted.map((v, i) => {
            const tpl = byId.get(v.def_id);
            return (
              <li key={v.field_id} className="md-range">
                <button type="button" className="md-range-seek" onClick={() => seek(v.pts![0])} aria-label={t.seekTo(label(v))}>
                  <span className={`md-swatch md-seg-${i % 5}`} aria-hidden="true" />
                  <span className="num md-range-time">{label(v)}</span>
                  <span className="md-range-field">{tpl?.field_def_name}</span>
                  <span className="md-range-value">{tpl ? formatFieldValue(tpl, v.field_data) : ""}</span>
                </button>
                <GuardedButton
                  className="icon-btn"
                  reason={editRefused}
                  aria-label={t.deleteRange}
                  title={t.deleteRange}
                  onClick={() => void api.deleteValue(assetId, v.field_id).then(onChanged, () => undefined)}
                >
                  <Icon name="trash" size={15} />
                </GuardedButton>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

/** Milliseconds are plenty for a time range. */
const round = (s: number) => Math.round(s * 1000) / 1000;
