import type { MetaFunction } from "@remix-run/cloudflare";
import { useEffect, useState } from "react";
import { AccessEditor } from "../components/access/access-editor";
import type { AccessRule } from "../components/access/access-api";
import * as api from "../components/admin/admin-api";
import { useAdminGroup } from "../components/admin/outlets";
import { Pager } from "../components/admin/pager";
import { RulesTable } from "../components/admin/rules-table";
import { ru } from "../i18n/ru";

export const meta: MetaFunction = () => [{ title: `${ru.screens.groupAssets} — ${ru.app.name}` }];

const t = ru.admin;

/**
 * /admin/group/{id}/assets: what the group's members reach (rules whose subject is the group) and who has access
 * to the group itself as a folder (the access rules editor).
 */
export default function GroupAssetsTab() {
  const { group } = useAdminGroup();
  const [skip, setSkip] = useState(0);
  const [rules, setRules] = useState<AccessRule[] | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api.groupRules(group.group_id, skip).then(setRules, () => undefined);
  }, [group.group_id, skip, version]);

  return (
    <div className="adm-stack">
      <section className="adm-section">
        <div className="md-section-head">
          <div>
            <h3 className="adm-h3">{t.groupRules}</h3>
            <p className="muted">{t.groupRulesHint}</p>
          </div>
        </div>
        {rules && rules.length === 0 && skip === 0 ? (
          <div className="panel empty adm-empty-sm">
            <div className="empty-title">{t.noRules}</div>
            <div>{t.noGroupRulesHint}</div>
          </div>
        ) : (
          <div className="panel">{rules && <RulesTable rules={rules} />}</div>
        )}
        {rules && <Pager skip={skip} take={api.PAGE_SIZE} count={rules.length} onSkip={setSkip} />}
      </section>
      <section className="adm-section">
        <h3 className="adm-h3">{t.groupAccess}</h3>
        <div className="panel pad">
          <AccessEditor entityId={group.group_id} onChanged={() => setVersion((v) => v + 1)} />
        </div>
      </section>
    </div>
  );
}
