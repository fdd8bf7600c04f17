import type { MetaFunction } from "@remix-run/cloudflare";
import { Link, useNavigate, useParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import {
  blankItem,
  executeWorkflow,
  fetchActions,
  fetchTriggerForm,
  fetchWorkflow,
  saveWorkflow,
  type ActionEntry,
  type Draft,
  type TriggerForm,
  type WorkflowInfo,
} from "../components/automations/automations-api";
import { validateDraft, WorkflowEditor, type FieldErrors } from "../components/automations/workflow-editor";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";
import { ApiError } from "../lib/api-error";
import { showToast } from "../lib/toast";

export const meta: MetaFunction = () => [{ title: `${ru.screens.automation} — ${ru.app.name}` }];

function draftOf(w: WorkflowInfo): Draft {
  // A draft created through the API has no trigger yet: the editor starts it at "manual".
  const trigger = w.trigger ?? { type: "manual" };
  return { name: w.name, description: w.description, enabled: w.enabled, trigger, conditions: w.conditions, actions: w.actions };
}

/** The field a server 400 names (`Поле «actions.0.url»: …`), so the editor can mark it. */
function serverErrors(error: unknown): FieldErrors {
  if (!(error instanceof ApiError) || error.status !== 400) return {};
  const m = /^Поле «([^»]+)»: (.*)$/s.exec(error.message);
  return m ? { [m[1]]: m[2], "": error.message } : { "": error.message };
}

/** /automations/{id} ('new' to create): the editor, validated with the API's own contract before saving. */
export default function AutomationScreen() {
  const { id = "new" } = useParams();
  const isNew = id === "new";
  const a = ru.automations;
  const navigate = useNavigate();
  const [catalogue, setCatalogue] = useState<{ actions: ActionEntry[]; form: TriggerForm } | null>(null);
  const [saved, setSaved] = useState<WorkflowInfo | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void Promise.all([fetchActions(), fetchTriggerForm()]).then(
      ([actions, form]) => setCatalogue({ actions, form }),
      () => undefined,
    );
  }, []);
  useEffect(() => {
    setErrors({});
    if (!isNew) {
      fetchWorkflow(id).then(
        (w) => {
          setSaved(w);
          setDraft(draftOf(w));
        },
        () => undefined,
      );
    }
  }, [id, isNew]);
  useEffect(() => {
    if (isNew && catalogue && !draft) {
      const trigger = catalogue.form.triggers[0];
      const action = catalogue.actions[0];
      setDraft({
        name: "",
        description: "",
        enabled: true,
        trigger: blankItem("type", trigger.type, trigger.form),
        conditions: [],
        actions: [blankItem("type", action.type, action.form)],
      });
    }
  }, [isNew, catalogue, draft]);

  const save = () => {
    if (!draft) return;
    const found = validateDraft(draft);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      showToast({ title: ru.errors.title, message: found[""] ?? a.invalid });
      return;
    }
    setBusy(true);
    saveWorkflow(isNew ? null : id, draft)
      .then(
        (w) => {
          setSaved(w);
          setDraft(draftOf(w));
          showToast({ title: a.saved, message: w.name, kind: "info" });
          if (isNew) navigate(`/automations/${w.id}`, { replace: true });
        },
        (e: unknown) => setErrors(serverErrors(e)),
      )
      .finally(() => setBusy(false));
  };

  const actions = (
    <div className="toolbar">
      {saved && (
        <button
          type="button"
          className="btn"
          onClick={() =>
            void executeWorkflow(saved.id).then(
              (run) => navigate(`/jobs/${run.task_id}`),
              () => undefined,
            )
          }
        >
          {a.run}
        </button>
      )}
      <button type="button" className="btn btn-primary" disabled={busy || !draft} onClick={save}>
        {ru.common.save}
      </button>
    </div>
  );
  return (
    <>
      <PageHeader
        title={isNew ? a.newTitle : saved?.name ?? ru.common.loading}
        crumbs={<Link to="/automations">{a.back}</Link>}
        actions={actions}
      />
      {errors[""] && <div className="wf-error wf-error-banner">{errors[""]}</div>}
      {draft && catalogue ? (
        <WorkflowEditor draft={draft} onChange={setDraft} catalogue={catalogue} errors={errors} />
      ) : (
        <div className="muted">{ru.common.loading}</div>
      )}
      {saved && (
        <section className="panel pad wf-section wf-meta">
          <div className="wf-field">
            <label>{a.secret}</label>
            <code className="mono wf-secret">{saved.webhook_secret}</code>
            <div className="muted wf-help">{a.secretHint}</div>
          </div>
          <Link to={`/jobs?op=automation&name=${encodeURIComponent(saved.name)}`}>{a.runs}</Link>
        </section>
      )}
    </>
  );
}
