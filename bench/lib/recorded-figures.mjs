// Recorded figures of a benchmark (bench/targets/<name>.json) and the regression check against them: a figure more
// than `tolerance` worse than the one recorded is a MISS, printed with the recorded figure beside it, so a later
// change that slows a screen shows up in the next run. Figures are recorded per scale (a quick BENCH_SCALE run is
// compared only with figures recorded at its own scale). `BENCH_RECORD=1` writes this run's figures into the file.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./measure.mjs";

/** How much worse than recorded a figure may get before the check says MISS. */
export const REGRESSION_TOLERANCE = 0.2;

const fileOf = (name) => join(ROOT, "bench", "targets", `${name}.json`);

/** The figures recorded for `name` at `scale` ({} when none). */
export function recordedFigures(name, scale) {
  const file = fileOf(name);
  if (!existsSync(file)) return {};
  const all = JSON.parse(readFileSync(file, "utf8"));
  return all.scales?.[String(scale)]?.figures ?? {};
}

/**
 * Table rows comparing this run's figures with the recorded ones. `figures`: { key: { label, value, unit, better } }
 * where `better` is "lower" (a time) or "higher" (a rate or a share). A figure without a recorded one says so.
 */
export function regressionRows(name, scale, figures) {
  const recorded = recordedFigures(name, scale);
  return Object.entries(figures).map(([key, f]) => {
    const old = recorded[key];
    const shown = `${format(f.value, f.unit)}`;
    if (typeof old !== "number" || !Number.isFinite(f.value)) {
      return [`regression: ${f.label}`, shown, "recorded: none", "-"];
    }
    const limit = f.better === "lower" ? old * (1 + REGRESSION_TOLERANCE) : old * (1 - REGRESSION_TOLERANCE);
    const ok = f.better === "lower" ? f.value <= limit : f.value >= limit;
    return [
      `regression: ${f.label}`,
      shown,
      `${f.better === "lower" ? "≤" : "≥"} ${format(limit, f.unit)} (recorded ${format(old, f.unit)})`,
      ok ? "PASS" : `MISS (was ${format(old, f.unit)})`,
    ];
  });
}

/** Writes this run's figures as the recorded ones for `scale` (other scales in the file are kept). */
export function recordFigures(name, scale, figures, note) {
  const file = fileOf(name);
  const all = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  all.about ??= `Figures recorded by bench/${name}.mjs (BENCH_RECORD=1); a run more than ${
    REGRESSION_TOLERANCE * 100
  } % worse prints MISS.`;
  all.scales ??= {};
  all.scales[String(scale)] = {
    recordedAt: new Date().toISOString(),
    note,
    figures: Object.fromEntries(Object.entries(figures).map(([key, f]) => [key, Number(f.value.toPrecision(4))])),
  };
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
  console.log(`recorded ${Object.keys(figures).length} figures for scale ${scale} in ${file}`);
}

function format(value, unit) {
  if (unit === "%") return `${(value * 100).toFixed(0)} %`;
  if (unit === "×") return `${value.toFixed(2)} ×`;
  return `${value.toFixed(1)} ${unit}`;
}
