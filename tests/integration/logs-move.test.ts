import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { newId } from "../../workers/lib/ids";
import { moveOldLogs, type LogsMoveStep } from "../../workers/services/logs/logs-move.service";
import { LOG_TABLES, LOG_TABLE_SPECS, type LogTable } from "../../workers/db/repositories/logs-move.repository";
import { call, createUser, expectError, signIn, signInAdmin, type Session } from "./factories";
import { getJson, postJson } from "./task-fixtures";
import { worker } from "./worker-handlers";

// The made-up tasks marked running stay behind after a move (as they should): gone after the file, so the files that
// share its database do not find a hundred tasks "running" that no runner will ever end.
afterAll(async () => {
  await env.DB.prepare("DELETE FROM tasks WHERE name LIKE 'Задача logs%' AND operation_class = 'reindex'").run();
});

// Decision 038: audit rows, finished tasks and delivered events older than 30 days move from DB to LOGS; the audit,
// task and event APIs answer the same before, during (a move stopped at any step) and after.

const DAY = 86_400_000;
const OLD = Date.now() - 40 * DAY;

interface Seeded {
  marker: string;
  actorId: string;
  owner: Awaited<ReturnType<typeof signIn>>;
  /** the keys that must move, per table */
  moving: Record<LogTable, string[]>;
  /** the keys that must stay hot, per table */
  staying: Record<LogTable, string[]>;
}

async function all<T>(db: D1Database, query: string, ...binds: unknown[]): Promise<T[]> {
  return (
    await db
      .prepare(query)
      .bind(...binds)
      .all<T>()
  ).results;
}

/**
 * Audit rows of one made-up actor (`old` of them 40 days old, 5 recent), tasks of one owner named by the marker
 * (every tenth old one still running, one about a file that does not exist, the newest old but last), and events of
 * that owner (old delivered ones, one old undelivered, one old review request, one recent).
 */
async function seed(old: number): Promise<Seeded> {
  const marker = `logs${newId().slice(-8)}`;
  const actor = await createUser({ name: `Актор ${marker}` });
  const owner = await signIn();
  const moving: Seeded["moving"] = { audit_log: [], tasks: [], global_events: [] };
  const staying: Seeded["staying"] = { audit_log: [], tasks: [], global_events: [] };

  const audit = Array.from({ length: old + 5 }, (_, i) => ({
    id: newId(),
    ctime: i < old ? OLD + i * 1_000 : Date.now() - (old + 5 - i) * 1_000,
  }));
  audit.forEach((a, i) => (i < old ? moving : staying).audit_log.push(a.id));
  await env.DB.prepare(
    `insert into audit_log (id, ctime, actor_id, action, object_type, object_id, details)
     select json_extract(value, '$.id'), json_extract(value, '$.ctime'), ?2, 'user.update', 'user', ?2, '{"n":1}' from json_each(?1)`,
  )
    .bind(JSON.stringify(audit), actor.id)
    .run();

  const tasks = Array.from({ length: old + 1 }, (_, i) => {
    const status = i === old ? "done" : i % 10 === 9 ? "running" : ["done", "error", "canceled"][i % 3];
    const affected = i === 4 ? [{ id: newId(), type: "asset" }] : [];
    return { id: newId(), status, affected: JSON.stringify(affected), mtime: OLD + i * 1_000 };
  });
  tasks.forEach((t, i) => (t.status !== "running" && i < old ? moving : staying).tasks.push(t.id));
  await env.DB.prepare(
    `insert into tasks (id, job_num, operation_class, name, owner_id, affected, options, schedule_time, status, priority, ctime, mtime)
     select json_extract(value, '$.id'), (select coalesce(max(job_num), 0) from tasks) + key + 1, 'reindex', ?2, ?3,
       json_extract(value, '$.affected'), '{}', json_extract(value, '$.mtime'), json_extract(value, '$.status'), 5,
       json_extract(value, '$.mtime'), json_extract(value, '$.mtime')
     from json_each(?1)`,
  )
    .bind(JSON.stringify(tasks), `Задача ${marker}`, owner.id)
    .run();

  const events = Array.from({ length: old + 3 }, (_, i) => ({
    id: newId(),
    type: i === old + 1 ? "review.requested" : "test.logs",
    ctime: i < old + 2 ? OLD + i * 1_000 : Date.now(),
    delivered: i !== old,
  }));
  await env.DB.prepare(
    `insert into global_events (event_id, ctime, type, entity_type, entity_id, owner_id, data, delivered_at)
     select json_extract(value, '$.id'), json_extract(value, '$.ctime'), json_extract(value, '$.type'), 'asset', ?2, ?2, '{}',
       iif(json_extract(value, '$.delivered'), json_extract(value, '$.ctime'), null)
     from json_each(?1) order by key`,
  )
    .bind(JSON.stringify(events), owner.id)
    .run();
  const seqs = new Map(
    (await all<{ event_id: string; seq: number }>(env.DB, "select event_id, seq from global_events where owner_id = ?1", owner.id)).map(
      (r) => [r.event_id, String(r.seq)],
    ),
  );
  for (const e of events) {
    (e.type === "test.logs" && e.delivered && e.ctime < Date.now() - DAY ? moving : staying).global_events.push(seqs.get(e.id)!);
  }
  // The notification dispatcher has read every event.
  await env.DB.prepare(
    `insert into notification_cursor (name, seq, mtime) values ('inbox', (select max(seq) from global_events), 0)
     on conflict (name) do update set seq = excluded.seq`,
  ).run();
  return { marker, actorId: actor.id, owner, moving, staying };
}

