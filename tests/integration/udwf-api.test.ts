import { introspectWorkflow } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import type { WorkflowInfo } from "../../workers/services/automations/automation.service";
import { rows } from "./catalog-fixtures";
import { call, expectError } from "./factories";
import { admin, createGroup, insertAsset, insertTag, ordinaryUser, send, uniqueName } from "./library-factories";

const BASE = "/api/tasklist/udwf";

async function createWorkflow(overrides: Record<string, unknown> = {}): Promise<WorkflowInfo> {
  const a = await admin();
  const tagId = await insertTag();
  const { status, body } = await send<WorkflowInfo>("POST", `${BASE}/workflow`, a.bearer, {
    name: uniqueName("Автоматизация"),
    trigger: { type: "manual" },
    actions: [{ type: "add-tag", tag_id: tagId }],
    ...overrides,
  });
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

async function workflowRow(id: string) {
  return (
    await rows<{ id: string; name: string; enabled: number; trigger: string; next_run_at: number | null }>(
      `select * from automations where id = ?`,
      id,
    )
  )[0];
}

describe("GET /udwf/actions and /udwf/trigger-form", () => {
  it("lists every action, trigger and condition with its form", async () => {
    const a = await admin();
    const actions = (await (await call(`${BASE}/actions`, { bearer: a.bearer })).json()) as {
      type: string;
      needs_asset: boolean;
      form: { name: string }[];
    }[];
    expect(actions.map((x) => x.type)).toEqual([
      "add-tag",
      "remove-tag",
      "set-field",
      "move-to-group",
      "copy-to-group",
      "run-task",
      "webhook",
      "wait",
    ]);
    expect(actions.find((x) => x.type === "webhook")!.form.map((f) => f.name)).toEqual(["url"]);
    expect(actions.find((x) => x.type === "add-tag")!.needs_asset).toBe(true);
    const form = (await (await call(`${BASE}/trigger-form`, { bearer: a.bearer })).json()) as {
      triggers: { type: string }[];
      conditions: { type: string }[];
    };
    expect(form.triggers.map((t) => t.type)).toEqual(["asset.uploaded", "tag.added", "field.changed", "review.decided", "schedule", "manual"]);
    expect(form.conditions.map((t) => t.type)).toEqual(["mimetype", "size", "group", "tag"]);
  });

  it("needs a signed-in caller", async () => {
    await expectError(await call(`${BASE}/actions`), 401);
    await expectError(await call(`${BASE}/trigger-form`), 401);
  });
});

describe("POST /udwf/workflow", () => {
  it("creates an automation with defaults, a signing key and its next schedule time", async () => {
    const a = await admin();
    const group = await createGroup(a, uniqueName());
    const wf = await createWorkflow({
      enabled: true,
      trigger: { type: "schedule", cron: "*/5 * * * *" },
      conditions: [{ kind: "group", op: "in", group_id: group }],
    });
    expect(wf).toMatchObject({
      enabled: true,
      description: "",
      runs: 0,
      owner: a.id,
      conditions: [{ kind: "group", op: "in", group_id: group, include_subgroups: true }],
    });
    expect(wf.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
    const next = Date.parse(wf.next_run_at!);
    expect(next).toBeGreaterThan(Date.now());
    expect(new Date(next).getUTCMinutes() % 5).toBe(0);
    expect(await workflowRow(wf.id)).toMatchObject({ enabled: 1, next_run_at: next });
  });

  it.each([
    ["a cron expression with a minute out of range", { trigger: { type: "schedule", cron: "61 * * * *" } }, "trigger.cron"],
    ["a cron expression with four fields", { trigger: { type: "schedule", cron: "* * * *" } }, "trigger.cron"],
    ["a cron expression that never fires", { trigger: { type: "schedule", cron: "0 0 30 2 *" } }, "trigger.cron"],
    ["an unknown trigger", { trigger: { type: "asset.exploded" } }, "trigger.type"],
    ["enabling with no actions", { actions: [], enabled: true }, "actions"],
    ["an action without its tag", { actions: [{ type: "add-tag" }] }, "actions.0.tag_id"],
    ["an ftp webhook", { actions: [{ type: "webhook", url: "ftp://example.com/x" }] }, "actions.0.url"],
    ["a javascript: webhook", { actions: [{ type: "webhook", url: "javascript:alert(1)" }] }, "actions.0.url"],
    ["a webhook to a private network", { actions: [{ type: "webhook", url: "http://192.168.1.10/hook" }] }, "actions.0.url"],
    ["a webhook to the metadata service", { actions: [{ type: "webhook", url: "http://169.254.169.254/latest" }] }, "actions.0.url"],
    ["a webhook to an IPv6 unique local address", { actions: [{ type: "webhook", url: "http://[fd12::1]/" }] }, "actions.0.url"],
    [
      "a webhook to loopback (not allowed by the configuration)",
      { actions: [{ type: "webhook", url: "http://127.0.0.1:9/" }] },
      "actions.0.url",
    ],
    ["a webhook to localhost", { actions: [{ type: "webhook", url: "http://localhost/" }] }, "actions.0.url"],
    ["an unknown tag", { actions: [{ type: "add-tag", tag_id: newId() }] }, "actions.0.tag_id"],
    ["an unknown group", { actions: [{ type: "move-to-group", group_id: newId() }] }, "actions.0.group_id"],
    ["an export without a group", { actions: [{ type: "run-task", operation: "export" }] }, "actions.0.group_id"],
    [
      "a template of another operation",
      { actions: [{ type: "run-task", operation: "preview", template_id: "00000000000000000000000000000711" }] },
      "actions.0.template_id",
    ],
    ["an unknown condition tag", { conditions: [{ kind: "tag", op: "has", tag_id: newId() }] }, "conditions.0.tag_id"],
    ["a negative size", { conditions: [{ kind: "size", op: "gt", value: -5 }] }, "conditions.0.value"],
    ["an empty name", { name: "  " }, "name"],
    ["a wait of zero seconds", { actions: [{ type: "wait", seconds: 0 }] }, "actions.0.seconds"],
  ])("refuses %s (400 naming %s) and stores nothing", async (_label, overrides, field) => {
    const a = await admin();
    const name = uniqueName("Неверная");
    const res = await call(`${BASE}/workflow`, {
      method: "POST",
      bearer: a.bearer,
      json: { name, trigger: { type: "manual" }, actions: [{ type: "wait", seconds: 1 }], ...overrides },
    });
    const error = await expectError(res, 400);
    expect(error.message).toContain(`«${field}»`);
    expect(await rows(`select id from automations where name = ?`, name)).toEqual([]);
  });

  it("creates a named draft from a name alone (SPEC sets the setup later); enabling it before its setup answers 400 naming the field", async () => {
    const a = await admin();
    const name = uniqueName("Черновик");
    const { status, body: draft } = await send<WorkflowInfo>("POST", `${BASE}/workflow`, a.bearer, { name, description: "из SPEC" });
    expect(status, JSON.stringify(draft)).toBe(200);
    expect(draft).toMatchObject({ name, description: "из SPEC", enabled: false, trigger: null, conditions: [], actions: [], next_run_at: null });
    expect(await workflowRow(draft.id)).toMatchObject({ enabled: 0 });

    const noTrigger = await expectError(
      await call(`${BASE}/workflow-enable-disable/${draft.id}`, { method: "POST", bearer: a.bearer, json: { enabled: true } }),
      400,
    );
    expect(noTrigger.message).toContain("«trigger»");
    const viaPatch = await expectError(await call(`${BASE}/workflow/${draft.id}`, { method: "PATCH", bearer: a.bearer, json: { enabled: true } }), 400);
    expect(viaPatch.message).toContain("«trigger»");
    const enabledAtOnce = await expectError(
      await call(`${BASE}/workflow`, { method: "POST", bearer: a.bearer, json: { name: uniqueName("Черновик"), trigger: { type: "manual" }, enabled: true } }),
      400,
    );
    expect(enabledAtOnce.message).toContain("«actions»");
    expect((await workflowRow(draft.id)).enabled).toBe(0);

    const setup = await send<WorkflowInfo>("PATCH", `${BASE}/workflow-setup/${draft.id}`, a.bearer, {
      trigger: { type: "manual" },
      actions: [{ type: "wait", seconds: 1 }],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    const on = await send<WorkflowInfo>("POST", `${BASE}/workflow-enable-disable/${draft.id}`, a.bearer, { enabled: true });
    expect(on.body).toMatchObject({ enabled: true, trigger: { type: "manual" } });
  });

  it("runs a draft by execute, with nothing to do", async () => {
    const a = await admin();
    const { body: draft } = await send<WorkflowInfo>("POST", `${BASE}/workflow`, a.bearer, { name: uniqueName("Черновик") });
    const introspector = await introspectWorkflow(env.AUTOMATIONS);
    try {
      const run = await send<{ task_id: string }>("POST", `${BASE}/execute/${draft.id}`, a.bearer, {});
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      const [instance] = await introspector.get();
      await instance.waitForStatus("complete");
    } finally {
      await introspector.dispose();
    }
  });

  it("refuses a non-JSON body (400) and another content type (415)", async () => {
    const a = await admin();
    await expectError(
      await call(`${BASE}/workflow`, { method: "POST", bearer: a.bearer, body: "{oops", headers: { "content-type": "application/json" } }),
      400,
    );
    await expectError(
      await call(`${BASE}/workflow`, { method: "POST", bearer: a.bearer, body: "x", headers: { "content-type": "text/plain" } }),
      415,
    );
  });
});

describe("reading, changing and deleting", () => {
  it("lists, reads, renames, enables, changes the setup and deletes", async () => {
    const a = await admin();
    const wf = await createWorkflow({ description: "первая" });
    const list = (await send<{ total: number; items: WorkflowInfo[] }>("GET", `${BASE}/workflows?take=500`, a.bearer)).body;
    expect(list.items.map((w) => w.id)).toContain(wf.id);
    expect(list.total).toBeGreaterThanOrEqual(1);
    expect((await send<WorkflowInfo>("GET", `${BASE}/workflow/${wf.id}`, a.bearer)).body).toEqual(wf);

    const renamed = await send<WorkflowInfo>("PATCH", `${BASE}/workflow/${wf.id}`, a.bearer, {
      name: "Новое имя",
      description: "вторая",
      rotate_secret: true,
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Новое имя", description: "вторая" });
    expect(renamed.body.webhook_secret).not.toBe(wf.webhook_secret);

    const setup = await send<WorkflowInfo>("PATCH", `${BASE}/workflow-setup/${wf.id}`, a.bearer, {
      trigger: { type: "schedule", cron: "0 3 * * *" },
      actions: [{ type: "wait", seconds: 10 }],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    expect(setup.body.trigger).toEqual({ type: "schedule", cron: "0 3 * * *" });
    expect(setup.body.next_run_at).toBeNull(); // still disabled

    const on = await send<WorkflowInfo>("POST", `${BASE}/workflow-enable-disable/${wf.id}`, a.bearer, { enabled: true });
    expect(on.body.enabled).toBe(true);
    expect(new Date(on.body.next_run_at!).getUTCHours()).toBe(3);
    const off = await send<WorkflowInfo>("POST", `${BASE}/workflow-enable-disable/${wf.id}`, a.bearer, { enabled: false });
    expect(off.body).toMatchObject({ enabled: false, next_run_at: null });

    expect((await send("DELETE", `${BASE}/workflow/${wf.id}`, a.bearer)).body).toEqual({ id: wf.id });
    expect(await workflowRow(wf.id)).toBeUndefined();
  });

  it("answers 404 for an unknown id on every call, and 400 for a malformed one", async () => {
    const a = await admin();
    const id = newId();
    for (const [method, path, json] of [
      ["GET", `/workflow/${id}`, undefined],
      ["PATCH", `/workflow/${id}`, { name: "x" }],
      ["DELETE", `/workflow/${id}`, undefined],
      ["PATCH", `/workflow-setup/${id}`, { trigger: { type: "manual" }, actions: [{ type: "wait", seconds: 1 }] }],
      ["POST", `/workflow-enable-disable/${id}`, { enabled: true }],
      ["POST", `/execute/${id}`, {}],
    ] as const) {
      const error = await expectError(await call(`${BASE}${path}`, { method, bearer: a.bearer, json }), 404);
      expect(error.message).toBe(ru.automations.notFound);
    }
    await expectError(await call(`${BASE}/workflow/not-an-id`, { bearer: a.bearer }), 400);
  });

  it("refuses an invalid setup change (400 naming the field) and keeps the old setup", async () => {
    const a = await admin();
    const wf = await createWorkflow();
    const error = await expectError(
      await call(`${BASE}/workflow-setup/${wf.id}`, {
        method: "PATCH",
        bearer: a.bearer,
        json: { trigger: { type: "schedule", cron: "every day" }, actions: [{ type: "wait", seconds: 1 }] },
      }),
      400,
    );
    expect(error.message).toContain("«trigger.cron»");
    expect(JSON.parse((await workflowRow(wf.id)).trigger)).toEqual({ type: "manual" });
    await expectError(await call(`${BASE}/workflow/${wf.id}`, { method: "PATCH", bearer: a.bearer, json: { unknown_field: 1 } }), 400);
  });
});

describe("administrators only", () => {
  it("refuses an ordinary user on every management call (403) and changes nothing", async () => {
    const wf = await createWorkflow();
    const user = await ordinaryUser();
    for (const [method, path, json] of [
      ["GET", `/workflows`, undefined],
      ["GET", `/workflow/${wf.id}`, undefined],
      ["POST", `/workflow`, { name: "x", trigger: { type: "manual" }, actions: [{ type: "wait", seconds: 1 }] }],
      ["PATCH", `/workflow/${wf.id}`, { name: "захвачено" }],
      ["DELETE", `/workflow/${wf.id}`, undefined],
      ["PATCH", `/workflow-setup/${wf.id}`, { trigger: { type: "manual" }, actions: [{ type: "wait", seconds: 1 }] }],
      ["POST", `/workflow-enable-disable/${wf.id}`, { enabled: true }],
      ["POST", `/execute/${wf.id}`, {}],
    ] as const) {
      const error = await expectError(await call(`${BASE}${path}`, { method, bearer: user.bearer, json }), 403);
      expect(error.message).toBe(ru.automations.adminOnly);
    }
    expect(await workflowRow(wf.id)).toMatchObject({ name: wf.name, enabled: 0 });
    expect(await rows(`select id from tasks where options like ?`, `%${wf.id}%`)).toEqual([]);
  });

  it("refuses a caller without a token (401)", async () => {
    await expectError(await call(`${BASE}/workflows`), 401);
    await expectError(await call(`${BASE}/workflow`, { method: "POST", json: {} }), 401);
  });
});

describe("POST /udwf/execute/{id}", () => {
  it("starts a run: a task in /jobs and a Workflow instance with the same id", async () => {
    const a = await admin();
    const asset = await insertAsset({ ownerId: a.id, mime: "image/png" });
    const wf = await createWorkflow({ conditions: [{ kind: "mimetype", op: "starts-with", value: "image/" }] });
    const introspector = await introspectWorkflow(env.AUTOMATIONS);
    try {
      const { status, body } = await send<{ task_id: string; job_num: number }>("POST", `${BASE}/execute/${wf.id}`, a.bearer, {
        asset_id: asset.id,
      });
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.job_num).toBeGreaterThan(0);
      const [task] = await rows<{ operation_class: string; template: string; owner_id: string; src_entity: string }>(
        `select operation_class, template, owner_id, src_entity from tasks where id = ?`,
        body.task_id,
      );
      expect(task).toEqual({ operation_class: "automation", template: "automation", owner_id: a.id, src_entity: asset.id });
      const [instance] = await introspector.get();
      await instance.waitForStatus("complete");
      expect((await env.AUTOMATIONS.get(body.task_id)).id).toBe(body.task_id);
      expect((await workflowRow(wf.id)) as unknown as { runs: number }).toMatchObject({ runs: 1 });
    } finally {
      await introspector.dispose();
    }
  });

  it("answers 409 when the file does not meet the conditions, and 404 for an unknown file", async () => {
    const a = await admin();
    const asset = await insertAsset({ ownerId: a.id, mime: "video/mp4" });
    const wf = await createWorkflow({ conditions: [{ kind: "mimetype", op: "starts-with", value: "image/" }] });
    const error = await expectError(
      await call(`${BASE}/execute/${wf.id}`, { method: "POST", bearer: a.bearer, json: { asset_id: asset.id } }),
      409,
    );
    expect(error.message).toBe(ru.automations.conditionsNotMet);
    await expectError(await call(`${BASE}/execute/${wf.id}`, { method: "POST", bearer: a.bearer, json: { asset_id: newId() } }), 404);
    expect(await rows(`select id from tasks where options like ?`, `%${wf.id}%`)).toEqual([]);
  });
});
