import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { apiRequest } from "../../lib/api-client";
import type { TaskFilters } from "./jobs-api";

export const EMPTY_FILTERS: TaskFilters = { name: "", status: "", op: "", asset: "" };

/** Filters of the task list: name (with the names of existing tasks to pick from), status, operation, asset. */
export function JobFilters({ value, onChange }: { value: TaskFilters; onChange: (f: TaskFilters) => void }) {
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    apiRequest<string[]>("/api/tasklist/names", { toast: false }).then(setNames, () => undefined);
  }, []);
  const set = (patch: Partial<TaskFilters>) => onChange({ ...value, ...patch });
  const filtered = value.name || value.status || value.op || value.asset;
  return (
    <div className="toolbar job-filters">
      <label className="job-filter">
        <span>{ru.jobs.filterName}</span>
        <input
          className="input"
          name="name"
          list="job-names"
          placeholder={ru.jobs.filterNamePlaceholder}
          value={value.name}
          onChange={(e) => set({ name: e.target.value })}
        />
        <datalist id="job-names">
          {names.map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
      </label>
      <label className="job-filter">
        <span>{ru.jobs.filterStatus}</span>
        <select className="input select" name="status" value={value.status} onChange={(e) => set({ status: e.target.value })}>
          <option value="">{ru.jobs.all}</option>
          {Object.entries(ru.tasks.statuses).map(([k, v]) => (
            <option key={k} value={k}>
              {v}
            </option>
          ))}
        </select>
      </label>
      <label className="job-filter">
        <span>{ru.jobs.filterOperation}</span>
        <select className="input select" name="op" value={value.op} onChange={(e) => set({ op: e.target.value })}>
          <option value="">{ru.jobs.all}</option>
          {Object.entries(ru.tasks.operations).map(([k, v]) => (
            <option key={k} value={k}>
              {v}
            </option>
          ))}
        </select>
      </label>
      <label className="job-filter">
        <span>{ru.jobs.filterAsset}</span>
        <input
          className="input mono"
          name="asset"
          value={value.asset}
          maxLength={32}
          onChange={(e) => set({ asset: e.target.value.toLowerCase() })}
        />
      </label>
      {filtered && (
        <button type="button" className="btn btn-ghost" onClick={() => onChange(EMPTY_FILTERS)}>
          {ru.jobs.reset}
        </button>
      )}
    </div>
  );
}
