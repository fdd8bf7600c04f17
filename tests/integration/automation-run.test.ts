import { introspectWorkflow } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import { runDueSchedules } from "../../workers/services/automations/automation-runs.service";
import { type WorkflowInfo } from "../../workers/services/automations/automation.service";
import { deliverEvents } from "../../workers/services/automations/event-outbox.service";
import { MAX_CHAIN_DEPTH } from "../../workers/services/events/cause";
import { sendWebhook, signBody, SIGNATURE_HEADER, WebhookRefused } from "../../workers/services/automations/udwf/webhook";
import type { RunOutcome } from "../../workers/workflows/automation.workflow";
import { rows, testContext } from "./catalog-fixtures";
import { deliveriesOf, insertOutboxEvents, type OutboxEventSpec } from "./outbox-fixtures";
import { admin, createGroup, insertAsset, insertTag, send, throughShards, uniqueName } from "./library-factories";

const BASE = "/api/tasklist/udwf";

async function createWorkflow(body: Record<string, unknown>): Promise<WorkflowInfo> {
  const a = await admin();
  const res = await send<WorkflowInfo>("POST", `${BASE}/workflow`, a.bearer, { name: uniqueName("Автоматизация"), ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function taskRow(id: string) {
  const [row] = await rows<{ status: string; progress: number; error: string | null; name: string; operation_class: string }>(
    `select status, progress, error, name, operation_class from tasks where id = ?`,
    id,
  );
  return row;
}

async function logOf(taskId: string): Promise<string[]> {
  const stub = env.TASKS_DO.get(env.TASKS_DO.idFromName(taskId));
  return (await stub.readLog(0, 1000)).map((l) => l.message);
}

const tagsOf = async (assetId: string) =>
  (await rows<{ tag_id: string }>(`select tag_id from entity_tags where entity_id = ? order by tag_id`, assetId)).map((r) => r.tag_id);
const groupsOf = async (assetId: string) =>
  (await rows<{ group_id: string }>(`select group_id from group_members where el_id = ? order by group_id`, assetId)).map(
    (r) => r.group_id,
  );

/** Puts events into the outbox and runs the dispatcher: the tasks of the runs they started, in event order. */
async function deliver(events: OutboxEventSpec[]): Promise<{ task_id: string }[]> {
  const ids = await insertOutboxEvents(events);
  await deliverEvents(testContext());
  return (await deliveriesOf(ids)).filter((d) => d.task_id !== null).map((d) => ({ task_id: d.task_id! }));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("an automation run end to end", () => {
  it("runs every action as its own step, reports each to the run's task, signs the webhook and finishes", async () => {
    const a = await admin();
    const [inbox, archive, copies] = await Promise.all([
      createGroup(a, uniqueName()),
      createGroup(a, uniqueName()),
      createGroup(a, uniqueName()),
    ]);
    const asset = await insertAsset({ ownerId: a.id, mime: "image/jpeg", groups: [inbox] });
    const keep = await insertTag();
    const drop = await insertTag();
    await throughShards(() =>
      env.DB.prepare("INSERT INTO entity_tags (tag_id, entity_id, entity_type) VALUES (?, ?, 'asset')").bind(drop, asset.id).run(),
    );
    const wf = await createWorkflow({
      trigger: { type: "manual" },
      actions: [
        { type: "add-tag", tag_id: keep },
        { type: "remove-tag", tag_id: drop },
        { type: "wait", seconds: 3600 },
        { type: "move-to-group", group_id: archive },
        { type: "copy-to-group", group_id: copies },
        { type: "webhook", url: "https://hooks.example.com/mam" },
      ],
    });
    // Read inside the mock: the request belongs to the Workflow's I/O context, not the test's.
    const sent: { method: string; signature: string | null; body: string }[] = [];
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      if (new URL(request.url).hostname !== "hooks.example.com") return realFetch(input, init);
      sent.push({ method: request.method, signature: request.headers.get(SIGNATURE_HEADER), body: await request.text() });
      return new Response("ok", { status: 202 });
    });

    const introspector = await introspectWorkflow(env.AUTOMATIONS);
    try {
      await introspector.modifyAll(async (m) => {
        await m.disableSleeps();
      });
      const started = await send<{ task_id: string }>("POST", `${BASE}/execute/${wf.id}`, a.bearer, { asset_id: asset.id });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      const [instance] = await introspector.get();
      await instance.waitForStatus("complete");
      const output = (await instance.getOutput()) as RunOutcome;
      expect(output.status).toBe("done");
      expect(output.steps).toHaveLength(6);
      expect(await instance.waitForStepResult({ name: "1: add-tag" })).toMatchObject({ ok: true });

      expect(await tagsOf(asset.id)).toEqual([keep]);
      expect(await groupsOf(asset.id)).toEqual([archive]);
      const copied = await rows<{ el_id: string }>(`select el_id from group_members where group_id = ?`, copies);
      expect(copied).toHaveLength(1);
      expect(copied[0].el_id).not.toBe(asset.id);

      expect(sent).toHaveLength(1);
      const { body } = sent[0];
      expect(sent[0].method).toBe("POST");
      expect(sent[0].signature).toBe(await signBody(wf.webhook_secret, body));
      expect(JSON.parse(body)).toMatchObject({ workflow_id: wf.id, task_id: started.body.task_id, asset_id: asset.id, step: 6 });

      const task = await taskRow(started.body.task_id);
      expect(task).toMatchObject({ status: "done", progress: 100, operation_class: "automation" });
      const log = await logOf(started.body.task_id);
      expect(log).toContain(ru.automations.log.step(1, 6, ru.automations.actions["add-tag"]));
      expect(log).toContain(ru.automations.log.stepDone(6, ru.automations.log.webhookSent(202)));
      expect(log.at(-1)).toBe(ru.automations.log.done);
    } finally {
      await introspector.dispose();
    }
  });

  it("fills a metadata field and queues a task of a template", async () => {
    const a = await admin();
    const asset = await insertAsset({ ownerId: a.id, mime: "image/jpeg" });
    const field = await send<{ field_def_id: string }>("POST", "/api/fields/template", a.bearer, {
      field_def_name: uniqueName("Источник"),
      field_type: "text",
    });
    expect(field.status, JSON.stringify(field.body)).toBe(200);
    const wf = await createWorkflow({
      trigger: { type: "manual" },
      actions: [
        { type: "set-field", field_def_id: field.body.field_def_id, value: "автоматизация" },
        { type: "run-task", operation: "tech-fields" },
      ],
    });
    const introspector = await introspectWorkflow(env.AUTOMATIONS);
    try {
      const started = await send<{ task_id: string }>("POST", `${BASE}/execute/${wf.id}`, a.bearer, { asset_id: asset.id });
      const [instance] = await introspector.get();
      await instance.waitForStatus("complete");
      const values = await rows<{ data: string }>(
        `select data from field_values where entity_id = ? and def_id = ?`,
        asset.id,
        field.body.field_def_id,
      );
      expect(values.map((v) => JSON.parse(v.data))).toEqual(["автоматизация"]);
      const queued = await rows<{ operation_class: string; owner_id: string }>(
        `select operation_class, owner_id from tasks where src_entity = ? and operation_class = 'tech-fields'`,
        asset.id,
      );
      expect(queued).toEqual([{ operation_class: "tech-fields", owner_id: a.id }]);
      expect(
        (await logOf(started.body.task_id)).some((l) => l.startsWith("Шаг 2 выполнен: задача «Технические данные» поставлена в очередь")),
      ).toBe(true);
    } finally {
      await introspector.dispose();
    }
  });

  it("retries a failing step and, when it keeps failing, ends the task as error with its log", async () => {
    const a = await admin();
    const wf = await createWorkflow({ trigger: { type: "manual" }, actions: [{ type: "webhook", url: "https://hooks.example.com/down" }] });
    const realFetch = globalThis.fetch;
    const calls = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      if (new URL(request.url).hostname !== "hooks.example.com") return realFetch(input, init);
      return new Response("nope", { status: 503 });
    });
    const introspector = await introspectWorkflow(env.AUTOMATIONS);
    try {
      await introspector.modifyAll(async (m) => {
        await m.disableRetryDelays();
      });
      const started = await send<{ task_id: string }>("POST", `${BASE}/execute/${wf.id}`, a.bearer, {});
      const [instance] = await introspector.get();
      await instance.waitForStatus("errored");
      expect((await instance.getError()).message).toContain("HTTP 503");
      expect(
        calls.mock.calls.filter(([input]) => String(input instanceof Request ? input.url : input).includes("hooks.example.com")),
      ).toHaveLength(4);
      const task = await taskRow(started.body.task_id);
      expect(task).toMatchObject({ status: "error", error: "HTTP 503" });
      const log = await logOf(started.body.task_id);
      expect(log.filter((l) => l === ru.automations.log.stepFailed(1, "HTTP 503"))).toHaveLength(4);
      expect(log.at(-1)).toBe(ru.automations.log.failed("HTTP 503"));
    } finally {
      await introspector.dispose();
    }
  });

  it("stops at the next step when the task is canceled from /jobs", async () => {
    const a = await admin();
    const asset = await insertAsset({ ownerId: a.id, mime: "image/png" });
    const tag = await insertTag();
    const wf = await createWorkflow({
      trigger: { type: "manual" },
      actions: [
        { type: "webhook", url: "https://hooks.example.com/slow" },
        { type: "add-tag", tag_id: tag },
      ],
    });
    // The webhook answers only once the run's task is canceled, so the cancel lands between the two steps. The mock
    // runs in the Workflow's context: it watches D1 rather than a promise of the test's.
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      if (new URL(request.url).hostname !== "hooks.example.com") return realFetch(input, init);
      const taskId = (JSON.parse(await request.text()) as { task_id: string }).task_id;
      while ((await taskRow(taskId)).status !== "canceled") await scheduler.wait(20);
      return new Response("ok", { status: 200 });
    });
    const introspector = await introspectWorkflow(env.AUTOMATIONS);
    try {
      const started = await send<{ task_id: string }>("POST", `${BASE}/execute/${wf.id}`, a.bearer, { asset_id: asset.id });
      await vi.waitUntil(
        async () => (await logOf(started.body.task_id)).includes(ru.automations.log.step(1, 2, ru.automations.actions.webhook)),
        {
          timeout: 10_000,
          interval: 50,
        },
      );
      const cancel = await send("POST", `/api/tasklist/command/${started.body.task_id}`, a.bearer, { command: "cancel" });
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
      const [instance] = await introspector.get();
      await instance.waitForStatus("complete");
      expect(((await instance.getOutput()) as RunOutcome).status).toBe("canceled");
      expect(await tagsOf(asset.id)).toEqual([]);
      expect((await taskRow(started.body.task_id)).status).toBe("canceled");
      expect(await logOf(started.body.task_id)).toContain(ru.automations.log.canceled);
    } finally {
      await introspector.dispose();
    }
  });

  it("skips asset actions in a run without a file, with a log line", async () => {
    const a = await admin();
    const tag = await insertTag();
    const wf = await createWorkflow({ trigger: { type: "manual" }, actions: [{ type: "add-tag", tag_id: tag }] });
    const introspector = await introspectWorkflow(env.AUTOMATIONS);
    try {
      const started = await send<{ task_id: string }>("POST", `${BASE}/execute/${wf.id}`, a.bearer, {});
      const [instance] = await introspector.get();
      await instance.waitForStatus("complete");
      expect(await logOf(started.body.task_id)).toContain(ru.automations.log.skippedNoAsset(1));
      expect((await taskRow(started.body.task_id)).status).toBe("done");
    } finally {
      await introspector.dispose();
    }
  });
});

