import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { SubjectSearch } from "../components/access/subject-search";
import * as api from "../components/admin/admin-api";
import { useAdminGroup } from "../components/admin/outlets";
import { Pager } from "../components/admin/pager";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";
import { LocalTime } from "../components/local-time";

export const meta: MetaFunction = () => [{ title: `${ru.screens.groupUsers} — ${ru.app.name}` }];

const t = ru.admin;

/** /admin/group/{id}/users: the group's users; add by searching, remove from the row. */
export default function GroupUsersTab() {
  const { group } = useAdminGroup();
  const [skip, setSkip] = useState(0);
  const [users, setUsers] = useState<api.GroupUser[] | null>(null);
  const load = useCallback(() => {
    api.groupUsers(group.group_id, skip).then(setUsers, () => undefined);
  }, [group.group_id, skip]);
  useEffect(load, [load]);
  const change = (promise: Promise<unknown>) => promise.then(load, () => undefined);

  return (
    <section className="adm-section">
      <div className="md-section-head">
        <div>
          <h3 className="adm-h3">{t.groupUsers}</h3>
          <p className="muted">{t.userGroupsHint}</p>
        </div>
        <div className="adm-add">
          <SubjectSearch
            types={["user"]}
            placeholder={t.form.userSearch}
            label={t.addUser}
            exclude={users?.map((u) => u.user_id)}
            onPick={(u) => void change(api.addGroupUsers(group.group_id, [u.id]))}
          />
        </div>
      </div>
      {users && users.length === 0 && skip === 0 ? (
        <div className="panel empty adm-empty-sm">
          <div className="empty-title">{t.noGroupUsers}</div>
        </div>
      ) : (
        <div className="panel">
          <table className="table adm-table">
            <thead>
              <tr>
                <th>{t.columns.name}</th>
                <th>{t.columns.login}</th>
                <th>{t.columns.status}</th>
                <th>{t.columns.since}</th>
                <th className="md-actions-cell" />
              </tr>
            </thead>
            <tbody>
              {users?.map((u) => (
                <tr key={u.user_id} data-user={u.login}>
                  <td>
                    <Link className="adm-user-link" to={`/admin/user/${u.user_id}/assets`}>
                      <span className="adm-avatar" aria-hidden="true">
                        {u.user_name.slice(0, 1).toUpperCase()}
                      </span>
                      {u.user_name}
                    </Link>
                  </td>
                  <td className="mono">{u.login}</td>
                  <td>
                    <span className={`adm-status${u.enabled ? " on" : ""}`}>{u.enabled ? t.status.enabled : t.status.disabled}</span>
                  </td>
                  <td><LocalTime iso={u.since} /></td>
                  <td className="adm-row-actions">
                    <button
                      type="button"
                      className="icon-btn adm-danger-icon"
                      title={t.removeUser(u.user_name)}
                      aria-label={t.removeUser(u.user_name)}
                      onClick={() => void change(api.removeGroupUsers(group.group_id, [u.user_id]))}
                    >
                      <Icon name="trash" size={16} />
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {users && <Pager skip={skip} take={api.PAGE_SIZE} count={users.length} onSkip={setSkip} />}
    </section>
  );
}
