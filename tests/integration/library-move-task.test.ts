import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { forgetLibraryPlaces } from "../../workers/db/library-directory";
import { libraryCounts, readMove } from "../../workers/db/repositories/library-move.repository";
import { libraryShard } from "../../workers/db/library-directory";
import { abandonLibraryMove, continueLibraryMove, startLibraryMove } from "../../workers/services/library/library-move.service";
import { runTaskNow } from "../../workers/services/tasks/task-runner";
import { testContext } from "./catalog-fixtures";
import { call, expectError } from "./factories";
import { admin, createGroup, getJson, insertAsset, ordinaryUser, releaseMovedLibraries, uniqueName } from "./library-factories";
import { postJson, taskRow, waitForTask } from "./task-fixtures";

/**
 * The `library-move` task (decision 044): how an administrator moves a library into its shard — started through the
 * tasks API, resumed where a stopped move left off, refused to everyone else and for what is not a library.
 */

const moved: string[] = [];
afterAll(() => releaseMovedLibraries(moved));

const ENQUEUE = "/api/tasklist/enqueue-task/library-move";
const asEntity = (id: string) => ({ entities: [{ type: "group", id }] });

interface PlanEntry {
  id: string;
  move: { shard: number; state: string; step: string; switched_at: string | null } | null;
}

async function planOf(bearer: string, library: string): Promise<PlanEntry | undefined> {
  const plan = await getJson<{ libraries: PlanEntry[] }>("/api/library-shards/plan", bearer);
  return plan.libraries.find((l) => l.id === library);
}

/** A library with a subfolder and two files, made by `boss`. */
async function library(boss: { id: string; bearer: string }) {
  const top = await createGroup(boss, uniqueName("Фонд"));
  const sub = await createGroup(boss, "Съёмки", top);
  const clip = await insertAsset({ ownerId: boss.id, groups: [sub], size: 4000 });
  await insertAsset({ ownerId: boss.id, groups: [top], size: 300, mime: "image/jpeg" });
  moved.push(top);
  return { top, sub, clip };
}

async function runToEnd(jobId: string) {
  await runTaskNow(testContext(), jobId);
  return waitForTask(jobId, ["done", "error"], 30_000);
}

