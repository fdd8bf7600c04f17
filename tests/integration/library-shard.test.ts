import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import type { LibraryShardDO } from "../../durable-objects/library-shard.do";
import { CATALOG_MIGRATIONS } from "../../workers/db/catalog-migrations";
import { createDb } from "../../workers/db/client";
import { callShard } from "../../workers/db/library-shard-call";
import { readCallerCopy } from "../../workers/db/repositories/caller-copy.repository";
import { isUniqueViolation } from "../../workers/db/repositories/user.repository";
import { SqlStorageClient } from "../../workers/db/sql-storage-client";
import { AppError } from "../../workers/lib/errors";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { maskOf } from "../../workers/services/access/access-policy";
import { signInAdmin } from "./factories";
import { callerCopyOf } from "./shard-fixtures";
import type { Actor } from "../../workers/services/access/context";

/**
 * The library shard's engine (decision 043): a SQLite Durable Object with the catalog's schema, and the D1 API over
 * it that lets the repositories run there unchanged. Whether the repositories and services then answer as they do on
 * D1 is the access properties' second half (access-sql-property, access-edits-property); here: the schema is the
 * catalog's, and the D1 API behaves as D1's does in everything the repositories read back.
 */

type Catalog = Pick<D1Database, "prepare" | "batch">;

function shardNamed(name: string) {
  return env.LIBRARY_SHARDS.get(env.LIBRARY_SHARDS.idFromName(name));
}

/** Every table, index, trigger and view, as SQLite stores their definitions. */
async function schemaOf(catalog: Catalog) {
  const { results } = await catalog
    .prepare(
      `SELECT type, name, tbl_name, sql FROM sqlite_master
       WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'shard_changes%' AND name NOT LIKE 'shard_hold%' AND name NOT LIKE 'shard_shared%'
         AND name NOT IN ('d1_migrations', 'shard_migrations', 'shard_libraries', 'shard_quiet')
       ORDER BY type, name`,
    )
    .all();
  return results;
}

function refuses(call: () => unknown): string {
  try {
    call();
    return "accepted";
  } catch (error) {
    return (error as Error).message;
  }
}

/** What a repository can observe of each D1 call, with the timings and sizes (which differ by nature) left out. */
async function observe(catalog: Catalog, [user, other, third]: readonly string[]) {
  const insert = catalog.prepare("INSERT INTO users (id, login, name, is_admin, ctime, mtime) VALUES (?, ?, ?, ?, ?, ?)");
  const created = await insert.bind(user, `shard-${user}`, "Анна", true, 1, 2).run();
  const loginTaken = await insert
    .bind(other, `SHARD-${user}`, "Борис", false, 1, 2)
    .run()
    .then(
      () => false,
      (error) => isUniqueViolation(error),
    );
  const renamed = await catalog.prepare("UPDATE users SET name = ? WHERE id = ?").bind("Анна Б.", user).run();
  const missed = await catalog.prepare("UPDATE users SET name = ? WHERE id = ?").bind("—", other).run();
  const select = catalog.prepare("SELECT id, name, is_admin FROM users WHERE id IN (?, ?) ORDER BY id");
  // A batch is all or nothing: the second insert repeats the first one's login, so neither is written.
  const batchFailed = await catalog
    .batch([insert.bind(other, `shard-${other}`, "В", 0, 1, 2), insert.bind(third, `shard-${other}`, "Г", 0, 1, 2)])
    .then(
      () => false,
      () => true,
    );
  const batch = await catalog.batch([
    catalog.prepare("UPDATE users SET mtime = 3 WHERE id = ?").bind(user),
    catalog.prepare("SELECT mtime FROM users WHERE id = ?").bind(user),
  ]);
  const blob = await catalog.prepare("SELECT x'00ff10' AS b, NULL AS n, 2.5 AS f").first();
  return {
    created: [created.success, created.meta.changes, created.results],
    loginTaken,
    renamed: renamed.meta.changes,
    missed: missed.meta.changes,
    all: (await select.bind(user, other).all()).results,
    first: await select.bind(user, other).first(),
    firstColumn: await select.bind(user, other).first("name"),
    raw: await select.bind(user, other).raw(),
    rawWithNames: await select.bind(user, other).raw({ columnNames: true }),
    batchFailed,
    afterFailedBatch: await catalog.prepare("SELECT count(*) AS n FROM users WHERE login = ?").bind(`shard-${other}`).first("n"),
    batch: batch.map((r) => [r.meta.changes, r.results]),
    blob,
    missingColumn: await select
      .bind(user, other)
      .first("nope")
      .catch((error: Error) => /D1_COLUMN_NOTFOUND/.test(error.message)),
    undefinedBinding: refuses(() => insert.bind(third, undefined, "x", 0, 1, 2)),
  };
}

