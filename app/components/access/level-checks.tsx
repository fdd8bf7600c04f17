import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { LEVELS, levelTitles, type AccessLevel } from "./access-api";

/** The Russian titles of the levels (ACCESS_LEVEL_TITLES, served by /api/auth/list-acl-perms), fetched once per page. */
let titlesOnce: Promise<Record<string, string>> | null = null;

export function useLevelTitles(): Record<string, string> {
  const [titles, setTitles] = useState<Record<string, string>>({});
  useEffect(() => {
    titlesOnce ??= levelTitles().then(
      (list) => Object.fromEntries(list.map((p) => [p.perm, p.title])),
      (error) => {
        titlesOnce = null;
        throw error;
      },
    );
    let alive = true;
    titlesOnce.then(
      (found) => alive && setTitles(found),
      () => undefined,
    );
    return () => {
      alive = false;
    };
  }, []);
  return titles;
}

/** What each level means, in plain words: a fold-out list under the rules. */
export function LevelLegend({ titles }: { titles: Record<string, string> }) {
  return (
    <details className="acc-legend" data-testid="level-legend">
      <summary>{ru.admin.accessEditor.legendTitle}</summary>
      <dl>
        {LEVELS.map((level) => (
          <div key={level} className="acc-legend-row">
            <dt>{titles[level] ?? level}</dt>
            <dd>{ru.admin.accessEditor.levelHelp[level]}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

/** The levels of one rule as checkboxes; levels the editor cannot grant are shown but locked. */
export function LevelChecks({
  titles,
  value,
  grantable,
  disabled,
  name,
  onChange,
}: {
  titles: Record<string, string>;
  value: readonly AccessLevel[];
  grantable: readonly AccessLevel[];
  disabled?: boolean;
  /** subject name, for the checkboxes' accessible names */
  name: string;
  onChange: (levels: AccessLevel[]) => void;
}) {
  return (
    <div className="acc-levels" role="group" aria-label={name}>
      {LEVELS.map((level) => {
        const locked = disabled || !grantable.includes(level);
        const checked = value.includes(level);
        return (
          <label
            key={level}
            className={`acc-level${checked ? " on" : ""}${level === "deny" ? " deny" : ""}${locked ? " locked" : ""}`}
            title={!disabled && locked ? ru.admin.accessEditor.notGrantable : ru.admin.accessEditor.levelHelp[level]}
          >
            <input
              type="checkbox"
              checked={checked}
              disabled={locked}
              onChange={(e) =>
                onChange(e.target.checked ? LEVELS.filter((l) => l === level || value.includes(l)) : value.filter((l) => l !== level))
              }
            />
            {titles[level] ?? level}
          </label>
        );
      })}
    </div>
  );
}
