import { ru } from "../i18n/ru";
import { formatDateTime } from "./format";

/** One line of «Технические данные»: a label, its value and, for a place, a link to the map. */
export interface TechRow {
  key: string;
  label: string;
  value: string;
  href?: string;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);

/** Seconds as a clock: 42 → «0:42», 3723.4 → «1:02:03». */
export function formatDuration(seconds: number): string {
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** An exposure time as photographers write it: 0.004 → «1/250», 2 → «2». */
function shutter(seconds: number): string {
  if (seconds >= 1) return String(Number(seconds.toFixed(1)));
  return `1/${Math.round(1 / seconds)}`;
}

/**
 * The tech-fields task's answer (workers/services/media/media-probe.ts: width/height, duration, codecs, frame and
 * sample rate, channels, bit rate, container, page_count and exifr's merged EXIF/GPS) as the viewer lists it; what the file did not have is left out.
 */
export function techRows(fields: Record<string, unknown>): TechRow[] {
  const rows: TechRow[] = [];
  const exif = fields.exif && typeof fields.exif === "object" ? (fields.exif as Record<string, unknown>) : {};
  const width = num(fields.width) ?? num(exif.ExifImageWidth);
  const height = num(fields.height) ?? num(exif.ExifImageHeight);
  if (width && height) rows.push({ key: "dimensions", label: ru.techData.dimensions, value: ru.techData.pixels(width, height) });
  const duration = num(fields.duration);
  if (duration !== null && duration > 0) rows.push({ key: "duration", label: ru.techData.duration, value: formatDuration(duration) });
  const codecs = Array.isArray(fields.codecs) ? fields.codecs.filter((c): c is string => typeof c === "string" && c.length > 0) : [];
  if (codecs.length) rows.push({ key: "codecs", label: ru.techData.codecs, value: codecs.join(", ") });
  const fps = num(fields.frame_rate);
  if (fps !== null && fps > 0) rows.push({ key: "frame_rate", label: ru.techAv.frameRate, value: ru.techAv.fps(fps) });
  const rate = num(fields.sample_rate);
  if (rate !== null && rate > 0) rows.push({ key: "sample_rate", label: ru.techAv.sampleRate, value: ru.techAv.hz(rate) });
  const channels = num(fields.channels);
  if (channels !== null && channels > 0) rows.push({ key: "channels", label: ru.techAv.channels, value: ru.techAv.channelNames(channels) });
  const bits = num(fields.bit_rate);
  if (bits !== null && bits > 0) rows.push({ key: "bit_rate", label: ru.techAv.bitRate, value: ru.techAv.kbps(bits) });
  const container = str(fields.container);
  if (container) rows.push({ key: "container", label: ru.techData.container, value: container });
  const pages = num(fields.page_count);
  if (pages) rows.push({ key: "pages", label: ru.techData.pages, value: String(pages) });

  const make = str(exif.Make);
  const model = str(exif.Model);
  // Many cameras repeat the maker in the model («Canon» + «Canon EOS R5»).
  const camera = make && model && !model.toLowerCase().startsWith(make.toLowerCase()) ? `${make} ${model}` : (model ?? make);
  if (camera) rows.push({ key: "camera", label: ru.techData.camera, value: camera });
  const lens = str(exif.LensModel) ?? str(exif.Lens);
  if (lens) rows.push({ key: "lens", label: ru.techData.lens, value: lens });
  const exposure = [
    num(exif.ExposureTime) ? ru.techData.shutter(shutter(num(exif.ExposureTime)!)) : null,
    num(exif.FNumber) ? `f/${num(exif.FNumber)}` : null,
    num(exif.ISO) ? `ISO ${num(exif.ISO)}` : null,
    num(exif.FocalLength) ? ru.techData.focal(num(exif.FocalLength)!) : null,
  ].filter(Boolean);
  if (exposure.length) rows.push({ key: "exposure", label: ru.techData.exposure, value: exposure.join(" · ") });
  const taken = str(exif.DateTimeOriginal) ?? str(exif.CreateDate);
  if (taken && !Number.isNaN(Date.parse(taken))) rows.push({ key: "taken", label: ru.techData.taken, value: formatDateTime(taken) });

  const lat = num(exif.latitude);
  const lon = num(exif.longitude);
  if (lat !== null && lon !== null && Math.abs(lat) <= 90 && Math.abs(lon) <= 180) {
    const [a, b] = [lat.toFixed(5), lon.toFixed(5)];
    rows.push({
      key: "gps",
      label: ru.techData.gps,
      value: `${a}, ${b}`,
      href: `https://www.openstreetmap.org/?mlat=${a}&mlon=${b}#map=16/${a}/${b}`,
    });
  }
  return rows;
}

/** How one processing stage ended (workers/services/tasks/processing/processing-state.ts). */
export interface StageOutcome {
  state: "done" | "not_applicable" | "failed";
  reason: string | null;
}

/**
 * The stages' outcomes from the tech-fields answer: `tech`, `text`, `preview`; a stage without one has not ended
 * yet (its task is still queued or running).
 */
export function stagesOf(fields: Record<string, unknown>): Partial<Record<"tech" | "text" | "preview", StageOutcome>> {
  const processing = fields.processing && typeof fields.processing === "object" ? (fields.processing as Record<string, unknown>) : {};
  const out: Partial<Record<"tech" | "text" | "preview", StageOutcome>> = {};
  for (const key of ["tech", "text", "preview"] as const) {
    const stage = processing[key] as { state?: unknown; reason?: unknown } | undefined;
    if (stage && (stage.state === "done" || stage.state === "not_applicable" || stage.state === "failed")) {
      out[key] = { state: stage.state, reason: typeof stage.reason === "string" ? stage.reason : null };
    }
  }
  return out;
}