describe("library-move task", () => {
  it("moves a library into its shard: the plan shows where it stands, the log names where it began and ended, its files stay writable", async () => {
    const boss = await admin();
    const { top, clip } = await library(boss);
    expect((await planOf(boss.bearer, top))?.move).toBeNull();

    const { job_id } = await postJson<{ job_id: string }>(ENQUEUE, boss.bearer, asEntity(top));
    const task = await runToEnd(job_id);
    expect(task.status).toBe("done");
    expect(task.progress).toBe(100);
    const move = (await readMove(env.DB, top))!;
    expect(move).toMatchObject({ state: "shard", step: "done" });
    expect(JSON.parse(task.result!)).toMatchObject({ library: top, shard: move.shard });
    expect(await libraryShard(env, move.shard).libraryCounts(top)).toEqual(await libraryCounts(env.DB, top));

    const plan = await planOf(boss.bearer, top);
    expect(plan?.move).toMatchObject({ shard: move.shard, state: "shard", step: "done" });
    expect(plan?.move?.switched_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const log = await getJson<{ lines: { message: string }[] }>(`/api/tasklist/log/${job_id}`, boss.bearer);
    const lines = log.lines.map((l) => l.message);
    for (const step of ["folders", "done"]) expect(lines).toContainEqual(expect.stringContaining(ru.tasks.moveSteps[step]));
    expect(lines).toContainEqual(expect.stringContaining(`№${move.shard}`));

    // The library now lives in its shard: a rename is written there (and back), not refused.
    forgetLibraryPlaces();
    const renamed = await call(`/api/asset/${clip.id}`, { method: "PATCH", bearer: boss.bearer, json: { asset_name: "дубль-2.mov" } });
    expect(renamed.status).toBe(200);
    expect(await libraryShard(env, move.shard).libraryCounts(top)).toEqual(await libraryCounts(env.DB, top));

    // Moved once: a second task is refused, and says why.
    const again = await expectError(await call(ENQUEUE, { method: "POST", bearer: boss.bearer, json: asEntity(top) }), 409);
    expect(again.message).toBe(
      ru.tasks.libraryMoved((await env.DB.prepare("SELECT name FROM groups WHERE id = ?").bind(top).first<{ name: string }>())!.name),
    );
  });

  it("resumes a move that stopped half-way (started elsewhere, ended by the platform) instead of starting over", async () => {
    const boss = await admin();
    const { top } = await library(boss);
    await startLibraryMove(env, top);
    const stop = new Error("stopped");
    await expect(
      continueLibraryMove(env, top, {
        deadline: Date.now() + 60_000,
        afterStep: (reached) => {
          if (reached === "folders:saved") throw stop;
        },
      }),
    ).rejects.toBe(stop);
    const before = (await readMove(env.DB, top))!;
    expect(before).toMatchObject({ state: "copying", step: "folders" });

    const { job_id } = await postJson<{ job_id: string }>(ENQUEUE, boss.bearer, asEntity(top));
    expect((await runToEnd(job_id)).status).toBe("done");
    const after = (await readMove(env.DB, top))!;
    expect(after).toMatchObject({ state: "shard", shard: before.shard, startedAt: before.startedAt });
    expect(await libraryShard(env, after.shard).libraryCounts(top)).toEqual(await libraryCounts(env.DB, top));
  });

  it("gives up a move that has not switched: the catalog takes the library's writes again, the shard's copy and the journal go", async () => {
    const boss = await admin();
    const { top, clip } = await library(boss);
    const giveUp = { ...asEntity(top), options: { abandon: true } };
    // Nothing to give up yet.
    expect((await expectError(await call(ENQUEUE, { method: "POST", bearer: boss.bearer, json: giveUp }), 409)).message).toBe(
      ru.tasks.noMoveToAbandon,
    );
    await startLibraryMove(env, top);
    const stop = new Error("stopped");
    await expect(
      continueLibraryMove(env, top, {
        deadline: Date.now() + 60_000,
        slice: 1,
        afterStep: (reached) => {
          if (reached === "assets:saved") throw stop;
        },
      }),
    ).rejects.toBe(stop);
    const move = (await readMove(env.DB, top))!;
    expect((await libraryShard(env, move.shard).entityTotals(top)).folders).toBeGreaterThan(0);
    // A write meanwhile is journaled for the move.
    forgetLibraryPlaces();
    expect(
      (await call(`/api/asset/${clip.id}`, { method: "PATCH", bearer: boss.bearer, json: { asset_name: "до отмены.mov" } })).status,
    ).toBe(200);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM library_move_journal").first<{ n: number }>()).not.toEqual({ n: 0 });

    // Someone else may not give it up.
    const owner = await ordinaryUser();
    await expectError(await call(ENQUEUE, { method: "POST", bearer: owner.bearer, json: giveUp }), 404);

    const { job_id } = await postJson<{ job_id: string }>(ENQUEUE, boss.bearer, giveUp);
    const task = await runToEnd(job_id);
    expect(task.status).toBe("done");
    expect(JSON.parse(task.result!)).toEqual({ library: top, abandoned: true });
    const log = await getJson<{ lines: { message: string }[] }>(`/api/tasklist/log/${job_id}`, boss.bearer);
    const name = (await env.DB.prepare("SELECT name FROM groups WHERE id = ?").bind(top).first<{ name: string }>())!.name;
    expect(log.lines.map((l) => l.message)).toContain(ru.tasks.log.moveAbandoned(name));

    expect(await readMove(env.DB, top)).toBeNull();
    // A step repeated after it ran (the platform may run the last one again) finds nothing left and changes nothing.
    expect(await abandonLibraryMove(env, top)).toBeNull();
    expect(await env.DB.prepare("SELECT count(*) AS n FROM id_directory WHERE library_id = ?").bind(top).first<{ n: number }>()).toEqual({
      n: 0,
    });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM library_move_journal").first<{ n: number }>()).toEqual({ n: 0 });
    expect(await libraryShard(env, move.shard).entityTotals(top)).toMatchObject({ folders: 0, assets: 0 });
    // The library works from the catalog as before, and may be moved again later.
    forgetLibraryPlaces();
    expect(
      (await call(`/api/asset/${clip.id}`, { method: "PATCH", bearer: boss.bearer, json: { asset_name: "после отмены.mov" } })).status,
    ).toBe(200);
    const again = await postJson<{ job_id: string }>(ENQUEUE, boss.bearer, asEntity(top));
    expect((await runToEnd(again.job_id)).status).toBe("done");
    const moved = (await readMove(env.DB, top))!;
    expect(moved.state).toBe("shard");
    expect(await libraryShard(env, moved.shard).libraryCounts(top)).toEqual(await libraryCounts(env.DB, top));
    // Switched, it is no longer a move to give up.
    const late = await expectError(await call(ENQUEUE, { method: "POST", bearer: boss.bearer, json: giveUp }), 409);
    expect(late.message).toBe(ru.tasks.libraryMoved(name));
  });

  it("is refused to anyone but an administrator, for what is not a library, for two at once and while one is queued", async () => {
    const boss = await admin();
    const { top, sub } = await library(boss);
    // An owner with every right on his own library still may not move it: shards are the installation's business.
    const owner = await ordinaryUser();
    const own = await createGroup(owner, uniqueName("Моя библиотека"));
    await expectError(await call(ENQUEUE, { method: "POST", bearer: owner.bearer, json: asEntity(own) }), 403);
    // A stranger learns nothing about a library he cannot see.
    await expectError(await call(ENQUEUE, { method: "POST", bearer: owner.bearer, json: asEntity(top) }), 404);
    await expectError(await call("/api/library-shards/plan", { bearer: owner.bearer }), 403);
    expect(await readMove(env.DB, own)).toBeNull();

    const notLibrary = await expectError(await call(ENQUEUE, { method: "POST", bearer: boss.bearer, json: asEntity(sub) }), 400);
    expect(notLibrary.message).toBe(ru.tasks.notALibrary("Съёмки"));
    await expectError(
      await call(ENQUEUE, {
        method: "POST",
        bearer: boss.bearer,
        json: {
          entities: [
            { type: "group", id: top },
            { type: "group", id: own },
          ],
        },
      }),
      400,
    );
    await expectError(await call(ENQUEUE, { method: "POST", bearer: boss.bearer, json: { entities: [{ type: "asset", id: top }] } }), 400);

    const { job_id } = await postJson<{ job_id: string }>(ENQUEUE, boss.bearer, asEntity(top));
    expect((await taskRow(job_id)).status).toBe("inqueue");
    await expectError(await call(ENQUEUE, { method: "POST", bearer: boss.bearer, json: asEntity(top) }), 409);
    // Nothing started before the task runs: the library is still only in the catalog.
    expect(await readMove(env.DB, top)).toBeNull();
    await call(`/api/tasklist/command/${job_id}`, { method: "POST", bearer: boss.bearer, json: { command: "cancel" } });
    expect((await taskRow(job_id)).status).toBe("canceled");
  });
});
