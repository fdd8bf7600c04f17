import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { SubjectSearch } from "../access/subject-search";
import { groupName } from "./admin-api";

const t = ru.admin.form;

/** Names of groups by id, fetched once each (ids that cannot be read show as they are). */
export function useGroupNames(ids: readonly string[]): [Record<string, string>, (id: string, name: string) => void] {
  const [names, setNames] = useState<Record<string, string>>({});
  useEffect(() => {
    const missing = ids.filter((id) => !(id in names));
    if (missing.length === 0) return;
    Promise.all(
      missing.map((id) =>
        groupName(id).then(
          (g) => [id, g.group_name] as const,
          () => [id, id] as const,
        ),
      ),
    ).then((found) => setNames((n) => ({ ...n, ...Object.fromEntries(found) })));
  }, [ids, names]);
  return [names, (id, name) => setNames((n) => ({ ...n, [id]: name }))];
}

/** Chosen groups as removable chips plus a search box to add more (chroot groups, a token's scope). */
export function GroupChips({ value, onChange, label }: { value: string[]; onChange: (ids: string[]) => void; label: string }) {
  const [names, learn] = useGroupNames(value);
  return (
    <div className="adm-chips-field">
      {value.length > 0 && (
        <div className="md-chips">
          {value.map((id) => (
            <span key={id} className="chip active adm-chip">
              {names[id] ?? ru.common.loading}
              <button type="button" aria-label={t.removeChip(names[id] ?? id)} onClick={() => onChange(value.filter((v) => v !== id))}>
                ×
              </button>
            </span>
          ))}
        </div>
      )}
      <SubjectSearch
        types={["group"]}
        placeholder={t.groupSearch}
        label={label}
        exclude={value}
        onPick={(e) => {
          learn(e.id, e.name);
          onChange([...value, e.id]);
        }}
      />
    </div>
  );
}