const KEYS: Record<LogTable, string> = { audit_log: "id", tasks: "id", global_events: "seq" };

/** How many times each key of `keys` is in `db`'s table. */
async function presence(db: D1Database, table: LogTable, keys: string[]): Promise<Map<string, number>> {
  const key = KEYS[table];
  const found = await all<{ key: string }>(
    db,
    `select cast(${key} as text) as key from ${table} where cast(${key} as text) in (select value from json_each(?1))`,
    JSON.stringify(keys),
  );
  const counts = new Map(keys.map((k) => [k, 0]));
  for (const f of found) counts.set(f.key, (counts.get(f.key) ?? 0) + 1);
  return counts;
}

/** Every key in exactly one place: hot for `staying`, LOGS for `moving`, nothing pending. */
async function expectMoved(s: Seeded) {
  for (const table of ["audit_log", "tasks", "global_events"] as const) {
    expect(
      [...(await presence(env.LOGS, table, s.moving[table])).values()].every((n) => n === 1),
      `${table} in LOGS`,
    ).toBe(true);
    expect(
      [...(await presence(env.DB, table, s.moving[table])).values()].every((n) => n === 0),
      `${table} gone from DB`,
    ).toBe(true);
    expect(
      [...(await presence(env.DB, table, s.staying[table])).values()].every((n) => n === 1),
      `${table} kept in DB`,
    ).toBe(true);
    expect(
      [...(await presence(env.LOGS, table, s.staying[table])).values()].every((n) => n === 0),
      `${table} not in LOGS`,
    ).toBe(true);
  }
  expect(await all(env.LOGS, "select * from move_pending")).toEqual([]);
}

type Json = Record<string, unknown>;

/** What the APIs answer about the seeded rows: audit and task pages (shallow and deep), totals, a task by id, the event feed. */
async function answers(s: Seeded, admin: Session, skips: number[]) {
  const out: Json = {};
  for (const skip of skips) {
    const res = await call(`/api/audit?actor=${s.actorId}&take=50&skip=${skip}`, { bearer: admin.bearer });
    expect(res.status).toBe(200);
    out[`audit ${skip}`] = { total: res.headers.get("x-total-count"), page: await res.json() };
    for (const [who, bearer] of [
      ["admin", admin.bearer],
      ["owner", s.owner.bearer],
    ] as const) {
      // A task moved to LOGS lists no commands: compared without them (asserted on their own below).
      const page = await getJson<Json[]>(`/api/tasklist/current?name=${s.marker}&take=50&skip=${skip}`, bearer);
      out[`tasks ${who} ${skip}`] = page.map(({ commands: _, ...rest }) => rest);
    }
  }
  out.count = await getJson(`/api/tasklist/current/count?name=${s.marker}`, s.owner.bearer);
  out.countAdmin = await getJson(`/api/tasklist/current/count?name=${s.marker}&status=done`, admin.bearer);
  const { commands: _, ...task } = await getJson<Json>(`/api/tasklist/task/${s.moving.tasks[0]}`, s.owner.bearer);
  out.task = task;
  out.statuses = (await postJson<Json[]>("/api/tasklist/task-status", s.owner.bearer, { ids: s.moving.tasks.slice(0, 5) })).map(
    (t) => t.job_id,
  );
  const feed: Json[] = [];
  for (let after = 0; ; ) {
    const page = await getJson<{ events: Json[]; next_after: number }>(
      `/api/global-events/list?after=${after}&take=100&types=test.logs`,
      s.owner.bearer,
    );
    feed.push(...page.events);
    if (page.events.length < 100) break;
    after = page.next_after;
  }
  out.feed = feed;
  return out;
}