describe("library shard", () => {
  // The tests below write users into DB directly: the administrator is made first, as a fresh install's first request
  // makes them only while no user exists.
  beforeAll(async () => {
    await signInAdmin();
  });

  it("applies every catalog migration and ends with exactly the catalog's schema", async () => {
    expect(CATALOG_MIGRATIONS.map((m) => m.name)).toEqual(env.TEST_MIGRATIONS.map((m) => m.name));
    const expected = await schemaOf(env.DB);
    const { stats, schema } = await runInDurableObject(shardNamed("schema"), async (instance: LibraryShardDO, state) => ({
      stats: await instance.stats(),
      schema: await schemaOf(new SqlStorageClient(state.storage)),
    }));
    expect(stats.migrations).toBe(CATALOG_MIGRATIONS.length);
    expect(schema).toEqual(expected);
    expect(expected.length).toBeGreaterThan(50);
  });

  it("answers every call the repositories make as D1 does", async () => {
    const ids = [newId(), newId(), newId()];
    const onD1 = await observe(env.DB, ids);
    const inShard = await runInDurableObject(shardNamed("d1-api"), (_instance: LibraryShardDO, state) =>
      observe(new SqlStorageClient(state.storage), ids),
    );
    expect(inShard).toEqual(onD1);
    // D1 counts the rows the statement's triggers changed too (the outbox, the index marks): more than one here.
    expect(onD1.renamed).toBeGreaterThan(1);
    expect(onD1).toMatchObject({ loginTaken: true, missed: 0, batchFailed: true, afterFailedBatch: 0, missingColumn: true });
    expect(onD1.undefinedBinding).toMatch(/D1_TYPE_ERROR/);
  });

  it("brings a service's refusal back through the call as the same error, and a fault in its code as a fault", async () => {
    const library = shardNamed("calls") as unknown as Pick<LibraryShardDO, "membersPage">;
    const actor: Actor = { id: newId(), name: "Анна", login: `anna-${newId()}`, isAdmin: true, isRobot: false, sessionFamily: null };
    const caller = callerCopyOf(actor);
    const refused = await callShard("Архив", () => library.membersPage(caller, actor, newId(), {})).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "NOT_FOUND", status: 404, message: ru.groups.notFound });
    // The runtime marks what the object's own code threw as remote: callShard lets it through as the fault it is.
    const fault = await callShard("Архив", () => library.membersPage(caller, { ...actor, id: newId() }, ROOT_GROUP_ID, {})).catch(
      (error: unknown) => error,
    );
    expect(fault).not.toBeInstanceOf(AppError);
    expect((fault as { remote?: boolean }).remote).toBe(true);
  });

  it("decides with the caller's groups as the global database says now: a removed membership counts on the next call", async () => {
    const now = Date.now();
    const reader = newId();
    const team = newId();
    const folder = newId();
    const asset = newId();
    const login = `reader-${reader}`;
    // Global: the reader and their membership in a group of users. The shard holds neither.
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO users (id, login, name, password_hash, ctime, mtime) VALUES (?, ?, 'Читатель', 'secret-hash', ?, ?)",
      ).bind(reader, login, now, now),
      env.DB.prepare("INSERT INTO user_group_members (group_id, user_id, ctime) VALUES (?, ?, ?)").bind(team, reader, now),
    ]);
    const shard = shardNamed("caller-copy");
    const stale = newId();
    await runInDurableObject(shard, async (_instance: LibraryShardDO, state) => {
      const client = new SqlStorageClient(state.storage);
      await client.batch([
        // A stale copy of someone else who held the reader's login before.
        client.prepare("INSERT INTO users (id, login, name, ctime, mtime) VALUES (?, ?, 'Прежний', 0, 0)").bind(stale, login.toUpperCase()),
        client
          .prepare("INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES (?, 'Клипы', ?, ?, ?, ?)")
          .bind(folder, ROOT_GROUP_ID, stale, now, now),
        client
          .prepare("INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) VALUES (?, ?, 'group', ?, 'Клипы')")
          .bind(ROOT_GROUP_ID, folder, now),
        client
          .prepare("INSERT INTO group_closure (ancestor, descendant, depth) VALUES (?, ?, 0), (?, ?, 1)")
          .bind(folder, folder, ROOT_GROUP_ID, folder),
        client
          .prepare(
            "INSERT INTO assets (id, name, mime, owner_id, creator_id, ctime, mtime, atime) VALUES (?, 'clip.mp4', 'video/mp4', ?, ?, ?, ?, ?)",
          )
          .bind(asset, stale, stale, now, now, now),
        client
          .prepare("INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) VALUES (?, ?, 'asset', ?, 'clip.mp4')")
          .bind(folder, asset, now),
        client
          .prepare(
            "INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) VALUES (?, ?, 'group', ?, 'group', ?, ?)",
          )
          .bind(newId(), team, folder, maskOf(["read"]), now),
      ]);
    });
    const library = shard as unknown as Pick<LibraryShardDO, "membersPage">;
    const actor: Actor = { id: reader, name: "Читатель", login, isAdmin: false, isRobot: false, sessionFamily: null };
    const list = async () =>
      callShard("Клипы", async () =>
        library.membersPage((await readCallerCopy(createDb(env.DB), reader))!, actor, folder, { type: "asset" }),
      );

    expect((await list())?.items.map((item) => item.el_id)).toEqual([asset]);
    const copies = async () =>
      runInDurableObject(shard, async (_instance: LibraryShardDO, state) => {
        const client = new SqlStorageClient(state.storage);
        return {
          reader: await client.prepare("SELECT login, password_hash FROM users WHERE id = ?").bind(reader).first(),
          stale: await client.prepare("SELECT login FROM users WHERE id = ?").bind(stale).first("login"),
          groups: (await client.prepare("SELECT group_id FROM user_group_members WHERE user_id = ?").bind(reader).all()).results,
          revision: await client.prepare("SELECT revision FROM cache_revisions WHERE scope = 'shared'").first("revision"),
        };
      });
    const first = await copies();
    // The password hash stays in the global database; the stale copy gave the login up.
    expect(first).toMatchObject({ reader: { login, password_hash: null }, stale, groups: [{ group_id: team }] });
    // A copy that is current is not written again.
    await list();
    expect((await copies()).revision).toBe(first.revision);

    await env.DB.prepare("DELETE FROM user_group_members WHERE user_id = ?").bind(reader).run();
    const refused = await list().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect([403, 404]).toContain((refused as AppError).status);
    expect((await copies()).groups).toEqual([]);
  });

  it("resumes its migrations where a stopped one left them, each applied once", async () => {
    // The last migration that only creates: undoing it is dropping what it made (one that alters cannot be undone here).
    const last = [...CATALOG_MIGRATIONS].reverse().find((m) => !/^\s*(ALTER|DROP)\b/im.test(m.sql))!;
    await runInDurableObject(shardNamed("resume"), async (instance: LibraryShardDO, state) => {
      // As if the object stopped before the last migration committed: its transaction left nothing behind.
      const before = await schemaOf(new SqlStorageClient(state.storage));
      state.storage.sql.exec("DELETE FROM shard_migrations WHERE name = ?", last.name);
      const names = new Set([...last.sql.matchAll(/CREATE (?:UNIQUE )?(?:TABLE|INDEX|TRIGGER) `([^`]+)`/g)].map((m) => m[1]));
      const created = before.filter((row) => names.has(String(row.name)));
      expect(created.length).toBeGreaterThan(0);
      for (const { type, name } of created.sort((a, b) => (a.type === "trigger" ? -1 : b.type === "trigger" ? 1 : 0))) {
        state.storage.sql.exec(`DROP ${type === "table" ? "TABLE" : type === "index" ? "INDEX" : "TRIGGER"} IF EXISTS ${name}`);
      }
      expect((await instance.stats()).migrations).toBe(CATALOG_MIGRATIONS.length - 1);
      (instance as unknown as { migrate(): void }).migrate();
      (instance as unknown as { migrate(): void }).migrate();
      expect(await schemaOf(new SqlStorageClient(state.storage))).toEqual(before);
      expect((await instance.stats()).migrations).toBe(CATALOG_MIGRATIONS.length);
    });
  });
});
