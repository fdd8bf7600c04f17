import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { describeError } from "../../lib/api-error";
import { showToast } from "../../lib/toast";
import { ErrorBox } from "../admin/error-box";
import { Icon } from "../icons";
import * as api from "./access-api";
import { LevelChecks, LevelLegend, useLevelTitles } from "./level-checks";
import { draftsOf, emptyDraft, hasChanges, planChanges, type Draft } from "./rule-drafts";
import { SubjectIcon } from "./subject-icon";
import { SubjectSearch } from "./subject-search";

const t = ru.admin.accessEditor;

/**
 * The access rules of one asset or group: who has which levels here, the rules inherited from the groups above
 * (read-only, with where they come from), and the inheritance switch. Changes are saved together in one
 * all-or-nothing batch; the API's refusals (a level the editor does not hold, an unknown subject) are shown here.
 */
export function AccessEditor({ entityId, onChanged }: { entityId: string; onChanged?: () => void }) {
  const titles = useLevelTitles();
  const [data, setData] = useState<api.EntityRules | null>(null);
  const [grantable, setGrantable] = useState<api.AccessLevel[]>([]);
  const [denied, setDenied] = useState<string | null>(null);
  const [drafts, setDrafts] = useState<Draft[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      const [rules, acl] = await Promise.all([api.entityRules(entityId), api.aclAccess(entityId)]);
      setData(rules);
      setDrafts(draftsOf(rules));
      setGrantable(acl.grantable);
      setDenied(null);
    } catch (e) {
      setDenied(describeError(e));
    }
  }, [entityId]);
  useEffect(() => {
    setData(null);
    void load();
  }, [load]);

  if (denied) return <ErrorBox message={`${t.noAcl} ${denied}`} />;
  if (!data || Object.keys(titles).length === 0) return <p className="muted">{ru.common.loading}</p>;

  const changes = planChanges(data, drafts);
  const dirty = hasChanges(changes);
  const inherited = data.rules.filter((r) => r.inherited);

  const patch = (index: number, change: Partial<Draft>) => setDrafts((list) => list.map((d, i) => (i === index ? { ...d, ...change } : d)));

  async function save() {
    const empty = emptyDraft(drafts);
    if (empty) return setError(t.emptyLevels(empty.subj_name ?? t.unknownSubject));
    setBusy(true);
    setError(null);
    try {
      await api.changeRules(changes);
      showToast({ title: t.saved, message: data!.name, kind: "info" });
      await load();
      onChanged?.();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  async function switchInheritance(inherit: boolean) {
    setError(null);
    try {
      await api.setInheritance(entityId, inherit);
      await load();
      onChanged?.();
    } catch (e) {
      setError(describeError(e));
    }
  }

  return (
    <div className="acc-editor" data-testid="access-editor">
      <label className="acc-switch">
        <input type="checkbox" role="switch" checked={data.inherit} onChange={(e) => void switchInheritance(e.target.checked)} />
        <span className="acc-switch-track" aria-hidden="true" />
        <span>
          <span className="acc-switch-label">{t.inherit}</span>
          <span className="md-hint">{t.inheritHint}</span>
        </span>
      </label>

      <h3 className="acc-head">{t.own}</h3>
      {drafts.length === 0 && <p className="muted acc-none">{t.noOwn}</p>}
      <ul className="acc-rules">
        {drafts.map((d, i) => (
          <li
            key={`${d.subj_type}:${d.subj_id}`}
            className={`acc-rule${d.removed ? " removed" : ""}`}
            data-subject={d.subj_name ?? d.subj_id}
          >
            <div className="acc-subject">
              <SubjectIcon type={d.subj_type} name={d.subj_name} />
              <span className="acc-subject-name">{d.subj_name ?? t.unknownSubject}</span>
              <span className="acc-subject-type">{t.subjectTypes[d.subj_type]}</span>
              {!d.rule_id && <span className="adm-badge adm-badge-accent">{t.newRule}</span>}
              {d.removed && <span className="adm-badge adm-badge-danger">{t.removed}</span>}
            </div>
            <LevelChecks
              titles={titles}
              value={d.acl}
              grantable={grantable}
              disabled={d.removed}
              name={d.subj_name ?? d.subj_id}
              onChange={(acl) => patch(i, { acl })}
            />
            {d.removed ? (
              <button type="button" className="btn btn-ghost" onClick={() => patch(i, { removed: false })}>
                {t.restoreRule}
              </button>
            ) : (
              <button
                type="button"
                className="icon-btn acc-remove"
                title={t.removeRule(d.subj_name ?? t.unknownSubject)}
                aria-label={t.removeRule(d.subj_name ?? t.unknownSubject)}
                onClick={() => (d.rule_id ? patch(i, { removed: true }) : setDrafts((list) => list.filter((_, j) => j !== i)))}
              >
                <Icon name="trash" size={16} />
              </button>
            )}
          </li>
        ))}
      </ul>
      <div className="acc-add">
        <SubjectSearch
          types={["user", "group"]}
          placeholder={ru.admin.form.subjectSearch}
          label={t.addSubject}
          exclude={drafts.map((d) => d.subj_id)}
          onPick={(e) =>
            setDrafts((list) => [
              ...list,
              { rule_id: null, subj_id: e.id, subj_type: e.type, subj_name: e.name, acl: ["read"], removed: false },
            ])
          }
        />
      </div>

      <LevelLegend titles={titles} />
      <ErrorBox message={error} />
      <div className="acc-actions">
        {dirty && <span className="muted">{t.unsaved}</span>}
        <span className="md-spacer" />
        <button type="button" className="btn btn-ghost" disabled={!dirty || busy} onClick={() => setDrafts(draftsOf(data))}>
          {t.reset}
        </button>
        <button type="button" className="btn btn-primary" disabled={!dirty || busy} onClick={() => void save()}>
          {t.save}
        </button>
      </div>

      <h3 className="acc-head">{t.inherited}</h3>
      {!data.inherit && <p className="muted acc-none">{t.inheritOff}</p>}
      {data.inherit && inherited.length === 0 && <p className="muted acc-none">{t.noInherited}</p>}
      <ul className="acc-rules">
        {inherited.map((r) => (
          <li key={r.rule_id} className="acc-rule inherited" data-subject={r.subj_name ?? r.subj_id}>
            <div className="acc-subject">
              <SubjectIcon type={r.subj_type} name={r.subj_name} />
              <span className="acc-subject-name">{r.subj_name ?? t.unknownSubject}</span>
              <span className="acc-subject-type">{t.subjectTypes[r.subj_type]}</span>
            </div>
            <div className="acc-levels">
              {r.acl.map((l) => (
                <span key={l} className={`chip acc-chip${l === "deny" ? " deny" : ""}`}>
                  {titles[l] ?? l}
                </span>
              ))}
            </div>
            <Link className="acc-from" to={`/mam/${r.from}`}>
              <Icon name="folder" size={14} className="folder-icon" /> {t.inheritedFrom(r.obj_name ?? r.from)}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
