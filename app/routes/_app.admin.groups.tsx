import type { MetaFunction } from "@remix-run/cloudflare";
import { Link, useNavigate } from "@remix-run/react";
import { useEffect, useState } from "react";
import { SubjectSearch } from "../components/access/subject-search";
import * as api from "../components/admin/admin-api";
import { Pager } from "../components/admin/pager";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";

export const meta: MetaFunction = () => [{ title: `${ru.screens.userGroups} — ${ru.app.name}` }];

const t = ru.admin;

/** /admin/groups: the groups that have users as members; any folder becomes one by adding users to it. */
export default function AdminGroupsRoute() {
  const navigate = useNavigate();
  const [skip, setSkip] = useState(0);
  const [groups, setGroups] = useState<Awaited<ReturnType<typeof api.groupsWithUsers>> | null>(null);
  useEffect(() => {
    api.groupsWithUsers(skip).then(setGroups, () => undefined);
  }, [skip]);

  return (
    <section className="adm-section">
      <div className="md-section-head">
        <div>
          <h3 className="adm-h3">{t.groupsList}</h3>
          <p className="muted">{t.groupsListHint}</p>
        </div>
        <div className="adm-add">
          <SubjectSearch
            types={["group"]}
            placeholder={t.makeGroupPlaceholder}
            label={t.makeGroup}
            onPick={(g) => navigate(`/admin/group/${g.id}/users`)}
          />
        </div>
      </div>
      {groups && groups.length === 0 && skip === 0 ? (
        <div className="panel empty">
          <span className="empty-icon">
            <Icon name="folder" size={26} />
          </span>
          <div className="empty-title">{t.noUserGroups}</div>
          <div>{t.noUserGroupsHint}</div>
        </div>
      ) : (
        <div className="panel">
          <table className="table adm-table">
            <thead>
              <tr>
                <th>{t.columns.group}</th>
                <th className="num">{t.columns.users}</th>
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
                  <td className="num">{g.users}</td>
                  <td className="adm-row-actions">
                    <Link className="btn btn-ghost" to={`/mam/${g.group_id}`}>
                      {t.openInLibrary}
                    </Link>
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
