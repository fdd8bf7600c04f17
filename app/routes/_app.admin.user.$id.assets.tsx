import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import * as api from "../components/admin/admin-api";
import { useAdminUser } from "../components/admin/outlets";
import { Pager } from "../components/admin/pager";
import { RulesTable } from "../components/admin/rules-table";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";
import { LocalTime } from "../components/local-time";
import { mimeLabel } from "../lib/mime-label";
import { requireActor } from "../lib/session.server";
import { ID_PATTERN } from "../../workers/lib/ids";
import { AppError } from "../../workers/lib/errors";
import { ownedByUser } from "../../workers/services/access";

export const meta: MetaFunction = () => [{ title: `${ru.screens.userAssets} — ${ru.app.name}` }];

const skipOf = (value: string | null) => Math.min(Math.max(Math.trunc(Number(value)) || 0, 0), 1_000_000);

/** What the user owns, through the same service any API caller would reach (administrators only). */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  if (!ID_PATTERN.test(params.id ?? "")) throw new Response(ru.access.userNotFound, { status: 404 });
  const actor = await requireActor(request, context);
  const url = new URL(request.url);
  const paging = {
    groupSkip: skipOf(url.searchParams.get("groups")),
    assetSkip: skipOf(url.searchParams.get("files")),
    take: api.PAGE_SIZE,
  };
  try {
    return { ...(await ownedByUser(context.rc, actor, params.id!, paging)), paging };
  } catch (error) {
    if (error instanceof AppError) throw new Response(error.message, { status: error.status });
    throw error;
  }
}

const t = ru.admin;

/**
 * /admin/user/{id}/assets: what the user owns (folders and files: every right on them) and what they reach beyond
 * that — their rules, direct and through their groups.
 */
export default function UserAssetsTab() {
  const { user } = useAdminUser();
  const owned = useLoaderData<typeof loader>();
  const [params, setParams] = useSearchParams();
  const [skip, setSkip] = useState(0);
  const [rules, setRules] = useState<Awaited<ReturnType<typeof api.userRules>> | null>(null);
  useEffect(() => {
    api.userRules(user.user_id, skip).then(setRules, () => undefined);
  }, [user.user_id, user.mtime, skip]);
  const page = (key: "groups" | "files") => (value: number) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, String(value));
    else next.delete(key);
    setParams(next, { preventScrollReset: true });
  };

  return (
    <div className="adm-stack">
      <section className="adm-section">
        <div>
          <h3 className="adm-h3">{t.owned}</h3>
          <p className="muted">{t.ownedHint}</p>
        </div>
        <div className="adm-owned">
          <div className="panel">
            <table className="table adm-table">
              <thead>
                <tr>
                  <th>{t.ownedGroups}</th>
                  <th>{t.columns.changed}</th>
                </tr>
              </thead>
              <tbody>
                {owned.groups.length === 0 && (
                  <tr>
                    <td colSpan={2} className="muted">
                      {t.noneOwned}
                    </td>
                  </tr>
                )}
                {owned.groups.map((g) => (
                  <tr key={g.group_id} data-owned={g.group_name}>
                    <td>
                      <Link className="adm-user-link" to={`/mam/${g.group_id}`}>
                        <Icon name="folder" size={16} className="folder-icon" />
                        {g.group_name}
                      </Link>
                    </td>
                    <td className="adm-nowrap"><LocalTime iso={g.mtime} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager skip={owned.paging.groupSkip} take={api.PAGE_SIZE} count={owned.groups.length} onSkip={page("groups")} />
          </div>
          <div className="panel">
            <table className="table adm-table">
              <thead>
                <tr>
                  <th>{t.ownedAssets}</th>
                  <th>{t.columns.changed}</th>
                </tr>
              </thead>
              <tbody>
                {owned.assets.length === 0 && (
                  <tr>
                    <td colSpan={2} className="muted">
                      {t.noneOwned}
                    </td>
                  </tr>
                )}
                {owned.assets.map((a) => (
                  <tr key={a.asset_id} data-owned={a.name}>
                    <td>
                      <Link className="adm-user-link" to={`/asset/${a.asset_id}`}>
                        <Icon name="other" size={16} className="muted" />
                        {a.name}
                      </Link>
                      <span className="adm-sub">{mimeLabel(a.mimetype)}</span>
                    </td>
                    <td className="adm-nowrap"><LocalTime iso={a.mtime} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager skip={owned.paging.assetSkip} take={api.PAGE_SIZE} count={owned.assets.length} onSkip={page("files")} />
          </div>
        </div>
      </section>
      <section className="adm-section">
        <div>
          <h3 className="adm-h3">{t.userRules}</h3>
          <p className="muted">{t.userRulesHint}</p>
        </div>
        {rules && rules.length === 0 && skip === 0 ? (
          <div className="panel empty adm-empty-sm">
            <div className="empty-title">{t.noRules}</div>
            <div>{t.noUserRulesHint}</div>
          </div>
        ) : (
          <div className="panel">{rules && <RulesTable rules={rules} showVia />}</div>
        )}
        {rules && <Pager skip={skip} take={api.PAGE_SIZE} count={rules.length} onSkip={setSkip} />}
      </section>
    </div>
  );
}
