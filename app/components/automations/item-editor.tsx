import { ru } from "../../i18n/ru";
import { blankItem, type FormField, type Item } from "./automations-api";
import { FormInput } from "./form-input";

export interface ItemKind {
  type: string;
  name: string;
  description: string;
  form: FormField[];
}

/**
 * One trigger, condition or action: a choice of its kind from the catalogue, then its form. Changing the kind
 * starts the item over with that kind's defaults.
 */
export function ItemEditor({
  kinds,
  discriminator,
  item,
  path,
  errors,
  onChange,
  toolbar,
}: {
  kinds: ItemKind[];
  discriminator: "type" | "kind";
  item: Item;
  path: string;
  errors: Record<string, string>;
  onChange: (item: Item) => void;
  toolbar?: React.ReactNode;
}) {
  const current = String(item[discriminator] ?? "");
  const kind = kinds.find((k) => k.type === current);
  const ownError = errors[path] ?? errors[`${path}.${discriminator}`];
  return (
    <div className="wf-item" data-item={path} data-kind={current}>
      <div className="wf-item-head">
        <select
          className="input select wf-kind"
          aria-label={path}
          value={current}
          onChange={(e) => {
            const next = kinds.find((k) => k.type === e.target.value);
            if (next) onChange(blankItem(discriminator, next.type, next.form));
          }}
        >
          {kinds.map((k) => (
            <option key={k.type} value={k.type}>
              {k.name}
            </option>
          ))}
        </select>
        {toolbar}
      </div>
      {kind && kind.description !== kind.name && <div className="muted wf-help">{kind.description}</div>}
      {ownError && <div className="wf-error">{ownError}</div>}
      {kind && kind.form.length > 0 && (
        <div className="wf-form-grid">
          {kind.form.map((f) => (
            <FormInput
              key={f.name}
              field={f}
              item={item}
              path={`${path}.${f.name}`}
              error={errors[`${path}.${f.name}`]}
              onChange={(value) => {
                const next = { ...item };
                if (value === undefined) delete next[f.name];
                else next[f.name] = value;
                onChange(next);
              }}
            />
          ))}
        </div>
      )}
      {!kind && <div className="wf-error">{ru.automations.pick}</div>}
    </div>
  );
}
