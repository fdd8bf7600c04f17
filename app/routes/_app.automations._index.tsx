import type { MetaFunction } from "@remix-run/cloudflare";
import { Link, useNavigate } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { deleteWorkflow, executeWorkflow, fetchWorkflows, setEnabled, type WorkflowInfo } from "../components/automations/automations-api";
import { Icon } from "../components/icons";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";
import { LocalTime } from "../components/local-time";
import { showToast } from "../lib/toast";

export const meta: MetaFunction = () => [{ title: `${ru.screens.automations} — ${ru.app.name}` }];

function triggerText(w: WorkflowInfo): string {
  // A draft created through the API without a trigger (SPEC's workflow-setup sets it later).
  if (!w.trigger) return ru.apiContract.draftTrigger;
  const name = ru.automations.triggers[w.trigger.type] ?? w.trigger.type;
  return w.trigger.type === "schedule" ? `${name}: ${w.trigger.cron}` : name;
}

/** /automations: every automation with its trigger, switch, runs and 'Запустить'. */
export default function AutomationsScreen() {
  const a = ru.automations;
  const navigate = useNavigate();
  const [items, setItems] = useState<WorkflowInfo[] | null>(null);
  const load = useCallback(
    () =>
      void fetchWorkflows().then(
        (r) => setItems(r.items),
        () => setItems([]),
      ),
    [],
  );
  useEffect(load, [load]);
  const replace = (w: WorkflowInfo) => setItems((list) => list?.map((x) => (x.id === w.id ? w : x)) ?? null);

  const create = (
    <Link to="/automations/new" className="btn btn-primary">
      <Icon name="plus" size={16} />
      {a.create}
    </Link>
  );
  return (
    <>
      <PageHeader title={ru.screens.automations} subtitle={a.subtitle} actions={create} />
      {items && items.length === 0 ? (
        <section className="panel empty">
          <span className="empty-icon">
            <Icon name="automations" size={26} />
          </span>
          <div className="empty-title">{a.empty}</div>
          <div className="muted">{a.emptyHint}</div>
        </section>
      ) : (
        <section className="panel">
          <table className="table wf-table">
            <thead>
              <tr>
                {Object.entries(a.columns).map(([k, v]) => (
                  <th key={k}>{v}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {items?.map((w) => (
                <tr key={w.id} data-workflow={w.id}>
                  <td className="name-cell">
                    <Link to={`/automations/${w.id}`}>{w.name}</Link>
                  </td>
                  <td>{triggerText(w)}</td>
                  <td>
                    <button
                      type="button"
                      role="switch"
                      aria-checked={w.enabled}
                      aria-label={w.enabled ? a.disable : a.enable}
                      className={`wf-switch${w.enabled ? " on" : ""}`}
                      onClick={() => void setEnabled(w.id, !w.enabled).then(replace, () => undefined)}
                    >
                      <span />
                    </button>
                  </td>
                  <td className="num">{w.runs}</td>
                  <td className="wf-date"><LocalTime iso={w.last_run_at} /></td>
                  <td className="wf-date"><LocalTime iso={w.next_run_at} /></td>
                  <td>
                    <div className="row-actions wf-row-actions">
                      <button
                        type="button"
                        className="btn btn-ghost"
                        data-action="run"
                        onClick={() =>
                          void executeWorkflow(w.id).then(
                            (run) => {
                              showToast({ title: a.run, message: a.runStarted(run.job_num), kind: "info" });
                              navigate(`/jobs/${run.task_id}`);
                            },
                            () => undefined,
                          )
                        }
                      >
                        {a.run}
                      </button>
                      <Link className="btn btn-ghost" to={`/automations/${w.id}`}>
                        {a.edit}
                      </Link>
                      <button
                        type="button"
                        className="btn btn-ghost"
                        onClick={() => {
                          if (window.confirm(a.confirmRemove(w.name))) void deleteWorkflow(w.id).then(load, () => undefined);
                        }}
                      >
                        {a.remove}
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}
