import type { TaskLogLevel } from "../../../durable-objects/task-state.do";

/** The TaskStateDO of a task (one object per task id): its log, live progress and pending command. */
export function taskStub(env: Env, taskId: string) {
  return env.TASKS_DO.get(env.TASKS_DO.idFromName(taskId));
}

/**
 * Appends lines to a task's log (the seam automations use for their runs' logs).
 * @example await appendTaskLog(env, taskId, "info", "Тег «Интервью» добавлен")
 */
export async function appendTaskLog(env: Env, taskId: string, level: TaskLogLevel, message: string): Promise<void> {
  await taskStub(env, taskId).appendLog(level, message.slice(0, 10_000));
}
