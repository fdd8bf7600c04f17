import { cronProblem, nextCronTime, parseCron } from "../../../workers/services/automations/pure";
import { ru } from "../../i18n/ru";
import { useDateTimeFormat } from "../local-time";
import type { FormField, Item } from "./automations-api";
import { FieldPicker, GroupPicker, TagPicker, TemplatePicker } from "./pickers";

/** One field of a catalogue form, drawn by its type; `error` is the validation message for it. */
export function FormInput({
  field,
  item,
  path,
  error,
  onChange,
}: {
  field: FormField;
  item: Item;
  path: string;
  error?: string;
  onChange: (value: unknown) => void;
}) {
  const formatTime = useDateTimeFormat();
  const id = `wf-${path}`;
  const raw = item[field.name];
  const text = raw === undefined || raw === null ? "" : String(raw);
  const optional = !field.required;
  let input: React.ReactNode;
  switch (field.type) {
    case "tag":
      input = <TagPicker id={id} value={text} onChange={onChange} optional={optional} />;
      break;
    case "group":
      input = <GroupPicker id={id} value={text} onChange={onChange} optional={optional} />;
      break;
    case "field":
      input = <FieldPicker id={id} value={text} onChange={onChange} optional={optional} />;
      break;
    case "template":
      input = (
        <TemplatePicker
          id={id}
          value={text}
          onChange={onChange}
          optional={optional}
          operation={String(item[field.depends_on ?? "operation"] ?? "")}
        />
      );
      break;
    case "select":
      input = (
        <select id={id} className="input select" value={text} onChange={(e) => onChange(e.target.value || undefined)}>
          {!field.required && <option value="">{ru.automations.anyValue}</option>}
          {field.options?.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      );
      break;
    case "boolean":
      input = <input id={id} type="checkbox" className="wf-check" checked={raw === true} onChange={(e) => onChange(e.target.checked)} />;
      break;
    case "number":
      input = (
        <input
          id={id}
          className="input"
          type="number"
          min={field.min}
          max={field.max}
          value={text}
          onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))}
        />
      );
      break;
    default:
      input = (
        <input
          id={id}
          className={`input${field.type === "cron" ? " mono" : ""}`}
          type={field.type === "url" ? "url" : "text"}
          value={text}
          placeholder={field.type === "url" ? "https://" : undefined}
          onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value)}
        />
      );
  }
  return (
    <div className={`wf-field${error ? " wf-field-invalid" : ""}`} data-field={path}>
      <label htmlFor={id}>
        {field.label}
        {field.required && <span className="wf-required">*</span>}
      </label>
      {input}
      {field.help && <div className="muted wf-help">{field.help}</div>}
      {field.type === "cron" && text && !cronProblem(text) && (
        <div className="muted wf-help" data-next-run>
          {ru.automations.nextRun(formatTime(new Date(nextCronTime(parseCron(text), Date.now())!).toISOString()))}
        </div>
      )}
      {error && <div className="wf-error">{error}</div>}
    </div>
  );
}
