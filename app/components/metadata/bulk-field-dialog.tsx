import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { showToast } from "../../lib/toast";
import { Icon } from "../icons";
import { Modal } from "../modal";
import * as api from "./api";
import { draftError, ValueInput } from "./value-input";

const t = ru.metadataAdmin;

/** The bulk-bar button of MamGroup that opens the dialog below. */
export function BulkFieldButton({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" className="btn" onClick={onClick}>
      <Icon name="edit" size={16} />
      {t.bulkSet}
    </button>
  );
}

/**
 * Sets one field on the selected files in one call (one D1 batch on the server): choose the field, type the value
 * (checked as it is typed), and whether it replaces existing values or adds one more (multi-valued fields).
 */
export function BulkFieldDialog({ assetIds, skippedGroups, onClose }: { assetIds: string[]; skippedGroups: boolean; onClose: () => void }) {
  const [templates, setTemplates] = useState<api.FieldTemplateInfo[]>([]);
  const [defId, setDefId] = useState("");
  const [value, setValue] = useState<unknown>(undefined);
  const [mode, setMode] = useState<"replace" | "add">("replace");
  const [busy, setBusy] = useState(false);
  useEffect(() => void api.listTemplates().then(setTemplates, () => undefined), []);
  const template = templates.find((tpl) => tpl.field_def_id === defId) ?? null;
  const error = template && value !== undefined ? draftError(template, value) : null;

  async function apply() {
    if (!template || value === undefined || error) return;
    setBusy(true);
    try {
      const { changed } = await api.bulkSet({ def_id: defId, entity_ids: assetIds, data: value, mode });
      showToast({ kind: "info", title: t.bulkSet, message: t.bulkDone(changed) });
      onClose();
    } catch {
      // the API client showed the message; the dialog stays open for a correction
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal
      title={t.bulkTitle(assetIds.length)}
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
            disabled={!template || value === undefined || !!error || busy}
            onClick={() => void apply()}
          >
            {t.bulkApply}
          </button>
        </>
      }
    >
      {skippedGroups && <p className="muted md-dialog-hint">{t.bulkOnlyAssets}</p>}
      <div className="field">
        <label htmlFor="bulk-field">{t.bulkField}</label>
        <select id="bulk-field" className="input select" value={defId} onChange={(e) => (setDefId(e.target.value), setValue(undefined))}>
          <option value="">{ru.common.dash}</option>
          {templates.map((tpl) => (
            <option key={tpl.field_def_id} value={tpl.field_def_id}>
              {tpl.field_def_name} · {t.types[tpl.field_type]}
            </option>
          ))}
        </select>
      </div>
      {template && (
        <div className="field">
          <label htmlFor="bulk-value">{t.rangeValue}</label>
          <ValueInput id="bulk-value" template={template} value={value} onChange={setValue} invalid={!!error} />
          {error && <span className="md-field-error">{error}</span>}
        </div>
      )}
      {template?.field_setup.multiple && (
        <div className="field">
          <label htmlFor="bulk-mode">{t.bulkMode}</label>
          <select id="bulk-mode" className="input select" value={mode} onChange={(e) => setMode(e.target.value as "replace" | "add")}>
            <option value="replace">{t.bulkReplace}</option>
            <option value="add">{t.bulkAdd}</option>
          </select>
        </div>
      )}
    </Modal>
  );
}
