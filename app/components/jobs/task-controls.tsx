import { useState } from "react";
import { ru } from "../../i18n/ru";
import { FINISHED, sendCommand, sendPriority, type TaskView } from "./jobs-api";

const PRIORITIES = Array.from({ length: 10 }, (_, i) => i + 1);

/** The commands legal for the task now (pause, resume, cancel, restart) and its priority; answers the updated task. */
export function TaskControls({ task, onChange, compact }: { task: TaskView; onChange: (t: TaskView) => void; compact?: boolean }) {
  const [busy, setBusy] = useState(false);
  const run = (p: Promise<TaskView>) => {
    setBusy(true);
    p.then(onChange, () => undefined).finally(() => setBusy(false));
  };
  return (
    <div className="job-controls">
      {task.commands.map((command) => (
        <button
          key={command}
          type="button"
          className={`btn ${command === "cancel" ? "btn-danger-outline" : "btn-ghost"} job-command`}
          data-command={command}
          disabled={busy}
          onClick={() => run(sendCommand(task.job_id, command))}
        >
          {ru.tasks.commands[command]}
        </button>
      ))}
      {!compact && !FINISHED.has(task.status) && (
        <select
          className="input select job-priority"
          aria-label={ru.jobs.columns.priority}
          title={ru.jobs.priorityTitle}
          value={task.priority}
          disabled={busy}
          onChange={(e) => run(sendPriority(task.job_id, Number(e.target.value)))}
        >
          {PRIORITIES.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      )}
    </div>
  );
}
