import type { MetaFunction } from "@remix-run/cloudflare";
import { useCallback, useEffect, useState } from "react";
import { Pager } from "../components/admin/pager";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { LocalTime, useDateTimeFormat } from "../components/local-time";
import type { ShortlinkView } from "../../workers/services/sharing";

export const meta: MetaFunction = () => [{ title: `${ru.sharing.adminTitle} — ${ru.app.name}` }];

const t = ru.sharing;
const TAKE = 50;

function rightsOf(l: ShortlinkView): string {
  const right = l.acl.includes("download") ? t.rightDownload : l.acl.includes("download_proxy") ? t.rightProxy : t.rightView;
  return l.has_password ? `${right} · ${t.withPassword}` : right;
}

/** /admin/shortlinks: every active link (not revoked, not past its end), newest first, with revoke. */
export default function AdminShortlinksRoute() {
  const formatTime = useDateTimeFormat();
  const [skip, setSkip] = useState(0);
  const [links, setLinks] = useState<ShortlinkView[] | null>(null);
  const load = useCallback(() => {
    apiRequest<ShortlinkView[]>("/api/sl/list", { query: { skip, take: TAKE } }).then(setLinks, () => undefined);
  }, [skip]);
  useEffect(load, [load]);
  const revoke = (id: string) => apiRequest(`/api/sl/${id}`, { method: "DELETE" }).then(load, () => undefined);

  if (links && links.length === 0 && skip === 0) {
    return (
      <div className="panel empty adm-empty-sm">
        <span className="empty-icon">
          <Icon name="share" size={26} />
        </span>
        <div className="empty-title">{t.adminEmpty}</div>
      </div>
    );
  }
  return (
    <section className="adm-section">
      <div className="panel">
        <table className="table adm-table" data-testid="admin-shortlinks">
          <thead>
            <tr>
              <th>{t.colItem}</th>
              <th>{t.colCreator}</th>
              <th>{t.colCreated}</th>
              <th>{t.colRange}</th>
              <th>{t.colAcl}</th>
              <th>{t.colUse}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {links?.map((l) => (
              <tr key={l.id}>
                <td className="adm-sub-cell">
                  <a href={l.url} target="_blank" rel="noreferrer">
                    {l.entity_name ?? l.entity_id}
                  </a>
                </td>
                <td>{l.creator_name ?? l.creator}</td>
                <td className="num adm-nowrap"><LocalTime iso={l.created} /></td>
                <td className="adm-nowrap">
                  {l.time_range[0] || l.time_range[1]
                    ? t.range(l.time_range[0] && formatTime(l.time_range[0]), l.time_range[1] && formatTime(l.time_range[1]))
                    : t.always}
                </td>
                <td>{rightsOf(l)}</td>
                <td className="num">
                  {l.views} / {l.downloads}
                </td>
                <td>
                  <button type="button" className="btn btn-danger-outline" onClick={() => void revoke(l.id)}>
                    {t.revoke}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <Pager skip={skip} take={TAKE} count={links?.length ?? 0} onSkip={setSkip} />
      </div>
    </section>
  );
}
