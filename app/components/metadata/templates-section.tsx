import { Link } from "@remix-run/react";
import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { Icon } from "../icons";
import * as api from "./api";

const t = ru.metadataAdmin;

/** The templates table: name, type, order, flags and the external key each one maps to. */
export function TemplatesSection() {
  const [templates, setTemplates] = useState<api.FieldTemplateInfo[] | null>(null);
  useEffect(() => void api.listTemplates().then(setTemplates, () => setTemplates([])), []);

  return (
    <section>
      <div className="md-section-head">
        <p className="muted">{t.templatesHint}</p>
        <Link to="/admin/metadata/new" className="btn btn-primary">
          <Icon name="plus" size={16} />
          {t.newTemplate}
        </Link>
      </div>
      {templates === null ? (
        <p className="muted">{ru.common.loading}</p>
      ) : templates.length === 0 ? (
        <div className="panel empty">
          <div className="empty-title">{t.noTemplates}</div>
          <div>{t.noTemplatesHint}</div>
        </div>
      ) : (
        <div className="panel">
          <table className="table md-table">
            <thead>
              <tr>
                <th>{t.name}</th>
                <th>{t.type}</th>
                <th className="num">{t.priority}</th>
                <th>{t.flags}</th>
                <th>{t.mapping}</th>
              </tr>
            </thead>
            <tbody>
              {templates.map((tpl) => (
                <tr key={tpl.field_def_id} data-template={tpl.field_def_name}>
                  <td className="name-cell">
                    <Link to={`/admin/metadata/${tpl.field_def_id}`}>{tpl.field_def_name}</Link>
                  </td>
                  <td>
                    <span className={`md-type md-type-${tpl.field_type}`}>{t.types[tpl.field_type]}</span>
                  </td>
                  <td className="num">{tpl.field_priority}</td>
                  <td>
                    {tpl.field_setup.required && <span className="chip md-flag">{t.required}</span>}
                    {tpl.field_setup.multiple && <span className="chip md-flag">{t.multiple}</span>}
                  </td>
                  <td>
                    {tpl.field_def_extsys_key ? (
                      <code className="md-key">
                        {tpl.field_def_extsys ? `${tpl.field_def_extsys} · ` : ""}
                        {tpl.field_def_extsys_key}
                      </code>
                    ) : (
                      <span className="muted">{ru.common.dash}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
