import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readMove } from "../../workers/db/repositories/library-move.repository";
import { SEEK_SPACING } from "../../workers/db/repositories/member-seek.repository";
import { call } from "./factories";
import { admin, createGroup, uniqueName } from "./library-factories";
import { inShard, throughShards } from "./through-shards";

// Decision record 032: a seek checkpoint holds the span since the previous one, so listing one file at the top of a
// large folder, or committing its new size and mtime, writes one checkpoint per seek list — not every checkpoint
// after it (with running counts, each of the folder's ~1,400 checkpoint rows at 100,000 files).

const FILES = SEEK_SPACING * 12;

async function fill(group: string, ownerId: string): Promise<void> {
  const t = Date.now().toString(16);
  await throughShards(() =>
    env.DB.batch([
      env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${FILES})
       INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
       SELECT printf('%s%019x', ?2, i), printf('m-%06d.jpg', i), 'image/jpeg', ?1, ?1, 1, 0, i, 0 FROM n`,
      ).bind(ownerId, t.padEnd(13, "0")),
      env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${FILES})
       INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
       SELECT ?1, printf('%s%019x', ?2, i), 'asset', 0, printf('m-%06d.jpg', i), i, 1000 + i FROM n`,
      ).bind(group, t.padEnd(13, "0")),
    ]),
  );
}

/**
 * Statements on the database a library's folder pages are read from and its writes made in: the catalog, or — its
 * library in its shard (the sharded tier) — that shard, whose triggers are the catalog's, applied from the same
 * migrations. `written`: the rows a statement wrote, triggers included.
 */
async function databaseOf(library: string) {
  const move = await readMove(env.DB, library);
  if (!move) {
    return {
      written: async (query: string, ...binds: unknown[]) =>
        (
          await env.DB.prepare(query)
            .bind(...binds)
            .run()
        ).meta.rows_written,
      all: async <T>(query: string, ...binds: unknown[]) =>
        (
          await env.DB.prepare(query)
            .bind(...binds)
            .all<T>()
        ).results,
    };
  }
  return {
    written: (query: string, ...binds: unknown[]) =>
      inShard(move.shard, (sql) => sql.exec(query, ...(binds as SqlStorageValue[])).rowsWritten),
    all: <T>(query: string, ...binds: unknown[]) =>
      inShard(move.shard, (sql) => sql.exec(query, ...(binds as SqlStorageValue[])).toArray() as T[]),
  };
}

describe("seek checkpoints as spans", () => {
  it("a file listed at the top of a folder with a seek list writes one checkpoint, however many follow", async () => {
    const who = await admin();
    const plain = await createGroup(who, uniqueName());
    const listed = await createGroup(who, uniqueName());
    await fill(plain, who.id);
    await fill(listed, who.id);
    // A deep skip builds the name list of `listed` (12 checkpoints and the sentinel).
    const res = await call(`/api/group/members/${listed}?type=asset&skip=${SEEK_SPACING * 11}&take=5`, { bearer: who.bearer });
    expect(res.status).toBe(200);
    await res.body?.cancel();
    const [plainDb, listedDb] = [await databaseOf(plain), await databaseOf(listed)];
    const [checkpoints] = await listedDb.all<{ n: number }>(
      "select count(*) as n from member_seek where list_id in (select id from member_seek_lists where group_id = ?)",
      listed,
    );
    expect(checkpoints.n).toBeGreaterThanOrEqual(12);

    const insert = `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      VALUES (?1, ?2, 'asset', 0, 'a-первый.jpg', 0, 0)`;
    const asset = `INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
      VALUES (?1, 'a-первый.jpg', 'image/jpeg', ?2, ?2, 0, 0, 0, 0)`;
    const a = "f".repeat(31) + "1";
    const b = "f".repeat(31) + "2";
    await plainDb.written(asset, a, who.id);
    await listedDb.written(asset, b, who.id);
    const withoutList = await plainDb.written(insert, plain, a);
    const withList = await listedDb.written(insert, listed, b);
    // One span moves (the first checkpoint), where running counts moved all of them.
    expect(withList - withoutList).toBeLessThanOrEqual(2);

    // The commit's new size and mtime keep the file before the first checkpoint: no checkpoint moves at all.
    const update = "UPDATE group_members SET el_size = 5, el_mtime = 7 WHERE group_id = ? AND el_id = ?";
    expect((await listedDb.written(update, listed, b)) - (await plainDb.written(update, plain, a))).toBe(0);

    // And the skip pages stay what OFFSET answers.
    const page = await call(`/api/group/members/${listed}?type=asset&skip=${SEEK_SPACING * 11}&take=3`, { bearer: who.bearer });
    const offset = await listedDb.all<{ el_id: string }>(
      `SELECT m.el_id FROM group_members m JOIN assets x ON x.id = m.el_id WHERE m.group_id = ? AND m.el_type = 'asset'
       AND m.trashed_at IS NULL AND x.deleted_at IS NULL ORDER BY m.sort_name, m.el_id LIMIT 3 OFFSET ?`,
      listed,
      SEEK_SPACING * 11,
    );
    const body = (await page.json()) as { el_id: string }[] | { members?: { el_id: string }[] };
    const ids = (Array.isArray(body) ? body : body.members ?? []).map((m) => m.el_id);
    expect(ids).toEqual(offset.map((r) => r.el_id));
  }, 120_000);
});