describe("triggers", () => {
  it("starts a run for an upload into the trigger's group (or a subgroup) when the conditions hold", async () => {
    const a = await admin();
    const parent = await createGroup(a, uniqueName());
    const child = await createGroup(a, uniqueName(), parent);
    const other = await createGroup(a, uniqueName());
    const tag = await insertTag();
    const [image, video, elsewhere] = await Promise.all([
      insertAsset({ ownerId: a.id, mime: "image/jpeg", groups: [child] }),
      insertAsset({ ownerId: a.id, mime: "video/mp4", groups: [child] }),
      insertAsset({ ownerId: a.id, mime: "image/jpeg", groups: [other] }),
    ]);
    const wf = await createWorkflow({
      enabled: true,
      trigger: { type: "asset.uploaded", group_id: parent, include_subgroups: true },
      conditions: [{ kind: "mimetype", op: "starts-with", value: "image/" }],
      actions: [{ type: "add-tag", tag_id: tag }],
    });
    const introspector = await introspectWorkflow(env.AUTOMATIONS);
    try {
      const started = await deliver([
        { type: "asset.uploaded", entityId: image.id, data: { group_id: child } },
        { type: "asset.uploaded", entityId: video.id, data: { group_id: child } },
        { type: "asset.uploaded", entityId: elsewhere.id, data: { group_id: other } },
        { type: "asset.updated", entityId: image.id, data: {} },
      ]);
      expect(started).toHaveLength(1);
      const [instance] = await introspector.get();
      await instance.waitForStatus("complete");
      expect(await tagsOf(image.id)).toEqual([tag]);
      expect(await tagsOf(video.id)).toEqual([]);
      expect(await tagsOf(elsewhere.id)).toEqual([]);
      expect((await taskRow(started[0].task_id)).name).toBe(`${wf.name}: ${image.name}`);
    } finally {
      await introspector.dispose();
    }
  });

  it("ignores disabled automations", async () => {
    const a = await admin();
    const group = await createGroup(a, uniqueName());
    const asset = await insertAsset({ ownerId: a.id, mime: "image/jpeg", groups: [group] });
    await createWorkflow({ enabled: false, trigger: { type: "asset.uploaded", group_id: group }, actions: [{ type: "wait", seconds: 1 }] });
    expect(await deliver([{ type: "asset.uploaded", entityId: asset.id, data: { group_id: group } }])).toEqual([]);
  });

  it("stops a chain of runs at the depth limit and says so in the causing run's log", async () => {
    const a = await admin();
    const group = await createGroup(a, uniqueName());
    const asset = await insertAsset({ ownerId: a.id, mime: "image/jpeg", groups: [group] });
    const wf = await createWorkflow({
      enabled: true,
      trigger: { type: "asset.uploaded", group_id: group },
      actions: [{ type: "wait", seconds: 1 }],
    });
    const event = { type: "asset.uploaded", entityId: asset.id, data: { group_id: group } };
    const causing = await send<{ task_id: string }>("POST", `${BASE}/execute/${wf.id}`, a.bearer, {});
    expect(await deliver([{ ...event, cause: { taskId: causing.body.task_id, depth: MAX_CHAIN_DEPTH } }])).toEqual([]);
    expect(await logOf(causing.body.task_id)).toContain(ru.automations.log.loopStopped(wf.name, MAX_CHAIN_DEPTH + 1));
    const started = await deliver([{ ...event, cause: { taskId: causing.body.task_id, depth: MAX_CHAIN_DEPTH - 1 } }]);
    expect(started).toHaveLength(1);
    const [row] = await rows<{ options: string }>(`select options from tasks where id = ?`, started[0].task_id);
    expect(JSON.parse(row.options)).toMatchObject({ workflow_id: wf.id, depth: MAX_CHAIN_DEPTH });
  });

  it("starts due schedules once per firing and moves the next firing time", async () => {
    const wf = await createWorkflow({
      enabled: true,
      trigger: { type: "schedule", cron: "0 * * * *" },
      actions: [{ type: "wait", seconds: 1 }],
    });
    const due = Date.parse(wf.next_run_at!);
    const introspector = await introspectWorkflow(env.AUTOMATIONS);
    try {
      const first = (await runDueSchedules(testContext(), due + 1000)).filter(Boolean);
      const mine = await rows<{ id: string }>(`select id from tasks where options like ?`, `%${wf.id}%`);
      expect(mine).toHaveLength(1);
      expect(first.map((r) => r.task_id)).toContain(mine[0].id);
      await runDueSchedules(testContext(), due + 2000);
      expect(await rows(`select id from tasks where options like ?`, `%${wf.id}%`)).toHaveLength(1);
      const [row] = await rows<{ next_run_at: number; runs: number }>(`select next_run_at, runs from automations where id = ?`, wf.id);
      expect(row).toEqual({ next_run_at: due + 3_600_000, runs: 1 });
      for (const instance of await introspector.get()) await instance.waitForStatus("complete");
    } finally {
      await introspector.dispose();
    }
  });
});

