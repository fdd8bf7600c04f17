import { useCallback, useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { Icon } from "../icons";
import { ConfirmDialog, Modal, NameDialog } from "../modal";
import * as api from "./api";

const t = ru.metadataAdmin;

/** Picks the templates of a class, in the templates' own order (priority, then name). */
function ClassFieldsDialog({
  cls,
  templates,
  onSave,
  onClose,
}: {
  cls: api.AssetClassInfo;
  templates: api.FieldTemplateInfo[];
  onSave: (defFields: string[]) => Promise<unknown>;
  onClose: () => void;
}) {
  const [picked, setPicked] = useState(new Set(cls.def_fields));
  const toggle = (id: string) =>
    setPicked((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <Modal
      title={`${t.classFields}: ${cls.name}`}
      onClose={onClose}
      wide
      footer={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            {t.cancel}
          </button>
          <button
            type="button"
            className="btn btn-primary"
            onClick={() =>
              void onSave(templates.filter((tpl) => picked.has(tpl.field_def_id)).map((tpl) => tpl.field_def_id)).then(
                onClose,
                () => undefined,
              )
            }
          >
            {t.save}
          </button>
        </>
      }
    >
      <p className="muted md-dialog-hint">{t.classFieldsHint}</p>
      <div className="md-pick-list">
        {templates.map((tpl) => (
          <label key={tpl.field_def_id} className="md-pick-row">
            <input type="checkbox" checked={picked.has(tpl.field_def_id)} onChange={() => toggle(tpl.field_def_id)} />
            <span className="md-pick-name">{tpl.field_def_name}</span>
            <span className={`md-type md-type-${tpl.field_type}`}>{t.types[tpl.field_type]}</span>
            {tpl.field_setup.required && <span className="chip md-flag">{t.required}</span>}
          </label>
        ))}
      </div>
    </Modal>
  );
}

type Dialog = { kind: "create" } | { kind: "rename" | "fields" | "delete"; cls: api.AssetClassInfo } | null;

/** Asset classes with their fields: create, rename, choose fields, delete. */
export function ClassesSection() {
  const [classes, setClasses] = useState<api.AssetClassInfo[] | null>(null);
  const [templates, setTemplates] = useState<api.FieldTemplateInfo[]>([]);
  const [dialog, setDialog] = useState<Dialog>(null);
  const load = useCallback(() => {
    api.listClasses().then(setClasses, () => setClasses([]));
    api.listTemplates().then(setTemplates, () => undefined);
  }, []);
  useEffect(load, [load]);
  const byId = new Map(templates.map((tpl) => [tpl.field_def_id, tpl]));

  return (
    <section>
      <div className="md-section-head">
        <p className="muted">{t.classesHint}</p>
        <button type="button" className="btn btn-primary" onClick={() => setDialog({ kind: "create" })}>
          <Icon name="plus" size={16} />
          {t.newClass}
        </button>
      </div>
      {classes === null ? (
        <p className="muted">{ru.common.loading}</p>
      ) : classes.length === 0 ? (
        <div className="panel empty">
          <div className="empty-title">{t.noClasses}</div>
        </div>
      ) : (
        <div className="md-class-grid">
          {classes.map((cls) => (
            <article key={cls.id} className="panel md-class-card" data-class={cls.name}>
              <header>
                <h3>{cls.name}</h3>
                <span className="muted">{t.fieldsCount(cls.def_fields.length)}</span>
              </header>
              <div className="md-chips">
                {cls.def_fields.map((id) => {
                  const tpl = byId.get(id);
                  return tpl ? (
                    <span key={id} className={`chip${tpl.field_setup.required ? " md-chip-required" : ""}`} title={t.types[tpl.field_type]}>
                      {tpl.field_def_name}
                      {tpl.field_setup.required ? " *" : ""}
                    </span>
                  ) : null;
                })}
              </div>
              <footer className="row-actions">
                <button type="button" className="btn btn-ghost" onClick={() => setDialog({ kind: "fields", cls })}>
                  {t.classFields}
                </button>
                <button
                  type="button"
                  className="icon-btn"
                  title={t.rename}
                  aria-label={`${t.rename}: ${cls.name}`}
                  onClick={() => setDialog({ kind: "rename", cls })}
                >
                  <Icon name="edit" size={16} />
                </button>
                <button
                  type="button"
                  className="icon-btn"
                  title={t.delete}
                  aria-label={`${t.delete}: ${cls.name}`}
                  onClick={() => setDialog({ kind: "delete", cls })}
                >
                  <Icon name="trash" size={16} />
                </button>
              </footer>
            </article>
          ))}
        </div>
      )}
      {dialog?.kind === "create" && (
        <NameDialog
          title={t.newClass}
          label={t.className}
          submit={t.create}
          onSubmit={(name) => api.createClass(name, []).then(load)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "rename" && (
        <NameDialog
          title={t.rename}
          label={t.className}
          initial={dialog.cls.name}
          submit={t.save}
          onSubmit={(name) => api.changeClass(dialog.cls.id, { name }).then(load)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "fields" && (
        <ClassFieldsDialog
          cls={dialog.cls}
          templates={templates}
          onSave={(def_fields) => api.changeClass(dialog.cls.id, { def_fields }).then(load)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "delete" && (
        <ConfirmDialog
          title={t.deleteClassTitle}
          text={dialog.cls.name}
          confirm={t.delete}
          onConfirm={() => api.deleteClass(dialog.cls.id).then(load)}
          onClose={() => setDialog(null)}
        />
      )}
    </section>
  );
}
