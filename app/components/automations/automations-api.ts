import type { StartedRun, WorkflowInfo, ActionEntry, FormField, TriggerForm } from "../../../workers/services/automations";
import { apiRequest } from "../../lib/api-client";

export type { ActionEntry, FormField, StartedRun, TriggerForm, WorkflowInfo };

const BASE = "/api/tasklist/udwf";

/** A trigger, condition or action as the editor holds it: its discriminator plus the form's fields. */
export type Item = Record<string, unknown>;

export interface Draft {
  name: string;
  description: string;
  enabled: boolean;
  trigger: Item;
  conditions: Item[];
  actions: Item[];
}

export const fetchWorkflows = () => apiRequest<{ total: number; items: WorkflowInfo[] }>(`${BASE}/workflows?take=500`);
export const fetchWorkflow = (id: string) => apiRequest<WorkflowInfo>(`${BASE}/workflow/${id}`);
export const fetchActions = () => apiRequest<ActionEntry[]>(`${BASE}/actions`);
export const fetchTriggerForm = () => apiRequest<TriggerForm>(`${BASE}/trigger-form`);
export const setEnabled = (id: string, enabled: boolean) =>
  apiRequest<WorkflowInfo>(`${BASE}/workflow-enable-disable/${id}`, { method: "POST", body: { enabled } });
export const executeWorkflow = (id: string) => apiRequest<StartedRun>(`${BASE}/execute/${id}`, { method: "POST", body: {} });
export const deleteWorkflow = (id: string) => apiRequest<{ id: string }>(`${BASE}/workflow/${id}`, { method: "DELETE" });

/**
 * Saves a draft: creates it, or changes the setup and then name/description/enabled (setup first: enabling a
 * workflow created without a trigger is refused until its setup is stored).
 */
export async function saveWorkflow(id: string | null, d: Draft): Promise<WorkflowInfo> {
  if (!id) return apiRequest<WorkflowInfo>(`${BASE}/workflow`, { method: "POST", body: d });
  await apiRequest<WorkflowInfo>(`${BASE}/workflow-setup/${id}`, {
    method: "PATCH",
    body: { trigger: d.trigger, conditions: d.conditions, actions: d.actions },
  });
  return apiRequest<WorkflowInfo>(`${BASE}/workflow/${id}`, {
    method: "PATCH",
    body: { name: d.name, description: d.description, enabled: d.enabled },
  });
}

/** A new item of `type` (or `kind`) with the defaults its form declares. */
export function blankItem(key: "type" | "kind", type: string, form: FormField[]): Item {
  const item: Item = { [key]: type };
  for (const f of form) {
    if (f.default !== undefined) item[f.name] = f.default;
    else if (f.type === "select" && f.required && f.options?.length) item[f.name] = f.options[0].value;
  }
  return item;
}
