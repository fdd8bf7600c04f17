import type { MetaFunction } from "@remix-run/cloudflare";
import { useEffect, useState } from "react";
import * as api from "../components/admin/admin-api";
import { useAdminUser } from "../components/admin/outlets";
import { Pager } from "../components/admin/pager";
import { RulesTable } from "../components/admin/rules-table";
import { ru } from "../i18n/ru";

export const meta: MetaFunction = () => [{ title: `${ru.screens.userAssets} — ${ru.app.name}` }];

const t = ru.admin;

/** /admin/user/{id}/assets: what the user reaches beyond their own files — their rules, direct and through groups. */
export default function UserAssetsTab() {
  const { user } = useAdminUser();
  const [skip, setSkip] = useState(0);
  const [rules, setRules] = useState<Awaited<ReturnType<typeof api.userRules>> | null>(null);
  useEffect(() => {
    api.userRules(user.user_id, skip).then(setRules, () => undefined);
  }, [user.user_id, user.mtime, skip]);
  return (
    <section className="adm-section">
      <div className="md-section-head">
        <div>
          <h3 className="adm-h3">{t.userRules}</h3>
          <p className="muted">{t.userRulesHint}</p>
        </div>
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
  );
}