describe("a self-triggering automation", () => {
  it("is stopped by the depth limit: tag.added → remove and re-add the tag, again and again", async () => {
    const a = await admin();
    const asset = await insertAsset({ ownerId: a.id, mime: "image/jpeg" });
    const tag = await insertTag();
    const wf = await createWorkflow({
      enabled: true,
      trigger: { type: "tag.added", tag_id: tag },
      actions: [
        { type: "remove-tag", tag_id: tag },
        { type: "add-tag", tag_id: tag },
      ],
    });
    const introspector = await introspectWorkflow(env.AUTOMATIONS);
    try {
      const attach = await send("POST", "/api/tags/attach", a.bearer, { tag_ids: [tag], entities: [{ id: asset.id, type: "asset" }] });
      expect(attach.status, JSON.stringify(attach.body)).toBe(200);
      // Each run raises the event that starts the next (through the outbox: a queue wake-up per hop); the chain ends
      // at depth MAX_CHAIN_DEPTH.
      await vi.waitUntil(
        async () =>
          (await rows(`select id from tasks where options like ? and status = 'done'`, `%${wf.id}%`)).length === MAX_CHAIN_DEPTH + 1,
        {
          timeout: 40_000,
          interval: 100,
        },
      );
      const runs = await rows<{ id: string; options: string }>(
        `select id, options from tasks where options like ? order by job_num`,
        `%${wf.id}%`,
      );
      expect(runs.map((r) => JSON.parse(r.options).depth)).toEqual([0, 1, 2, 3, 4, 5]);
      await vi.waitUntil(
        async () => (await logOf(runs.at(-1)!.id)).includes(ru.automations.log.loopStopped(wf.name, MAX_CHAIN_DEPTH + 1)),
        {
          timeout: 5_000,
          interval: 100,
        },
      );
      for (const instance of await introspector.get()) await instance.waitForStatus("complete");
    } finally {
      await introspector.dispose();
    }
  }, 60_000);
});

