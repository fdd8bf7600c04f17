import type { TaskView } from "../../../workers/services/tasks";
import { apiRequest } from "../../lib/api-client";

export type { TaskView };

/** Statuses a task never leaves by itself: nothing left to follow live. */
export const FINISHED = new Set(["done", "error", "canceled"]);

export interface TaskFilters {
  name: string;
  status: string;
  op: string;
  asset: string;
}

export interface LogLine {
  seq: number;
  time: string;
  level: "info" | "warn" | "error";
  message: string;
}

function filterQuery(f: TaskFilters): URLSearchParams {
  const q = new URLSearchParams();
  if (f.name.trim()) q.set("name", f.name.trim());
  if (f.status) q.set("status", f.status);
  if (f.op) q.set("op", f.op);
  if (/^[0-9a-f]{32}$/.test(f.asset.trim())) q.set("asset", f.asset.trim());
  return q;
}

/** One page of tasks and the total under the same filters. */
export async function fetchTasks(f: TaskFilters, skip: number, take: number): Promise<{ items: TaskView[]; total: number }> {
  const q = filterQuery(f);
  const [items, count] = await Promise.all([
    apiRequest<TaskView[]>(`/api/tasklist/current?${q}&skip=${skip}&take=${take}`),
    apiRequest<{ count: number }>(`/api/tasklist/current/count?${q}`),
  ]);
  return { items, total: count.count };
}

export const fetchTaskStatuses = (ids: string[]) =>
  apiRequest<TaskView[]>("/api/tasklist/task-status", { method: "POST", body: { ids }, toast: false });
export const fetchTask = (id: string) => apiRequest<TaskView>(`/api/tasklist/task/${id}`);
export const fetchLog = (id: string, after: number) =>
  apiRequest<{ lines: LogLine[]; last_seq: number; total: number }>(`/api/tasklist/log/${id}?after=${after}&take=500`, { toast: false });
export const fetchTaskResult = (id: string) =>
  apiRequest<{ download_url: string | null }>(`/api/tasklist/task-result/${id}`, { toast: false });
export const sendCommand = (id: string, command: string) =>
  apiRequest<TaskView>(`/api/tasklist/command/${id}`, { method: "POST", body: { command } });
export const sendPriority = (id: string, priority: number) =>
  apiRequest<TaskView>(`/api/tasklist/priority/${id}`, { method: "POST", body: { priority } });
