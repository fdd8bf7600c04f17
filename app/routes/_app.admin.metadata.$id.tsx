import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useNavigate } from "@remix-run/react";
import { useEffect, useState } from "react";
import { ConfirmDialog } from "../components/modal";
import * as api from "../components/metadata/api";
import { TemplateForm } from "../components/metadata/template-form";
import { ru } from "../i18n/ru";
import { ApiError } from "../lib/api-error";
import { ID_PATTERN } from "../../workers/lib/ids";

export const meta: MetaFunction = () => [{ title: `${ru.screens.metadataTemplate} — ${ru.app.name}` }];

/** `new` or a template id; anything else is a 404 before any call. */
export function loader({ params }: LoaderFunctionArgs) {
  const id = params.id ?? "";
  if (id !== "new" && !ID_PATTERN.test(id)) throw new Response(ru.metadata.templateNotFound, { status: 404 });
  return { id };
}

const t = ru.metadataAdmin;

/** /admin/metadata/{id}: create (id = new) or edit one field template; deleting asks again when values exist. */
export default function MetadataTemplateRoute() {
  const { id } = useLoaderData<typeof loader>();
  const navigate = useNavigate();
  const [template, setTemplate] = useState<api.FieldTemplateInfo | null | undefined>(id === "new" ? null : undefined);
  const [confirm, setConfirm] = useState(false);
  const [forceText, setForceText] = useState<string | null>(null);
  useEffect(() => {
    if (id === "new") return setTemplate(null);
    api.templatesByIds([id]).then(
      ([found]) => setTemplate(found ?? null),
      () => setTemplate(null),
    );
  }, [id]);

  async function remove(force: boolean) {
    try {
      await api.deleteTemplate(id, force, force);
      navigate("/admin/metadata");
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) setForceText(error.message);
      else throw error;
    }
  }

  return (
    <div className="md-admin">
      <div className="breadcrumbs">
        <Link to="/admin/metadata">← {t.back}</Link>
      </div>
      <h2 className="md-title">{id === "new" ? t.newTemplate : template?.field_def_name ?? t.editTemplate}</h2>
      {template === undefined ? (
        <p className="muted">{ru.common.loading}</p>
      ) : id !== "new" && template === null ? (
        <p className="muted">{ru.metadata.templateNotFound}</p>
      ) : (
        <TemplateForm
          key={template?.field_def_id ?? "new"}
          template={template}
          onSaved={(saved) => (id === "new" ? navigate("/admin/metadata") : setTemplate(saved))}
          onDelete={template ? () => setConfirm(true) : undefined}
        />
      )}
      {confirm && (
        <ConfirmDialog
          title={t.deleteTemplateTitle}
          text={t.deleteTemplateText}
          confirm={t.delete}
          onConfirm={() => remove(false)}
          onClose={() => setConfirm(false)}
        />
      )}
      {forceText && (
        <ConfirmDialog
          title={t.forceDeleteTitle}
          text={forceText}
          confirm={t.forceDeleteConfirm}
          onConfirm={() => remove(true)}
          onClose={() => setForceText(null)}
        />
      )}
    </div>
  );
}
