import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runDueSchedules } from "../../workers/services/automations/automation-runs.service";
import { deliverEvents } from "../../workers/services/automations/event-outbox.service";
import { ownerActor, RunStopped } from "../../workers/services/automations/udwf/actions";
import { newId } from "../../workers/lib/ids";
import { rows, testContext } from "./catalog-fixtures";
import { call, createUser, expectError, login } from "./factories";
import { deliveriesOf, insertOutboxEvents } from "./outbox-fixtures";
import { admin, createGroup, insertAsset, send, uniqueName } from "./library-factories";
import { insertStoredAsset, insertTask } from "./task-fixtures";

/**
 * Automations act with their owner's rights over the whole library, so only an enabled administrator may own one. A
 * demoted administrator keeps nothing: his automations stop (switched off, audited), event matching skips them, a run
 * in flight stops, and tasks about files he cannot read tell him nothing — names, logs, lists, sources.
 */

const BASE = "/api/tasklist/udwf";

/** A second administrator, signed in. */
async function secondAdmin() {
  const user = await createUser({ isAdmin: true });
  return { ...user, ...(await login(user.login, user.password)) };
}

async function workflowOf(bearer: string, group: string) {
  const tag = newId();
  await env.DB.prepare("insert into tags (id, name, ctime) values (?, ?, ?)").bind(tag, `тег-${tag.slice(-8)}`, Date.now()).run();
  const res = await send<{ id: string; enabled: boolean }>("POST", `${BASE}/workflow`, bearer, {
    name: uniqueName("Слежка"),
    enabled: true,
    trigger: { type: "asset.uploaded", group_id: group, include_subgroups: true },
    actions: [{ type: "add-tag", tag_id: tag }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id;
}

const enabledOf = async (id: string) => (await rows<{ enabled: number }>("select enabled from automations where id = ?", id))[0]?.enabled;
const disableAudits = (id: string) =>
  rows<{ actor_id: string | null; details: string }>("select actor_id, details from audit_log where action = 'automation.disable' and object_id = ?", id);

describe("automations of an owner who loses the right to own them", () => {
  it("demotion switches them off in the same write, with an audit row per automation; events then start nothing", async () => {
    const chief = await admin();
    const watcher = await secondAdmin();
    const group = await createGroup(chief, uniqueName());
    const wf = await workflowOf(watcher.bearer, group);
    expect(await enabledOf(wf)).toBe(1);

    const demoted = await send("PATCH", `/api/user/${watcher.id}`, chief.bearer, { is_admin: false });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
    expect(await enabledOf(wf)).toBe(0);
    const audits = await disableAudits(wf);
    expect(audits).toHaveLength(1);
    expect(audits[0].actor_id).toBe(chief.id);
    expect(JSON.parse(audits[0].details)).toMatchObject({ owner: watcher.id, reason: "owner_demoted" });

    const asset = await insertAsset({ ownerId: chief.id, mime: "image/jpeg", groups: [group] });
    const events = await insertOutboxEvents([{ type: "asset.uploaded", entityId: asset.id, data: { group_id: group } }]);
    await deliverEvents(testContext());
    expect((await deliveriesOf(events)).filter((d) => d.workflow_id === wf)).toEqual([]);
    expect(await rows("select id from tasks where owner_id = ?", watcher.id)).toEqual([]);
  });

  it("disabling the owner switches them off too", async () => {
    const chief = await admin();
    const watcher = await secondAdmin();
    const wf = await workflowOf(watcher.bearer, await createGroup(chief, uniqueName()));
    expect((await send("PATCH", `/api/user/${watcher.id}`, chief.bearer, { enabled: false })).status).toBe(200);
    expect(await enabledOf(wf)).toBe(0);
    expect(JSON.parse((await disableAudits(wf))[0].details)).toMatchObject({ reason: "owner_disabled" });
  });

  it("an owner demoted by any other path is skipped when an event is matched, swept off by the cron, and his run stops", async () => {
    const chief = await admin();
    const watcher = await secondAdmin();
    const group = await createGroup(chief, uniqueName());
    const wf = await workflowOf(watcher.bearer, group);
    // Not through the API (a direct change, an SSO sync): nothing switched the automation off yet.
    await env.DB.prepare("update users set is_admin = 0 where id = ?").bind(watcher.id).run();
    expect(await enabledOf(wf)).toBe(1);

    const asset = await insertAsset({ ownerId: chief.id, mime: "image/jpeg", groups: [group] });
    const events = await insertOutboxEvents([{ type: "asset.uploaded", entityId: asset.id, data: { group_id: group } }]);
    await deliverEvents(testContext());
    expect((await deliveriesOf(events)).filter((d) => d.workflow_id === wf)).toEqual([]);
    expect(await rows("select id from tasks where owner_id = ?", watcher.id)).toEqual([]);

    await runDueSchedules(testContext());
    expect(await enabledOf(wf)).toBe(0);
    const audits = await disableAudits(wf);
    expect(audits).toHaveLength(1);
    expect(audits[0].actor_id).toBeNull();
    expect(JSON.parse(audits[0].details)).toMatchObject({ owner: watcher.id, reason: "owner_not_admin" });

    await expect(ownerActor(testContext(), watcher.id)).rejects.toBeInstanceOf(RunStopped);
  });
});

describe("tasks about files their owner cannot read", () => {
  it("task details, result, log, commands, lists, names, statuses and upload-decode tell a non-reader nothing", async () => {
    const chief = await admin();
    const watcher = await secondAdmin();
    const secretName = `Секрет ${newId().slice(-8)}.jpg`;
    const { assetId } = await insertStoredAsset({ ownerId: chief.id, name: secretName, mime: "image/jpeg", bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xd9]) });
    // A run made while he was an administrator: owned by him, named after the file.
    const task = await insertTask({
      status: "done",
      ownerId: watcher.id,
      op: "preview",
      name: `Слежка: ${secretName}`,
      affected: [{ id: assetId, type: "asset" }],
    });
    // While an administrator, he sees it (he may read every file).
    expect((await call(`/api/tasklist/task/${task}`, { bearer: watcher.bearer })).status).toBe(200);
    expect((await send("PATCH", `/api/user/${watcher.id}`, chief.bearer, { is_admin: false })).status).toBe(200);
    const bearer = (await login(watcher.login, watcher.password)).bearer;

    for (const path of [
      `/api/tasklist/task/${task}`,
      `/api/tasklist/task-result/${task}`,
      `/api/tasklist/log/${task}`,
      `/api/tasklist/task-commands/${task}`,
      `/api/worker-task/upload-decode/${task}`,
    ]) {
      const error = await expectError(await call(path, { bearer }), 404);
      expect(JSON.stringify(error), path).not.toContain(secretName);
    }
    for (const path of ["/api/tasklist/current", "/api/tasklist/names", `/api/tasklist/current?asset=${assetId}`]) {
      const res = await call(path, { bearer });
      const text = await res.text();
      expect(res.status, path).toBe(200);
      expect(text, path).not.toContain(secretName);
      expect(text, path).not.toContain(task);
    }
    const count = (await (await call(`/api/tasklist/current/count?asset=${assetId}`, { bearer })).json()) as { count: number };
    expect(count.count).toBe(0);
    const statuses = await call("/api/tasklist/task-status", { method: "POST", bearer, json: { ids: [task] } });
    expect(await statuses.text()).not.toContain(secretName);

    // A task about a file he may read (his own) stays his to see.
    const own = await insertStoredAsset({ ownerId: watcher.id, name: "свой.jpg", mime: "image/jpeg", bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xd9]) });
    const ownTask = await insertTask({ status: "done", ownerId: watcher.id, op: "preview", affected: [{ id: own.assetId, type: "asset" }] });
    expect((await call(`/api/tasklist/task/${ownTask}`, { bearer })).status).toBe(200);
    expect((await call(`/api/worker-task/upload-decode/${ownTask}`, { bearer })).status).toBe(200);
    expect(await (await call("/api/tasklist/current", { bearer })).text()).toContain(ownTask);
  });
});
