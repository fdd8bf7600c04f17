import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { LocalTime } from "../local-time";
import { showToast } from "../../lib/toast";
import { Icon } from "../icons";
import * as api from "./admin-api";
import { Pager } from "./pager";
import { UserActions } from "./user-actions";
import { UserBadges } from "./user-badges";
import { UserFormDialog } from "./user-form-dialog";

const t = ru.admin;

/** Active (`enabled`) or inactive users: search by name or login, pages of 25, create, edit, disable, delete. */
export function UserList({ enabled }: { enabled: boolean }) {
  const [query, setQuery] = useState("");
  const [skip, setSkip] = useState(0);
  const [page, setPage] = useState<api.Page<api.User> | null>(null);
  const [creating, setCreating] = useState<"user" | "robot" | null>(null);

  const load = useCallback(() => {
    api.listUsers({ enabled, q: query.trim(), skip }).then(setPage, () => undefined);
  }, [enabled, query, skip]);
  useEffect(() => {
    const timer = setTimeout(load, query ? 200 : 0);
    return () => clearTimeout(timer);
  }, [load, query]);

  const closeCreate = useCallback(() => setCreating(null), []);
  const items = page?.items ?? [];
  return (
    <section className="adm-section">
      <div className="adm-toolbar">
        <div className="adm-search-box">
          <Icon name="search" size={16} className="muted" />
          <input
            className="input"
            type="search"
            value={query}
            placeholder={t.search}
            aria-label={t.search}
            onChange={(e) => {
              setQuery(e.target.value);
              setSkip(0);
            }}
          />
        </div>
        <span className="md-spacer" />
        <button type="button" className="btn" onClick={() => setCreating("robot")}>
          <Icon name="automations" size={16} />
          {t.newRobot}
        </button>
        <button type="button" className="btn btn-primary" onClick={() => setCreating("user")}>
          <Icon name="plus" size={16} />
          {t.newUser}
        </button>
      </div>
      {page && items.length === 0 ? (
        <div className="panel empty">
          <span className="empty-icon">
            <Icon name="admin" size={26} />
          </span>
          <div className="empty-title">{query || enabled ? t.noUsers : t.noInactive}</div>
          <div>{query || enabled ? t.noUsersHint : t.noInactiveHint}</div>
        </div>
      ) : (
        <div className="panel">
          <table className="table adm-table">
            <thead>
              <tr>
                <th>{t.columns.name}</th>
                <th>{t.columns.login}</th>
                <th>{t.columns.role}</th>
                <th className="num">{t.columns.rules}</th>
                <th>{t.columns.created}</th>
                <th className="md-actions-cell" />
              </tr>
            </thead>
            <tbody>
              {items.map((user) => (
                <tr key={user.user_id} data-user={user.login}>
                  <td>
                    <Link className="adm-user-link" to={`/admin/user/${user.user_id}/assets`}>
                      <span className="adm-avatar" aria-hidden="true">
                        {user.user_name.slice(0, 1).toUpperCase()}
                      </span>
                      {user.user_name}
                    </Link>
                  </td>
                  <td className="mono">{user.login}</td>
                  <td>
                    <UserBadges user={user} />
                  </td>
                  <td className="num">{user.acl_count}</td>
                  <td><LocalTime iso={user.ctime} /></td>
                  <td className="adm-row-actions">
                    <UserActions user={user} compact onChanged={load} onDeleted={load} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page && <Pager skip={skip} take={api.PAGE_SIZE} count={items.length} total={page.total} onSkip={setSkip} />}
      {creating && (
        <UserFormDialog
          robot={creating === "robot"}
          onSaved={(user) => {
            showToast({ title: t.created(user.user_name), message: user.login, kind: "info" });
            load();
          }}
          onClose={closeCreate}
        />
      )}
    </section>
  );
}
