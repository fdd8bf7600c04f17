import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { TASK_STATUSES, type TaskStatus } from "../../workers/db/schema/index";
import { TASK_COMMANDS, type TaskCommand } from "../../workers/services/tasks/task-status";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { getJson, insertTask, postJson, taskRow } from "./task-fixtures";

/** Where each command leads from each status through the API (the decision record's table); absent: 409. */
const LEGAL: Record<TaskCommand, Partial<Record<TaskStatus, TaskStatus>>> = {
  pause: { inqueue: "paused", running: "paused" },
  resume: { paused: "inqueue" },
  cancel: { none: "canceled", inqueue: "canceled", running: "canceled", paused: "canceled" },
  restart: { done: "inqueue", error: "inqueue", canceled: "inqueue" },
};

const cases = TASK_COMMANDS.flatMap((command) => TASK_STATUSES.map((status) => [command, status, LEGAL[command][status] ?? null] as const));

interface TaskJson {
  job_id: string;
  status: TaskStatus;
  status_name: string;
  priority: number;
  commands: TaskCommand[];
}

describe("POST /api/tasklist/command/{taskId}: every command from every status", () => {
  it.each(cases)("%s from %s → %s", async (command, from, to) => {
    const user = await signIn();
    const id = await insertTask({ status: from, ownerId: user.id });
    const before = await taskRow(id);
    const res = await call(`/api/tasklist/command/${id}`, { method: "POST", bearer: user.bearer, json: { command } });
    if (to === null) {
      const error = await expectError(res, 409);
      expect(error.message).toBe(ru.tasks.illegalCommand(ru.tasks.commands[command], ru.tasks.statuses[from]));
      expect(await taskRow(id)).toEqual(before);
      return;
    }
    const body = (await res.json()) as TaskJson;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.status).toBe(to);
    expect(body.status_name).toBe(ru.tasks.statuses[to]);
    const log = await getJson<{ lines: { message: string }[] }>(`/api/tasklist/log/${id}`, user.bearer);
    expect(log.lines.at(-1)!.message).toContain(user.login);
  });

  it("answers the legal commands of each status in task-commands", async () => {
    const user = await signIn();
    for (const status of TASK_STATUSES) {
      const id = await insertTask({ status, ownerId: user.id });
      const body = await getJson<{ status: string; commands: { command: string; title: string }[]; priority: boolean }>(
        `/api/tasklist/task-commands/${id}`,
        user.bearer,
      );
      expect(body.status).toBe(status);
      expect(body.commands.map((c) => c.command)).toEqual(TASK_COMMANDS.filter((c) => LEGAL[c][status]));
      expect(body.commands.every((c) => c.title === ru.tasks.commands[c.command])).toBe(true);
      expect(body.priority).toBe(!["done", "error", "canceled"].includes(status));
    }
  });

  it("restart clears the run: progress, resume point, result and attempts", async () => {
    const user = await signIn();
    const id = await insertTask({ status: "error", ownerId: user.id, attempts: 5 });
    const body = await postJson<TaskJson>(`/api/tasklist/command/${id}`, user.bearer, { command: "restart" });
    expect(body.status).toBe("inqueue");
    const row = await taskRow(id);
    expect([row.attempts, row.cursor, row.result, row.error]).toEqual([0, null, null, null]);
  });

  it("refuses bad input: unknown command (400), malformed id (400), unknown task (404)", async () => {
    const user = await signIn();
    const id = await insertTask({ status: "inqueue", ownerId: user.id });
    await expectError(
      await call(`/api/tasklist/command/${id}`, { method: "POST", bearer: user.bearer, json: { command: "explode" } }),
      400,
    );
    await expectError(await call(`/api/tasklist/command/xyz`, { method: "POST", bearer: user.bearer, json: { command: "pause" } }), 400);
    const unknown = "0".repeat(31) + "9";
    const error = await expectError(
      await call(`/api/tasklist/command/${unknown}`, { method: "POST", bearer: user.bearer, json: { command: "pause" } }),
      404,
    );
    expect(error.message).toBe(ru.tasks.notFound);
    expect((await taskRow(id)).status).toBe("inqueue");
  });

  it("refuses another user's task as unknown (404) and changes nothing; an administrator may command it", async () => {
    const owner = await signIn();
    const other = await signIn();
    const id = await insertTask({ status: "inqueue", ownerId: owner.id });
    await expectError(
      await call(`/api/tasklist/command/${id}`, { method: "POST", bearer: other.bearer, json: { command: "cancel" } }),
      404,
    );
    await expectError(await call(`/api/tasklist/priority/${id}`, { method: "POST", bearer: other.bearer, json: { priority: 9 } }), 404);
    expect(await taskRow(id)).toMatchObject({ status: "inqueue", priority: 5 });
    const admin = await signInAdmin();
    expect((await postJson<TaskJson>(`/api/tasklist/command/${id}`, admin.bearer, { command: "pause" })).status).toBe("paused");
  });

  it("changes the priority of unfinished tasks (1–10) and refuses finished ones with 409", async () => {
    const user = await signIn();
    const id = await insertTask({ status: "paused", ownerId: user.id });
    expect((await postJson<TaskJson>(`/api/tasklist/priority/${id}`, user.bearer, { priority: 9 })).priority).toBe(9);
    await expectError(await call(`/api/tasklist/priority/${id}`, { method: "POST", bearer: user.bearer, json: { priority: 11 } }), 400);
    const done = await insertTask({ status: "done", ownerId: user.id });
    const error = await expectError(
      await call(`/api/tasklist/priority/${done}`, { method: "POST", bearer: user.bearer, json: { priority: 2 } }),
      409,
    );
    expect(error.message).toBe(ru.tasks.priorityFinished);
    expect((await taskRow(done)).priority).toBe(5);
  });

  it("lets only cancel reach a task something else runs (an automation's)", async () => {
    const user = await signIn();
    const id = await insertTask({ status: "running", ownerId: user.id, op: "automation" });
    await expectError(await call(`/api/tasklist/command/${id}`, { method: "POST", bearer: user.bearer, json: { command: "pause" } }), 409);
    expect((await postJson<TaskJson>(`/api/tasklist/command/${id}`, user.bearer, { command: "cancel" })).status).toBe("canceled");
    await expectError(
      await call(`/api/tasklist/command/${id}`, { method: "POST", bearer: user.bearer, json: { command: "restart" } }),
      409,
    );
  });
});
