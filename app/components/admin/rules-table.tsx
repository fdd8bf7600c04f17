import { Link } from "@remix-run/react";
import { ru } from "../../i18n/ru";
import type { AccessRule } from "../access/access-api";
import { useLevelTitles } from "../access/level-checks";
import { Icon } from "../icons";

const t = ru.admin;

/** Where a rule's object opens in the library. */
const objectLink = (r: AccessRule) => (r.obj_type === "group" ? `/mam/${r.obj_id}` : `/asset/${r.obj_id}`);

/** Rules as a table: the object (linked into the library), the levels, and, for a user's rules, where they come from. */
export function RulesTable({ rules, showVia }: { rules: (AccessRule & { via_group?: string | null })[]; showVia?: boolean }) {
  const titles = useLevelTitles();
  // Level names appear once their Russian titles are in, never as the API's keys.
  const ready = Object.keys(titles).length > 0;
  return (
    <table className="table adm-table">
      <thead>
        <tr>
          <th>{t.columns.object}</th>
          <th>{t.columns.levels}</th>
          {showVia && <th>{t.columns.via}</th>}
        </tr>
      </thead>
      <tbody>
        {rules.map((r) => (
          <tr key={r.rule_id} data-object={r.obj_name ?? r.obj_id}>
            <td>
              <Link className="adm-user-link" to={objectLink(r)}>
                <Icon
                  name={r.obj_type === "group" ? "folder" : "other"}
                  size={16}
                  className={r.obj_type === "group" ? "folder-icon" : "muted"}
                />
                {r.obj_name ?? r.obj_id}
              </Link>
              <span className="adm-sub">{t.objectTypes[r.obj_type]}</span>
            </td>
            <td>
              <div className="acc-levels">
                {ready &&
                  r.acl.map((l) => (
                    <span key={l} className={`chip acc-chip${l === "deny" ? " deny" : ""}`}>
                      {titles[l] ?? l}
                    </span>
                  ))}
              </div>
            </td>
            {showVia && (
              <td>
                {r.via_group ? (
                  <Link to={`/admin/group/${r.via_group}/users`}>{t.viaGroup(r.subj_name ?? r.via_group)}</Link>
                ) : (
                  <span className="muted">{t.direct}</span>
                )}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
