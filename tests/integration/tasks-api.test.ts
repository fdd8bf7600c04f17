import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { runTaskNow } from "../../workers/services/tasks/task-runner";
import { rows } from "./asset-fixtures";
import { execOnSearch, indexRowsOf, indexed } from "./catalog-fixtures";
import { addMember, insertGroup, testContext } from "./catalog-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { fixture } from "./processing-fixtures";
import { getJson, insertStoredAsset, insertTask, postJson, taskRow, waitForTask } from "./task-fixtures";

interface TaskJson {
  job_id: string;
  job_num: number;
  name: string;
  status: string;
  operation_class: string;
  operation_name: string;
  owner: string | null;
  affected: { id: string; type: string }[];
  priority: number;
}

interface TemplateJson {
  id: string;
  name: string;
  operation_class: string;
  setup: Record<string, unknown>;
  disabled: boolean;
}

const PREVIEW_ALL = "00000000000000000000000000000701";
const UNKNOWN = "0".repeat(31) + "9";

/** Enqueues through the API and runs the task here (deterministic), answering the finished row. */
async function enqueueAndRun(bearer: string, x: string, body: Record<string, unknown>) {
  const { job_id } = await postJson<{ job_id: string }>(`/api/tasklist/enqueue-task/${x}`, bearer, body);
  await runTaskNow(testContext(), job_id);
  return waitForTask(job_id, ["done", "error"], 20_000);
}

describe("templates and profiles", () => {
  it("lists the built-in templates of every operation class", async () => {
    const user = await signIn();
    const all = await getJson<TemplateJson[]>("/api/tasklist/available-tasks", user.bearer);
    expect(new Set(all.map((t) => t.operation_class))).toEqual(new Set(["preview", "tech-fields", "copy", "purge", "export", "reindex"]));
    const profiles = await getJson<TemplateJson[]>("/api/tasklist/available-profiles/preview", user.bearer);
    expect(profiles.map((p) => p.setup)).toEqual([{ sizes: ["thumb", "medium"] }, { sizes: ["thumb"] }]);
    expect(await getJson<TemplateJson[]>(`/api/tasklist/available-profiles/${PREVIEW_ALL}`, user.bearer)).toEqual(profiles);
    expect((await getJson<TemplateJson[]>("/api/tasklist/task-templates/export", user.bearer)).map((t) => t.setup)).toEqual([
      { recursive: false },
      { recursive: true },
    ]);
  });

  it("answers 404 for an unknown class or template and 400 for a malformed one", async () => {
    const user = await signIn();
    expect((await expectError(await call("/api/tasklist/available-profiles/transcode", { bearer: user.bearer }), 404)).message).toBe(
      ru.tasks.unknownOperation("transcode"),
    );
    await expectError(await call(`/api/tasklist/available-profiles/${UNKNOWN}`, { bearer: user.bearer }), 404);
    await expectError(await call("/api/tasklist/task-templates/automation", { bearer: user.bearer }), 404);
    await expectError(await call("/api/tasklist/task-templates/..%2F", { bearer: user.bearer }), 400);
    await expectError(await call("/api/tasklist/available-tasks"), 401);
  });
});

