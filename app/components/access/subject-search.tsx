import { useEffect, useId, useState } from "react";
import { ru } from "../../i18n/ru";
import { searchSubjects, type PickerEntry } from "./access-api";
import { SubjectIcon } from "./subject-icon";

const t = ru.admin;

/**
 * A search box over users and groups (`search-user-group`): results appear under it as the admin types, and a
 * click picks one. `types` limits the results to users or to groups; `exclude` hides ones already chosen.
 */
export function SubjectSearch({
  types,
  placeholder,
  exclude = [],
  onPick,
  label,
}: {
  types: readonly ("user" | "group")[];
  placeholder: string;
  exclude?: readonly string[];
  onPick: (entry: PickerEntry) => void;
  /** accessible name of the input (defaults to the placeholder) */
  label?: string;
}) {
  const [text, setText] = useState("");
  const [results, setResults] = useState<PickerEntry[] | null>(null);
  const listId = useId();

  useEffect(() => {
    const query = text.trim();
    if (!query) return setResults(null);
    const controller = new AbortController();
    const timer = setTimeout(() => {
      searchSubjects(query, controller.signal).then(
        (found) => setResults(found.filter((e) => types.includes(e.type))),
        () => undefined,
      );
    }, 200);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // `types` is a literal at every call site; its identity changes each render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text, types.join()]);

  const shown = results?.filter((e) => !exclude.includes(e.id)) ?? null;
  return (
    <div className="adm-search">
      <input
        className="input"
        value={text}
        placeholder={placeholder}
        aria-label={label ?? placeholder}
        aria-controls={shown ? listId : undefined}
        autoComplete="off"
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            if (shown?.[0]) {
              onPick(shown[0]);
              setText("");
            }
          }
        }}
      />
      {shown && (
        <ul className="adm-search-results" id={listId} role="listbox" aria-label={label ?? placeholder}>
          {shown.length === 0 && <li className="adm-search-empty">{t.form.nothingFound}</li>}
          {shown.map((e) => (
            <li key={`${e.type}:${e.id}`} role="option" aria-selected={false}>
              <button
                type="button"
                className="adm-search-row"
                onClick={() => {
                  onPick(e);
                  setText("");
                }}
              >
                <SubjectIcon type={e.type} name={e.name} />
                <span className="adm-search-name">{e.name}</span>
                {e.login && <span className="muted">{e.login}</span>}
                {e.is_robot && <span className="adm-badge">{t.roles.robot}</span>}
                <span className="adm-search-type">{t.accessEditor.subjectTypes[e.type]}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
