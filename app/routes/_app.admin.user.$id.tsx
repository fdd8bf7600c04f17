import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, Outlet, useLoaderData, useNavigate } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import * as api from "../components/admin/admin-api";
import { DetailTabs } from "../components/admin/detail-tabs";
import type { UserOutlet } from "../components/admin/outlets";
import { UserActions } from "../components/admin/user-actions";
import { UserBadges } from "../components/admin/user-badges";
import { ru } from "../i18n/ru";
import { ID_PATTERN } from "../../workers/lib/ids";

export const meta: MetaFunction = () => [{ title: `${ru.screens.userAssets} — ${ru.app.name}` }];

export function loader({ params }: LoaderFunctionArgs) {
  if (!ID_PATTERN.test(params.id ?? "")) throw new Response(ru.access.userNotFound, { status: 404 });
  return { userId: params.id! };
}

const t = ru.admin;

/** /admin/user/{id}/…: the user's name, kind and actions, and the tabs (access, groups, and tokens for robots). */
export default function AdminUserLayout() {
  const { userId } = useLoaderData<typeof loader>();
  const navigate = useNavigate();
  const [user, setUser] = useState<api.User | null>(null);
  const [missing, setMissing] = useState(false);
  const reload = useCallback(() => {
    api.getUser(userId).then(setUser, () => setMissing(true));
  }, [userId]);
  useEffect(reload, [reload]);

  const back = user && !user.enabled ? "/admin/inactive-users" : "/admin/active-users";
  if (missing) return <p className="muted">{ru.access.userNotFound}</p>;
  if (!user) return <p className="muted">{ru.common.loading}</p>;
  const base = `/admin/user/${user.user_id}`;
  return (
    <div className="adm-detail">
      <div className="adm-detail-head">
        <div>
          <div className="breadcrumbs">
            <Link to={back}>← {user.enabled ? ru.screens.activeUsers : ru.screens.inactiveUsers}</Link>
          </div>
          <h2 className="adm-detail-title">
            <span className="adm-avatar adm-avatar-lg" aria-hidden="true">
              {user.user_name.slice(0, 1).toUpperCase()}
            </span>
            {user.user_name}
          </h2>
          <div className="adm-detail-meta">
            <span className="mono">{user.login}</span>
            <span className={`adm-status${user.enabled ? " on" : ""}`}>{user.enabled ? t.status.enabled : t.status.disabled}</span>
            <UserBadges user={user} />
          </div>
        </div>
        <UserActions user={user} onChanged={setUser} onDeleted={() => navigate(back)} />
      </div>
      <DetailTabs
        label={user.user_name}
        tabs={[
          { to: `${base}/assets`, label: t.tabs.assets },
          { to: `${base}/groups`, label: t.tabs.groups },
          ...(user.is_robot ? [{ to: `${base}/tokens`, label: t.tabs.tokens }] : []),
        ]}
      />
      <Outlet context={{ user, reload } satisfies UserOutlet} />
    </div>
  );
}