describe("enqueue-task", () => {
  it("queues a template's task on the caller's asset with its setup, visible in the lists", async () => {
    const user = await signIn();
    const { assetId } = await insertStoredAsset({ ownerId: user.id, name: "снимок.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    const queued = await postJson<{ job_id: string; job_num: number; status: string }>(
      `/api/tasklist/enqueue-task/${PREVIEW_ALL}`,
      user.bearer,
      {
        entities: [{ id: assetId, type: "asset" }],
        priority: 8,
      },
    );
    expect(queued.status).toBe("inqueue");
    const task = await getJson<TaskJson>(`/api/tasklist/task/${queued.job_id}`, user.bearer);
    expect(task).toMatchObject({
      job_num: queued.job_num,
      name: "Превью: снимок.jpg",
      operation_class: "preview",
      operation_name: "Превью",
      owner: user.id,
      priority: 8,
    });
    expect((await taskRow(queued.job_id)).operation_class).toBe("preview");
    expect(JSON.parse((await rows<{ options: string }>("select options from tasks where id = ?", queued.job_id))[0].options)).toEqual({
      sizes: ["thumb", "medium"],
    });

    const list = await getJson<TaskJson[]>(`/api/tasklist/current?asset=${assetId}`, user.bearer);
    expect(list.map((t) => t.job_id)).toEqual([queued.job_id]);
    expect(await getJson<{ count: number }>(`/api/tasklist/current/count?asset=${assetId}&op=preview`, user.bearer)).toEqual({ count: 1 });
    expect(await getJson<{ count: number }>(`/api/tasklist/current/count?asset=${assetId}&op=export`, user.bearer)).toEqual({ count: 0 });
    expect(await getJson<string[]>("/api/tasklist/names", user.bearer)).toContain("Превью: снимок.jpg");
    const statuses = await postJson<TaskJson[]>("/api/tasklist/task-status", user.bearer, { ids: [queued.job_id, UNKNOWN] });
    expect(statuses.map((t) => t.job_id)).toEqual([queued.job_id]);
    await waitForTask(queued.job_id, ["done"]);
  });

  it("filters the list by status and name, pages it, and shows others' tasks only to administrators", async () => {
    const user = await signIn();
    const other = await signIn();
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push(await insertTask({ status: "paused", ownerId: user.id, name: `Моя задача ${i} ${user.id}` }));
    const theirs = await insertTask({ status: "paused", ownerId: other.id, name: `Чужая ${other.id}` });
    const page = await getJson<TaskJson[]>(`/api/tasklist/current?status=paused&name=${user.id}&take=2`, user.bearer);
    expect(page.map((t) => t.job_id)).toEqual([mine[2], mine[1]]);
    const next = await getJson<TaskJson[]>(`/api/tasklist/current?status=paused,error&name=${user.id}&take=2&skip=2`, user.bearer);
    expect(next.map((t) => t.job_id)).toEqual([mine[0]]);
    expect(await getJson<TaskJson[]>(`/api/tasklist/current?name=${other.id}`, user.bearer)).toEqual([]);
    expect(await postJson<TaskJson[]>("/api/tasklist/task-status", user.bearer, { ids: [theirs] })).toEqual([]);
    await expectError(await call(`/api/tasklist/task/${theirs}`, { bearer: user.bearer }), 404);
    await expectError(await call(`/api/tasklist/log/${theirs}`, { bearer: user.bearer }), 404);
    await expectError(await call(`/api/tasklist/task-result/${theirs}`, { bearer: user.bearer }), 404);
    const admin = await signInAdmin();
    expect((await getJson<TaskJson[]>(`/api/tasklist/current?name=${other.id}`, admin.bearer)).map((t) => t.job_id)).toEqual([theirs]);
    await expectError(await call("/api/tasklist/current?status=sleeping", { bearer: user.bearer }), 400);
    await expectError(await call("/api/tasklist/current?take=1000", { bearer: user.bearer }), 400);
  });

  it("refuses bad input and others' entities, creating nothing", async () => {
    const user = await signIn();
    const other = await signIn();
    const { assetId } = await insertStoredAsset({ ownerId: other.id, name: "чужой.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    const count = async () => (await rows<{ n: number }>("select count(*) as n from tasks"))[0].n;
    const before = await count();
    const post = (x: string, body: unknown) => call(`/api/tasklist/enqueue-task/${x}`, { method: "POST", bearer: user.bearer, json: body });
    expect((await expectError(await post("preview", { entities: [{ id: assetId, type: "asset" }] }), 404)).message).toBe(
      ru.tasks.entityNotFound,
    );
    await expectError(await post("preview", { entities: [{ id: UNKNOWN, type: "asset" }] }), 404);
    await expectError(await post("preview", { entities: [] }), 400);
    await expectError(await post("preview", { entities: [{ id: "nope", type: "asset" }] }), 400);
    await expectError(await post("transcode", { entities: [{ id: assetId, type: "asset" }] }), 404);
    const mine = await insertStoredAsset({ ownerId: user.id, name: "мой.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    const wrongType = await expectError(await post("export", { entities: [{ id: mine.assetId, type: "asset" }] }), 400);
    expect(wrongType.message).toBe(ru.tasks.wrongEntityType("group", "group"));
    const badOptions = await expectError(
      await post("preview", { entities: [{ id: mine.assetId, type: "asset" }], options: { sizes: ["huge"] } }),
      400,
    );
    expect(badOptions.message).toMatch(/^Неверные параметры задачи: sizes\.0/);
    await expectError(await post("copy", { entities: [{ id: mine.assetId, type: "asset" }] }), 400);
    expect(await count()).toBe(before);
    // An administrator may start work on anyone's asset.
    const admin = await signInAdmin();
    const ok = await call("/api/tasklist/enqueue-task/tech-fields", {
      method: "POST",
      bearer: admin.bearer,
      json: { entities: [{ id: assetId, type: "asset" }] },
    });
    expect(ok.status).toBe(200);
  });
});

describe("operations through the API", () => {
  it("copies assets into a group the owner may create in, and refuses a group they may not", async () => {
    const user = await signIn();
    const { assetId } = await insertStoredAsset({ ownerId: user.id, name: "оригинал.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    const target = await insertGroup({ ownerId: user.id, name: "Копии" });
    const task = await enqueueAndRun(user.bearer, "copy", { entities: [{ id: assetId, type: "asset" }], options: { group_id: target } });
    expect(task.status).toBe("done");
    const copies = JSON.parse(task.result!).copies as string[];
    expect(copies).toHaveLength(1);
    expect(await rows("select el_id from group_members where group_id = ? and el_type = 'asset'", target)).toEqual([{ el_id: copies[0] }]);
    const foreign = await insertGroup({ ownerId: (await signIn()).id });
    await expectError(
      await call("/api/tasklist/enqueue-task/copy", {
        method: "POST",
        bearer: user.bearer,
        json: { entities: [{ id: assetId, type: "asset" }], options: { group_id: foreign } },
      }),
      404,
    );
  });

  it("exports a group to a ZIP in R2, downloadable by the signed link of task-result", async () => {
    const user = await signIn();
    const group = await insertGroup({ ownerId: user.id, name: "Экспорт" });
    const a = await insertStoredAsset({ ownerId: user.id, name: "один.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    const b = await insertStoredAsset({ ownerId: user.id, name: "два.pdf", mime: "application/pdf", bytes: fixture("pdf") });
    await addMember(group, a.assetId);
    await addMember(group, b.assetId);
    const task = await enqueueAndRun(user.bearer, "export", { entities: [{ id: group, type: "group" }] });
    expect(task.status).toBe("done");
    const result = await getJson<{ download_url: string; result: { files: number; size: number } }>(
      `/api/tasklist/task-result/${task.id}`,
      user.bearer,
    );
    expect(result.result.files).toBe(2);
    const res = await call(result.download_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    const zip = new Uint8Array(await res.arrayBuffer());
    expect(zip.length).toBe(result.result.size);
    const text = new TextDecoder().decode(zip);
    expect(text).toContain("один.jpg");
    expect(text).toContain("два.pdf");
    // The archive holds the files' bytes as they are (stored).
    expect(text).toContain("/Type /Pages");
    expect(new DataView(zip.buffer).getUint32(zip.length - 22, true)).toBe(0x06054b50);
    expect(await env.MEDIA.head(`exports/${task.id}.tail`)).toBeNull();
    // A tampered link is refused.
    await expectError(await call(result.download_url.replace(/sig=[^&]+/, "sig=AAAA")), 404);
  });

  it("purges a trashed group for good and refuses a live one (409)", async () => {
    const user = await signIn();
    const live = await insertGroup({ ownerId: user.id });
    const error = await expectError(
      await call("/api/tasklist/enqueue-task/purge", {
        method: "POST",
        bearer: user.bearer,
        json: { entities: [{ id: live, type: "group" }] },
      }),
      409,
    );
    expect(error.message).toBe(ru.tasks.notTrashed);
    const trashed = await insertGroup({ ownerId: user.id, deletedAt: Date.now() });
    const { assetId } = await insertStoredAsset({ ownerId: user.id, name: "в корзине.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    await addMember(trashed, assetId);
    const task = await enqueueAndRun(user.bearer, "purge", { entities: [{ id: trashed, type: "group" }] });
    expect(task.status).toBe("done");
    expect(await rows("select id from groups where id = ?", trashed)).toEqual([]);
    expect(await rows("select id from assets where id = ?", assetId)).toEqual([]);
  });

  it("reindexes the listing keys of a group's assets", async () => {
    const user = await signIn();
    const group = await insertGroup({ ownerId: user.id });
    const { assetId } = await insertStoredAsset({ ownerId: user.id, name: "Ёлка.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    await addMember(group, assetId);
    await env.DB.prepare("update group_members set sort_name = 'stale', el_size = 0 where el_id = ?").bind(assetId).run();
    const task = await enqueueAndRun(user.bearer, "reindex", { entities: [{ id: group, type: "group" }] });
    expect(JSON.parse(task.result!)).toEqual({ assets: 1, rollup_drift: { assets: 0, folders: 0 } });
    expect(await rows("select sort_name, el_size from group_members where el_id = ?", assetId)).toEqual([
      { sort_name: "ёлка.jpg", el_size: fixture("tiny").length },
    ]);
  });

  it("reindex re-derives the search index's visibility tokens of a folder, the folders below it and their files", async () => {
    const user = await signIn();
    const group = await insertGroup({ ownerId: user.id });
    const inner = await insertGroup({ ownerId: user.id, parentId: group });
    const { assetId } = await insertStoredAsset({ ownerId: user.id, name: "маяк.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    await addMember(inner, assetId);
    const tokens = async () => (await indexRowsOf([group, inner, assetId])).map((r) => ({ id: r.id, acl: r.acl }));
    await indexed();
    const exact = await tokens();
    expect(exact.find((t) => t.id === assetId)?.acl).toContain(`a${group}`);
    // Behind the feed's back (a manual fix, a bulk import): every token lost.
    const docs = (await indexRowsOf([group, inner, assetId])).map((r) => r.doc_id);
    await execOnSearch("update search_index set acl = 'o' where rowid in (select value from json_each(?))", JSON.stringify(docs));
    const task = await enqueueAndRun(user.bearer, "reindex", { entities: [{ id: group, type: "group" }] });
    expect(task.status).toBe("done");
    expect(await tokens()).toEqual(exact);
  });

  it("reindex ends with the folder rollups: reports the drift it found and puts it right", async () => {
    const user = await signIn();
    const group = await insertGroup({ ownerId: user.id });
    const { assetId } = await insertStoredAsset({ ownerId: user.id, name: "кадр.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    await addMember(group, assetId);
    const exact = await rows("select assets, bytes, sub_assets, sub_bytes from folder_rollups where group_id = ?", group);
    expect(exact).toEqual([{ assets: 1, bytes: fixture("tiny").length, sub_assets: 1, sub_bytes: fixture("tiny").length }]);
    // Behind the triggers' back (as a bulk import or a manual fix could): one folder and one asset total drift.
    await env.DB.batch([
      env.DB.prepare("update asset_totals set listings = listings + 5 where asset_id = ?").bind(assetId),
      env.DB.prepare("update folder_rollups set sub_groups = sub_groups + 3 where group_id = ?").bind(group),
    ]);
    const task = await enqueueAndRun(user.bearer, "reindex", { entities: [{ id: group, type: "group" }] });
    expect(JSON.parse(task.result!)).toEqual({ assets: 1, rollup_drift: { assets: 1, folders: 1 } });
    expect(await rows("select assets, bytes, sub_assets, sub_bytes from folder_rollups where group_id = ?", group)).toEqual(exact);
    expect(
      await rows("select sub_groups, listings from folder_rollups, asset_totals where group_id = ? and asset_id = ?", group, assetId),
    ).toEqual([{ sub_groups: 1, listings: 1 }]);
    // Run again: nothing left to report.
    const again = await enqueueAndRun(user.bearer, "reindex", { entities: [{ id: group, type: "group" }] });
    expect(JSON.parse(again.result!)).toEqual({ assets: 1, rollup_drift: { assets: 0, folders: 0 } });
  });

  it("answers a worker the task's source bytes (upload-decode)", async () => {
    const user = await signIn();
    const { assetId, variantId, key } = await insertStoredAsset({
      ownerId: user.id,
      name: "src.jpg",
      mime: "image/jpeg",
      bytes: fixture("tiny"),
    });
    const id = await insertTask({ status: "done", ownerId: user.id, op: "preview", affected: [{ id: assetId, type: "asset" }] });
    const source = await getJson<Record<string, unknown>>(`/api/worker-task/upload-decode/${id}`, user.bearer);
    expect(source).toMatchObject({
      job_id: id,
      asset_id: assetId,
      asset_variant_id: variantId,
      storage_path: key,
      mime_type: "image/jpeg",
      asset_version: 1,
    });
    await expectError(await call(`/api/worker-task/upload-decode/${id}`, { bearer: (await signIn()).bearer }), 404);
    await expectError(await call(`/api/worker-task/upload-decode/${UNKNOWN}`, { bearer: user.bearer }), 404);
  });

  it("pages a task's log after a seq", async () => {
    const user = await signIn();
    const id = await insertTask({ status: "done", ownerId: user.id });
    const { taskStub } = await import("../../workers/services/tasks/task-live");
    for (let i = 1; i <= 5; i++) await taskStub(env, id).appendLog("info", `строка ${i}`);
    const first = await getJson<{ lines: { seq: number; message: string }[]; last_seq: number; total: number }>(
      `/api/tasklist/log/${id}?take=2`,
      user.bearer,
    );
    expect(first.lines.map((l) => l.message)).toEqual(["строка 1", "строка 2"]);
    expect([first.total, first.last_seq]).toEqual([5, first.lines[0].seq + 4]);
    const next = await getJson<{ lines: { message: string }[] }>(
      `/api/tasklist/log/${id}?after=${first.lines[1].seq}&take=10`,
      user.bearer,
    );
    expect(next.lines.map((l) => l.message)).toEqual(["строка 3", "строка 4", "строка 5"]);
    await expectError(await call(`/api/tasklist/log/${id}?take=0`, { bearer: user.bearer }), 400);
  });
});
