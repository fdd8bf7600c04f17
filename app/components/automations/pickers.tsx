import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { apiRequest } from "../../lib/api-client";

interface Option {
  value: string;
  label: string;
}

const cache = new Map<string, Promise<Option[]>>();

/** Options loaded once per page from an API list (tags, field templates, task templates). */
function useOptions(path: string, map: (rows: never[]) => Option[]): Option[] {
  const [options, setOptions] = useState<Option[]>([]);
  useEffect(() => {
    let p = cache.get(path);
    if (!p) {
      p = apiRequest<never[]>(path, { toast: false }).then(map, () => []);
      cache.set(path, p);
    }
    let live = true;
    void p.then((o) => live && setOptions(o));
    return () => {
      live = false;
    };
    // `map` is a module-level function per picker; only the path decides what is loaded.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [path]);
  return options;
}

/** Forgets loaded options (after the tag vocabulary or templates may have changed). */
export function forgetPickerOptions(): void {
  cache.clear();
}

function SelectOf({
  id,
  value,
  options,
  onChange,
  optional,
}: {
  id: string;
  value: string;
  options: Option[];
  onChange: (v: string | undefined) => void;
  optional: boolean;
}) {
  return (
    <select id={id} className="input select" value={value} onChange={(e) => onChange(e.target.value || undefined)}>
      <option value="">{optional ? ru.automations.anyValue : ru.automations.pick}</option>
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
      {value && !options.some((o) => o.value === value) && <option value={value}>{value}</option>}
    </select>
  );
}

const tagOptions = (rows: { tag_id: string; tag_name: string }[]) => rows.map((t) => ({ value: t.tag_id, label: t.tag_name }));
const fieldOptions = (rows: { field_def_id: string; field_def_name: string }[]) =>
  rows.map((t) => ({ value: t.field_def_id, label: t.field_def_name }));
const templateOptions = (rows: { id: string; name: string }[]) => rows.map((t) => ({ value: t.id, label: t.name }));

type PickerProps = { id: string; value: string; onChange: (v: string | undefined) => void; optional: boolean };

export function TagPicker(props: PickerProps) {
  return <SelectOf {...props} options={useOptions("/api/tags/list?take=500", tagOptions as never)} />;
}

export function FieldPicker(props: PickerProps) {
  return <SelectOf {...props} options={useOptions("/api/fields/templates?take=500", fieldOptions as never)} />;
}

export function TemplatePicker({ operation, ...props }: PickerProps & { operation: string }) {
  return <SelectOf {...props} options={useOptions(`/api/tasklist/task-templates/${operation || "preview"}`, templateOptions as never)} />;
}

interface FoundGroup {
  group_id: string;
  group_name: string;
  path: { group_id: string; group_name: string }[];
}

/** A folder: the chosen one's name, and a search by name to choose another. */
export function GroupPicker({ id, value, onChange, optional }: PickerProps) {
  const [name, setName] = useState<string | null>(null);
  const [q, setQ] = useState("");
  const [found, setFound] = useState<FoundGroup[]>([]);
  useEffect(() => {
    if (!value) return setName(null);
    apiRequest<{ group_name: string }>(`/api/group/get/${value}`, { toast: false }).then(
      (g) => setName(g.group_name),
      () => setName(value),
    );
  }, [value]);
  useEffect(() => {
    if (!q.trim()) return setFound([]);
    const t = setTimeout(() => {
      apiRequest<FoundGroup[]>(`/api/group/search?q=${encodeURIComponent(q.trim())}&take=20`, { toast: false }).then(setFound, () =>
        setFound([]),
      );
    }, 200);
    return () => clearTimeout(t);
  }, [q]);
  return (
    <div className="wf-group-picker">
      {value && (
        <div className="wf-group-chosen">
          <span className="chip active" data-group={value}>
            {name ?? "…"}
          </span>
          {optional && (
            <button type="button" className="btn btn-ghost" onClick={() => onChange(undefined)}>
              {ru.automations.removeItem}
            </button>
          )}
        </div>
      )}
      <input id={id} className="input" placeholder={ru.automations.searchGroup} value={q} onChange={(e) => setQ(e.target.value)} />
      {found.length > 0 && (
        <div className="wf-group-results" role="listbox">
          {found.map((g) => (
            <button
              key={g.group_id}
              type="button"
              role="option"
              aria-selected={g.group_id === value}
              className="wf-group-result"
              onClick={() => {
                onChange(g.group_id);
                setQ("");
              }}
            >
              <span>{g.group_name}</span>
              <span className="muted">{g.path.map((p) => p.group_name).join(" / ")}</span>
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
