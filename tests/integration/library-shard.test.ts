import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import type { LibraryShardDO } from "../../durable-objects/library-shard.do";
import { CATALOG_MIGRATIONS } from "../../workers/db/catalog-migrations";
import { callShard } from "../../workers/db/library-shard-call";
import { isUniqueViolation } from "../../workers/db/repositories/user.repository";
import { SqlStorageClient } from "../../workers/db/sql-storage-client";
import { AppError } from "../../workers/lib/errors";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
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
       WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT IN ('d1_migrations', 'shard_migrations')
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
    const stub = shardNamed("calls") as unknown as Pick<LibraryShardDO, "membersPage">;
    const actor: Actor = { id: newId(), name: "Анна", login: "anna", isAdmin: true, isRobot: false, sessionFamily: null };
    const refused = await callShard("Архив", () => stub.membersPage(actor, newId(), {})).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "NOT_FOUND", status: 404, message: ru.groups.notFound });
    // The runtime marks what the object's own code threw as remote: callShard lets it through as the fault it is.
    const fault = await callShard("Архив", () => stub.membersPage(null as unknown as Actor, ROOT_GROUP_ID, {})).catch(
      (error: unknown) => error,
    );
    expect(fault).not.toBeInstanceOf(AppError);
    expect((fault as { remote?: boolean }).remote).toBe(true);
  });

  it("resumes its migrations where a stopped one left them, each applied once", async () => {
    const last = CATALOG_MIGRATIONS.at(-1)!;
    await runInDurableObject(shardNamed("resume"), async (instance: LibraryShardDO, state) => {
      // As if the object stopped before the last migration committed: its transaction left nothing behind.
      const before = await schemaOf(new SqlStorageClient(state.storage));
      state.storage.sql.exec("DELETE FROM shard_migrations WHERE name = ?", last.name);
      for (const { type, name } of before.filter((row) => /search_layout/.test(String(row.sql)))) {
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
