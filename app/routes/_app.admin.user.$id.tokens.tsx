import type { MetaFunction } from "@remix-run/cloudflare";
import { useCallback, useEffect, useMemo, useState } from "react";
import { ActionDialog } from "../components/admin/action-dialog";
import * as api from "../components/admin/admin-api";
import { useAdminUser } from "../components/admin/outlets";
import { useGroupNames } from "../components/admin/group-chips";
import { TokenDialog } from "../components/admin/token-dialog";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";
import { LocalTime } from "../components/local-time";

export const meta: MetaFunction = () => [{ title: `${ru.admin.tokens} — ${ru.app.name}` }];

const t = ru.admin;

/** /admin/user/{id}/tokens: a robot's API tokens — create (shown once), list with status, revoke. */
export default function UserTokensTab() {
  const { user } = useAdminUser();
  const [tokens, setTokens] = useState<api.RobotToken[] | null>(null);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<api.RobotToken | null>(null);
  const load = useCallback(() => {
    if (user.is_robot) api.listTokens(user.user_id).then(setTokens, () => undefined);
  }, [user.user_id, user.is_robot]);
  useEffect(load, [load]);
  const scopeIds = useMemo(() => [...new Set(tokens?.flatMap((tk) => tk.scope_groups ?? []) ?? [])], [tokens]);
  const [groupNames] = useGroupNames(scopeIds);
  const closeCreate = useCallback(() => setCreating(false), []);
  const closeRevoke = useCallback(() => setRevoking(null), []);

  if (!user.is_robot) return <p className="muted">{t.notRobot}</p>;
  return (
    <section className="adm-section">
      <div className="md-section-head">
        <div>
          <h3 className="adm-h3">{t.tokens}</h3>
          <p className="muted mono-hint">{t.tokensHint}</p>
        </div>
        <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
          <Icon name="plus" size={16} />
          {t.newToken}
        </button>
      </div>
      {tokens && tokens.length === 0 ? (
        <div className="panel empty adm-empty-sm">
          <div className="empty-title">{t.noTokens}</div>
        </div>
      ) : (
        <div className="panel">
          <table className="table adm-table">
            <thead>
              <tr>
                <th>{t.tokenName}</th>
                <th>{t.columns.token}</th>
                <th>{t.columns.scope}</th>
                <th>{t.columns.created}</th>
                <th>{t.columns.expires}</th>
                <th>{t.columns.lastUsed}</th>
                <th>{t.columns.status}</th>
                <th className="md-actions-cell" />
              </tr>
            </thead>
            <tbody>
              {tokens?.map((token) => (
                <tr key={token.token_id} data-token={token.name}>
                  <td className="md-strong">{token.name}</td>
                  <td className="mono">{token.prefix}…</td>
                  <td>{token.scope_groups ? token.scope_groups.map((id) => groupNames[id] ?? "…").join(", ") : t.everywhere}</td>
                  <td><LocalTime iso={token.ctime} /></td>
                  <td>{token.expires_at ? <LocalTime iso={token.expires_at} /> : t.never}</td>
                  <td><LocalTime iso={token.last_used_at} /></td>
                  <td>
                    <span className={`adm-status${token.status === "active" ? " on" : ""}`}>{t.tokenStatus[token.status]}</span>
                  </td>
                  <td className="adm-row-actions">
                    {token.status === "active" && (
                      <button type="button" className="btn btn-ghost" onClick={() => setRevoking(token)}>
                        {t.revoke}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {creating && <TokenDialog userId={user.user_id} onCreated={load} onClose={closeCreate} />}
      {revoking && (
        <ActionDialog
          title={t.revokeTitle}
          text={t.revokeText(revoking.name)}
          confirm={t.revoke}
          danger
          onConfirm={() => api.revokeToken(user.user_id, revoking.token_id).then(load)}
          onClose={closeRevoke}
        />
      )}
    </section>
  );
}
