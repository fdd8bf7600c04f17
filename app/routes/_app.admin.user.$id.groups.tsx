import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { SubjectSearch } from "../components/access/subject-search";
import * as api from "../components/admin/admin-api";
import { useAdminUser } from "../components/admin/outlets";
import { Pager } from "../components/admin/pager";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";
import { LocalTime } from "../components/local-time";

export const meta: MetaFunction = () => [{ title: `${ru.screens.userGroupsTab} — ${ru.app.name}` }];

const t = ru.admin;

/** /admin/user/{id}/groups: the groups the user is a member of (memeber-of); add to a group, remove from one. */
export default function UserGroupsTab() {
  const { user, reload: reloadUser } = useAdminUser();
  const [skip, setSkip] = useState(0);
  const [groups, setGroups] = useState<Awaited<ReturnType<typeof api.memberOf>> | null>(null);
  const load = useCallback(() => {
    api.memberOf(user.user_id, skip).then(setGroups, () => undefined);
  }, [user.user_id, skip]);
  useEffect(load, [load]);

  const change = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        load();
        reloadUser();
      },
      () => undefined,
    );

  return (
    <section className="adm-section">
      <div className="md-section-head">
        <div>
          <h3 className="adm-h3">{t.userGroups}</h3>
          <p className="muted">{t.userGroupsHint}</p>
        </div>
        <div className="adm-add">
          <SubjectSearch
            types={["group"]}
            placeholder={t.form.groupSearch}
            label={t.addToGroup}
            exclude={groups?.map((g) => g.group_id)}
            onPick={(g) => void change(api.addGroupUsers(g.id, [user.user_id]))}
          />
        </div>
      </div>
      {groups && groups.length === 0 && skip === 0 ? (
        <div className="panel empty adm-empty-sm">
          <div className="empty-title">{t.noGroups}</div>
        </div>
      ) : (
        <div className="panel">
          <table className="table adm-table">
            <thead>
              <tr>
                <th>{t.columns.group}</th>
                <th>{t.columns.since}</th>
                <th className="md-actions-cell" />
              </tr>
            </thead>
            <tbody>
              {groups?.map((g) => (
                <tr key={g.group_id} data-group={g.group_name}>
                  <td>
                    <Link className="adm-user-link" to={`/admin/group/${g.group_id}/users`}>
                      <Icon name="folder" size={16} className="folder-icon" />
                      {g.group_name}
                    </Link>
                  </td>
                  <td><LocalTime iso={g.since} /></td>
                  <td className="adm-row-actions">
                    <button
                      type="button"
                      className="icon-btn adm-danger-icon"
                      title={t.removeFromGroup(g.group_name)}
                      aria-label={t.removeFromGroup(g.group_name)}
                      onClick={() => void change(api.removeGroupUsers(g.group_id, [user.user_id]))}
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
      {groups && <Pager skip={skip} take={api.PAGE_SIZE} count={groups.length} onSkip={setSkip} />}
    </section>
  );
}