describe("old logs move to LOGS", () => {
  it("copies every column the hot tables have, and LOGS has each of them (a column added on one side only fails here)", async () => {
    const columnsOf = async (db: D1Database, table: string) =>
      (await db.prepare(`select name from pragma_table_info(?) order by name`).bind(table).all<{ name: string }>()).results.map((c) => c.name);
    for (const table of LOG_TABLES) {
      const copied = [...LOG_TABLE_SPECS[table].columns].sort();
      expect(await columnsOf(env.DB, table), table).toEqual(copied);
      expect(await columnsOf(env.LOGS, table), table).toEqual(copied);
    }
  });

  it("moves exactly the old finished rows in slices, a second run changes nothing, and every API answers the same", async () => {
    const admin = await signInAdmin();
    const s = await seed(1_100);
    const skips = [0, 50, 950, 1_000, 1_050, 1_100];
    const before = await answers(s, admin, skips);
    expect(before["audit 1000"]).toMatchObject({ total: "1105" });
    expect([(before["tasks owner 1050"] as Json[]).length, (before["tasks admin 1100"] as Json[]).length]).toEqual([50, 1]);

    // Stopped with a whole slice of tasks in both databases: the deep pages still show each once.
    const stop = (t: LogTable, step: LogsMoveStep) => {
      if (t === "tasks" && step === "copied") throw new Error("stopped");
    };
    await expect(
      moveOldLogs(env.DB, env.LOGS, { now: Date.now(), deadline: Date.now() + 60_000, maxRows: 100_000, afterStep: stop }),
    ).rejects.toThrow();
    expect((await all(env.LOGS, "select * from move_pending where tbl = 'tasks'")).length).toBe(500);
    expect(await answers(s, admin, skips)).toEqual(before);

    const started = Date.now();
    const first = await moveOldLogs(env.DB, env.LOGS, { now: Date.now(), deadline: Date.now() + 60_000, maxRows: 100_000 });
    const ms = Date.now() - started;
    console.info(`moved ${JSON.stringify(first)} in ${ms} ms`);
    expect(first.tasks).toBeGreaterThanOrEqual(s.moving.tasks.length - 500);
    await expectMoved(s);
    expect(await answers(s, admin, skips)).toEqual(before);

    const second = await moveOldLogs(env.DB, env.LOGS, { now: Date.now(), deadline: Date.now() + 60_000, maxRows: 100_000 });
    expect(second).toMatchObject({ audit_log: 0, tasks: 0, global_events: 0 });
    await expectMoved(s);

    // History only: an archived task takes no command and offers none.
    const archived = await getJson<{ commands: string[]; status: string }>(`/api/tasklist/task/${s.moving.tasks[0]}`, s.owner.bearer);
    expect(archived.commands).toEqual([]);
    const refused = await expectError(
      await call(`/api/tasklist/command/${s.moving.tasks[0]}`, { method: "POST", bearer: s.owner.bearer, json: { command: "restart" } }),
      409,
    );
    expect(refused.message).toBe("Задача старше 30 дней перенесена в журнал: её можно только просмотреть");
  }, 120_000);

  it("keeps refusing who was refused: the whole log is the administrator's, another owner's archived task is not found", async () => {
    const s = await seed(12);
    await moveOldLogs(env.DB, env.LOGS, { now: Date.now(), deadline: Date.now() + 60_000, maxRows: 100_000 });
    const stranger = await signIn();
    await expectError(await call(`/api/audit?actor=${s.actorId}`, { bearer: stranger.bearer }), 403);
    await expectError(await call(`/api/tasklist/task/${s.moving.tasks[0]}`, { bearer: stranger.bearer }), 404);
    expect(await getJson<{ count: number }>(`/api/tasklist/current/count?name=${s.marker}`, stranger.bearer)).toEqual({ count: 0 });
    // The owner no longer reads a task about a file that is gone, archived or not.
    const hidden = s.moving.tasks[4];
    await expectError(await call(`/api/tasklist/task/${hidden}`, { bearer: s.owner.bearer }), 404);
    const admin = await signInAdmin();
    expect((await getJson<{ job_id: string }>(`/api/tasklist/task/${hidden}`, admin.bearer)).job_id).toBe(hidden);
  });

  const stops: [LogTable, LogsMoveStep][] = (["audit_log", "tasks", "global_events"] as const).flatMap((table) =>
    (["copied", "deleted", "cleared"] as const).map((step) => [table, step] as [LogTable, LogsMoveStep]),
  );

  it.each(stops)("a move stopped after %s %s loses and doubles nothing, and the next run finishes it", async (table, step) => {
    const admin = await signInAdmin();
    const s = await seed(7);
    const skips = [0];
    const before = await answers(s, admin, skips);
    let stopped = false;
    const afterStep = (t: LogTable, st: LogsMoveStep) => {
      if (!stopped && t === table && st === step) {
        stopped = true;
        throw new Error("stopped");
      }
    };
    const opts = { now: Date.now(), deadline: Date.now() + 60_000, maxRows: 100_000, sliceRows: 3 };
    await expect(moveOldLogs(env.DB, env.LOGS, { ...opts, afterStep })).rejects.toThrow("stopped");
    // Every row somewhere, and each shown once while the move is stopped.
    for (const t of ["audit_log", "tasks", "global_events"] as const) {
      const [hot, logs] = await Promise.all([presence(env.DB, t, s.moving[t]), presence(env.LOGS, t, s.moving[t])]);
      expect(
        s.moving[t].every((k) => hot.get(k)! + logs.get(k)! >= 1),
        t,
      ).toBe(true);
    }
    expect(await answers(s, admin, skips)).toEqual(before);
    await moveOldLogs(env.DB, env.LOGS, { ...opts, now: Date.now() });
    await expectMoved(s);
    expect(await answers(s, admin, skips)).toEqual(before);
  });

  it("a task restarted between the copy and the delete stays hot and its stale copy is dropped", async () => {
    const s = await seed(3);
    const restarted = s.moving.tasks[0];
    await expect(
      moveOldLogs(env.DB, env.LOGS, {
        now: Date.now(),
        deadline: Date.now() + 60_000,
        maxRows: 100_000,
        afterStep: (t, st) => {
          if (t === "tasks" && st === "copied") throw new Error("stopped");
        },
      }),
    ).rejects.toThrow("stopped");
    await env.DB.prepare(`update tasks set status = 'inqueue', mtime = ?2 where id = ?1`).bind(restarted, Date.now()).run();
    await moveOldLogs(env.DB, env.LOGS, { now: Date.now(), deadline: Date.now() + 60_000, maxRows: 100_000 });
    expect(await presence(env.DB, "tasks", [restarted])).toEqual(new Map([[restarted, 1]]));
    expect(await presence(env.LOGS, "tasks", [restarted])).toEqual(new Map([[restarted, 0]]));
    expect(await all(env.LOGS, "select * from move_pending")).toEqual([]);
  });

  it("the minute cron moves them", async () => {
    const s = await seed(4);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    // Only what was old and finished before the cron: its own sweep may deliver the seeded undelivered event first.
    for (const table of ["audit_log", "tasks", "global_events"] as const) {
      expect(
        [...(await presence(env.LOGS, table, s.moving[table])).values()].every((n) => n === 1),
        table,
      ).toBe(true);
      expect(
        [...(await presence(env.DB, table, s.moving[table])).values()].every((n) => n === 0),
        table,
      ).toBe(true);
    }
  });
});
