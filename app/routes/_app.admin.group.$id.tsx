import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, Outlet, useLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import * as api from "../components/admin/admin-api";
import { DetailTabs } from "../components/admin/detail-tabs";
import type { GroupOutlet } from "../components/admin/outlets";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";
import { ID_PATTERN } from "../../workers/lib/ids";

export const meta: MetaFunction = () => [{ title: `${ru.screens.userGroups} — ${ru.app.name}` }];

export function loader({ params }: LoaderFunctionArgs) {
  if (!ID_PATTERN.test(params.id ?? "")) throw new Response(ru.access.groupNotFound, { status: 404 });
  return { groupId: params.id! };
}

const t = ru.admin;

/** /admin/group/{id}/…: a group of users — its name, a link into the library, and the users and access tabs. */
export default function AdminGroupLayout() {
  const { groupId } = useLoaderData<typeof loader>();
  const [group, setGroup] = useState<GroupOutlet["group"] | null>(null);
  const [missing, setMissing] = useState(false);
  useEffect(() => {
    setGroup(null);
    api.groupName(groupId).then(setGroup, () => setMissing(true));
  }, [groupId]);

  if (missing) return <p className="muted">{ru.access.groupNotFound}</p>;
  if (!group) return <p className="muted">{ru.common.loading}</p>;
  const base = `/admin/group/${group.group_id}`;
  return (
    <div className="adm-detail">
      <div className="adm-detail-head">
        <div>
          <div className="breadcrumbs">
            <Link to="/admin/groups">← {t.backToGroups}</Link>
          </div>
          <h2 className="adm-detail-title">
            <Icon name="folder" size={24} className="folder-icon" />
            {group.group_name}
          </h2>
        </div>
        <Link className="btn" to={`/mam/${group.group_id}`}>
          <Icon name="folder" size={16} />
          {t.openInLibrary}
        </Link>
      </div>
      <DetailTabs
        label={group.group_name}
        tabs={[
          { to: `${base}/assets`, label: t.tabs.assets },
          { to: `${base}/users`, label: t.tabs.users },
        ]}
      />
      <Outlet context={{ group } satisfies GroupOutlet} />
    </div>
  );
}
