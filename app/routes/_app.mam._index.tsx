import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useRevalidator } from "@remix-run/react";
import { useState } from "react";
import { NameDialog } from "../components/modal";
import { createGroup } from "../lib/library-api";
import { ROOT_GROUP_ID } from "../lib/root-group";
import { Icon } from "../components/icons";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";
import { requireActor } from "../lib/session.server";
import { formatDateTime } from "../lib/format";
import { GROUP_PAGE_SIZE, listAvailableRoot } from "../../workers/services/group.service";

export const meta: MetaFunction = () => [{ title: `${ru.mam.title} — ${ru.app.name}` }];

/** The virtual root: the top-level groups the user may see, `?pages=n` shows the first n pages of 50. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const actor = await requireActor(request, context);
  const pages = Math.min(Math.max(Number(new URL(request.url).searchParams.get("pages")) || 1, 1), 40);
  const root = await listAvailableRoot(context.rc, actor, { skip: 0, take: pages * GROUP_PAGE_SIZE });
  return { root, pages };
}

export default function MamRoute() {
  const { root, pages } = useLoaderData<typeof loader>();
  const { revalidate } = useRevalidator();
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title={root.group_name}
        subtitle={ru.mam.groupsCount(root.groups.length)}
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
            <Icon name="plus" size={16} />
            {ru.library.newFolder}
          </button>
        }
      />
      {creating && (
        <NameDialog
          title={ru.library.newFolder}
          label={ru.library.folderName}
          submit={ru.library.create}
          onSubmit={(name) => createGroup(ROOT_GROUP_ID, name).then(revalidate)}
          onClose={() => setCreating(false)}
        />
      )}
      {root.groups.length === 0 ? (
        <section className="panel empty">
          <span className="empty-icon">
            <Icon name="folder" size={26} />
          </span>
          <div className="empty-title">{ru.mam.empty}</div>
          <div className="unavailable-hint">{ru.mam.emptyHint}</div>
          <div className="unavailable-actions">
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              <Icon name="plus" size={16} />
              {ru.mam.createFirst}
            </button>
          </div>
        </section>
      ) : (
        <section className="panel">
          <table className="table">
            <thead>
              <tr>
                <th>{ru.mam.columns.name}</th>
                <th>{ru.mam.columns.owner}</th>
                <th className="num">{ru.mam.columns.members}</th>
                <th>{ru.mam.columns.modified}</th>
              </tr>
            </thead>
            <tbody>
              {root.groups.map((g) => (
                <tr key={g.group_id}>
                  <td>
                    <span className="name-cell">
                      <Icon name="folder" className="folder-icon" />
                      <Link to={`/mam/${g.group_id}`}>{g.group_name}</Link>
                    </span>
                  </td>
                  <td>{g.owner_name ?? ru.common.dash}</td>
                  <td className="num">{g.members}</td>
                  <td>{formatDateTime(g.mtime)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {!root.complete && (
        <div style={{ marginTop: 16, textAlign: "center" }}>
          <Link className="btn" to={`?pages=${pages + 1}`} preventScrollReset>
            {ru.mam.loadMore}
          </Link>
        </div>
      )}
    </>
  );
}