describe("webhook calls", () => {
  it("refuse loopback unless AUTOMATION_WEBHOOK_ALLOW_LOOPBACK is true, and never follow redirects", async () => {
    const seen: { url: string; redirect: string; signature: string | null; body: string }[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      seen.push({
        url: request.url,
        redirect: request.redirect,
        signature: request.headers.get(SIGNATURE_HEADER),
        body: await request.text(),
      });
      return new Response(null, { status: 204 });
    });
    await expect(sendWebhook(env, "http://127.0.0.1:9/hook", "key", { a: 1 })).rejects.toBeInstanceOf(WebhookRefused);
    await expect(sendWebhook(env, "http://10.0.0.1/hook", "key", { a: 1 })).rejects.toBeInstanceOf(WebhookRefused);
    expect(seen).toEqual([]);
    const local = { ...env, AUTOMATION_WEBHOOK_ALLOW_LOOPBACK: "true" };
    expect(await sendWebhook(local, "http://127.0.0.1:9/hook", "key", { a: 1 })).toBe(204);
    await expect(sendWebhook(local, "http://192.168.1.1/hook", "key", { a: 1 })).rejects.toBeInstanceOf(WebhookRefused);
    expect(seen).toEqual([
      { url: "http://127.0.0.1:9/hook", redirect: "manual", signature: await signBody("key", '{"a":1}'), body: '{"a":1}' },
    ]);
  });
});
