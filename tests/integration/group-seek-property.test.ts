import { env } from "cloudflare:workers";
import { readMove } from "../../workers/db/repositories/library-move.repository";
import { inShard, throughShards } from "./through-shards";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SEEK_REBUILD_SPAN, SEEK_SPACING } from "../../workers/db/repositories/member-seek.repository";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import type { GroupMember } from "../../workers/services/library/group-listing.service";
import { call } from "./factories";
import { admin, createGroup, ordinaryUser, uniqueName } from "./library-factories";
import { propertyRuns } from "./property-runs";

// `skip` from seek checkpoints (decision record 017) must answer exactly what the naive OFFSET query answers, for
// every sort, order, type and MIME filter, while inserts, deletions, trashing, renames and moves interleave with the
// reads. The oracle is the plain SQL listing, sliced in JavaScript.

const SEED_ASSETS = SEEK_SPACING * 2 + 137;
const SEED_GROUPS = SEEK_SPACING + 40;
const MIMES = ["video/mp4", "image/jpeg", "audio/mpeg", "Video/Quicktime"];
const NAMES = ["a", "B", "ё", "Ж", "clip", "Clip"];

/** Fills a fresh group with assets and sub-groups straight in SQL (the triggers see every row). */
async function seed(groupId: string, ownerId: string) {
  const t = Date.now();
  const tag = newId().slice(0, 20);
  const seq = (count: number) => `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})`;
  await throughShards(() =>
    env.DB.batch([
      env.DB.prepare(
        `${seq(SEED_ASSETS)} INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
      SELECT printf('%s%012x', ?1, i), printf('n%03d', i % 300), CASE i % 4 WHEN 0 THEN 'video/mp4' WHEN 1 THEN 'image/jpeg' WHEN 2 THEN 'audio/mpeg' ELSE 'Video/Quicktime' END,
        ?2, ?2, 0, ?3, ?3, ?3 FROM n`,
      ).bind(tag, ownerId, t),
      env.DB.prepare(
        `${seq(SEED_ASSETS)} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      SELECT ?1, printf('%s%012x', ?2, i), 'asset', ?3, printf('n%03d', i % 300), ?3 + (i % 97), (i * 7919) % 50 FROM n`,
      ).bind(groupId, tag, t),
      env.DB.prepare(
        `${seq(SEED_GROUPS)} INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime)
      SELECT printf('%s%012x', ?1, 1000000 + i), printf('папка %04d', i), ?2, ?3, ?4, ?4 FROM n`,
      ).bind(tag, groupId, ownerId, t),
      env.DB.prepare(
        `${seq(SEED_GROUPS)} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      SELECT ?1, printf('%s%012x', ?2, 1000000 + i), 'group', ?3, printf('папка %04d', i), ?3 + (i % 13), 0 FROM n`,
      ).bind(groupId, tag, t),
      env.DB.prepare(
        `INSERT INTO group_closure (ancestor, descendant, depth)
      SELECT c.ancestor, g.id, c.depth + 1 FROM groups g JOIN group_closure c ON c.descendant = g.parent_id WHERE g.parent_id = ?1
      UNION ALL SELECT id, id, 0 FROM groups WHERE parent_id = ?1`,
      ).bind(groupId),
    ]),
  );
}

type Query = {
  skip: number;
  take: number;
  sort: "name" | "mtime" | "size";
  order: "asc" | "desc";
  type?: "asset" | "group";
  mime?: string;
};

const COLUMN = { name: "sort_name", mtime: "el_mtime", size: "el_size" } as const;

/** The naive listing: every listed member in page order, sliced like OFFSET/LIMIT. */
async function oracle(groupId: string, q: Query): Promise<string[]> {
  const col = COLUMN[q.sort];
  const dir = q.order;
  const order = `order by m.${col} ${dir}, m.el_id ${dir}`;
  const listsGroups = q.type === "group" || (!q.type && !q.mime);
  const groups = !listsGroups
    ? []
    : (
        await env.DB.prepare(
          `select m.el_id from group_members m join groups g on g.id = m.el_id
            where m.group_id = ? and m.el_type = 'group' and m.trashed_at is null and g.deleted_at is null ${order}`,
        )
          .bind(groupId)
          .all<{ el_id: string }>()
      ).results;
  const assets =
    q.type === "group"
      ? []
      : (
          await env.DB.prepare(
            `select m.el_id from group_members m join assets a on a.id = m.el_id
            where m.group_id = ?1 and m.el_type = 'asset' and m.trashed_at is null and a.deleted_at is null
              and (?2 = '' or lower(substr(a.mime, 1, length(?2))) = ?2) ${order}`,
          )
            .bind(groupId, q.mime?.toLowerCase() ?? "")
            .all<{ el_id: string }>()
        ).results;
  return [...groups, ...assets].map((r) => r.el_id).slice(q.skip, q.skip + q.take);
}

/**
 * One row of a query on the database the folder's pages are read from — its library's shard once it lives in one (the
 * sharded tier), where the seek lists are built — else the catalog.
 */
async function whereRead<T>(groupId: string, query: string): Promise<T | null> {
  const library = (await env.DB.prepare(
    "select ancestor from group_closure where descendant = ?1 and ancestor <> ?2 order by depth desc limit 1",
  )
    .bind(groupId, ROOT_GROUP_ID)
    .first<{ ancestor: string }>())!;
  const move = await readMove(env.DB, library.ancestor);
  if (!move) return env.DB.prepare(query).bind(groupId).first<T>();
  return inShard(move.shard, (sql) => (sql.exec(query, groupId).toArray()[0] as T | undefined) ?? null);
}

/** How many seek lists the folder has where its pages are read. */
async function seekLists(groupId: string): Promise<number> {
  return (await whereRead<{ n: number }>(groupId, "select count(*) as n from member_seek_lists where group_id = ?"))!.n;
}

async function page(groupId: string, bearer: string, q: Query): Promise<string[]> {
  const params = new URLSearchParams({ skip: String(q.skip), take: String(q.take), sort: q.sort, order: q.order });
  if (q.type) params.set("type", q.type);
  if (q.mime) params.set("mime", q.mime);
  const res = await call(`/api/group/members/${groupId}?${params}`, { bearer });
  const body = (await res.json()) as GroupMember[];
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.map((m) => m.el_id);
}

type Op =
  | { kind: "read"; q: Query }
  | { kind: "insert"; count: number; name: number; size: number; mime: number }
  | { kind: "delete"; at: number; count: number }
  | { kind: "trash"; at: number; restore: boolean }
  | { kind: "rename"; at: number; name: number; size: number }
  | { kind: "trashGroup"; at: number; restore: boolean }
  | { kind: "retype"; at: number; mime: number };

const queryArb: fc.Arbitrary<Query> = fc.record(
  {
    skip: fc.oneof(fc.integer({ min: 0, max: SEED_ASSETS + SEED_GROUPS + 60 }), fc.integer({ min: SEEK_SPACING, max: SEEK_SPACING * 3 })),
    take: fc.integer({ min: 1, max: 60 }),
    sort: fc.constantFrom("name" as const, "mtime" as const, "size" as const),
    order: fc.constantFrom("asc" as const, "desc" as const),
    type: fc.constantFrom("asset" as const, "group" as const, undefined),
    mime: fc.constantFrom("video/", "IMAGE/JPEG", "audio/mpeg", undefined),
  },
  { requiredKeys: ["skip", "take", "sort", "order"] },
);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("read" as const), q: queryArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("insert" as const),
      count: fc.integer({ min: 1, max: 40 }),
      name: fc.nat(),
      size: fc.nat(60),
      mime: fc.nat(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), count: fc.integer({ min: 1, max: 30 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("trash" as const), at: fc.nat(), restore: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rename" as const), at: fc.nat(), name: fc.nat(), size: fc.nat(60) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("trashGroup" as const), at: fc.nat(), restore: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("retype" as const), at: fc.nat(), mime: fc.nat() }) },
);

/** The `at`-th (modulo) member of a type, in id order, with what the write needs. */
async function nth(groupId: string, type: "asset" | "group", at: number) {
  const { results } = await env.DB.prepare("select el_id from group_members where group_id = ? and el_type = ? order by el_id")
    .bind(groupId, type)
    .all<{
      el_id: string;
    }>();
  return results.length ? results[at % results.length].el_id : null;
}

/** A write of the property, at the storage layer: through the library's shard too when it lives in one. */
function apply(groupId: string, ownerId: string, op: Exclude<Op, { kind: "read" }>) {
  return throughShards(() => write(groupId, ownerId, op));
}

async function write(groupId: string, ownerId: string, op: Exclude<Op, { kind: "read" }>) {
  const t = Date.now();
  if (op.kind === "insert") {
    const statements = [];
    for (let i = 0; i < op.count; i++) {
      const id = newId();
      const name = `${NAMES[(op.name + i) % NAMES.length]}${(op.name + i) % 7}`;
      statements.push(
        env.DB.prepare(
          "insert into assets (id, name, mime, owner_id, creator_id, ctime, mtime, atime) values (?, ?, ?, ?, ?, ?, ?, ?)",
        ).bind(id, name, MIMES[(op.mime + i) % MIMES.length], ownerId, ownerId, t, t, t),
        env.DB.prepare(
          "insert into group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) values (?, ?, 'asset', ?, ?, ?, ?)",
        ).bind(groupId, id, t, name.toLowerCase(), t + ((op.size + i) % 97), (op.size + i) % 50),
      );
    }
    await env.DB.batch(statements);
  } else if (op.kind === "delete") {
    await env.DB.prepare(
      `delete from group_members where group_id = ?1 and el_type = 'asset' and el_id in
        (select el_id from group_members where group_id = ?1 and el_type = 'asset' order by el_id limit ?3 offset ?2)`,
    )
      .bind(groupId, op.at % SEED_ASSETS, op.count)
      .run();
  } else if (op.kind === "trash") {
    const id = await nth(groupId, "asset", op.at);
    if (!id) return;
    // The asset service's own statements: the asset and its memberships at the same instant.
    await env.DB.batch([
      env.DB.prepare(`update assets set deleted_at = ? where id = ?`).bind(op.restore ? null : t, id),
      env.DB.prepare(`update group_members set trashed_at = ? where el_id = ?`).bind(op.restore ? null : t, id),
    ]);
  } else if (op.kind === "rename") {
    const id = await nth(groupId, "asset", op.at);
    if (id) {
      await env.DB.prepare("update group_members set sort_name = ?, el_size = ?, el_mtime = ? where el_id = ?")
        .bind(`${NAMES[op.name % NAMES.length].toLowerCase()}${op.name % 5}`, op.size, t + op.size, id)
        .run();
    }
  } else if (op.kind === "trashGroup") {
    const id = await nth(groupId, "group", op.at);
    if (!id) return;
    await env.DB.batch([
      env.DB.prepare("update groups set deleted_at = ? where id = ?").bind(op.restore ? null : t, id),
      env.DB.prepare("update group_members set trashed_at = ? where el_id = ?").bind(op.restore ? null : t, id),
    ]);
  } else if (op.kind === "retype") {
    const id = await nth(groupId, "asset", op.at);
    if (id)
      await env.DB.prepare("update assets set mime = ? where id = ?")
        .bind(MIMES[op.mime % MIMES.length], id)
        .run();
  }
}

describe("skip paging from seek checkpoints", () => {
  it("answers exactly what OFFSET answers under interleaved inserts, deletions, trashing, renames and MIME changes", async () => {
    const who = await admin();
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 6, maxLength: 24 }), async (ops) => {
        const g = await createGroup(who, uniqueName());
        await seed(g, who.id);
        for (const op of ops) {
          if (op.kind === "read") expect(await page(g, who.bearer, op.q), JSON.stringify(op.q)).toEqual(await oracle(g, op.q));
          else await apply(g, who.id, op);
        }
        // Every list the reads built still answers exactly, at a checkpoint and just around it.
        for (const skip of [SEEK_SPACING - 1, SEEK_SPACING, SEEK_SPACING + 1, SEEK_SPACING * 2 + 3]) {
          const q: Query = { skip, take: 50, sort: "size", order: "desc", type: "asset" };
          expect(await page(g, who.bearer, q)).toEqual(await oracle(g, q));
        }
        // Those pages came from checkpoints (the property is about the seek path, not the OFFSET fallback).
        expect(await seekLists(g)).toBeGreaterThan(0);
      }),
      { numRuns: propertyRuns(10) },
    );
  }, 300_000);

  it("rebuilds a list whose span grew past the limit, and stays exact", async () => {
    const who = await admin();
    const g = await createGroup(who, uniqueName());
    await seed(g, who.id);
    const q: Query = { skip: SEEK_SPACING + 10, take: 50, sort: "name", order: "asc", type: "asset" };
    expect(await page(g, who.bearer, q)).toEqual(await oracle(g, q));
    const built = await whereRead<{ built_at: number }>(g, "select built_at from member_seek_lists where group_id = ?");
    expect(built).not.toBeNull();
    // More inserts than the span limit, all sorting before the first checkpoint.
    const count = SEEK_REBUILD_SPAN + 50;
    const t = Date.now();
    await throughShards(() =>
      env.DB.batch([
        env.DB.prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
        INSERT INTO assets (id, name, mime, owner_id, creator_id, ctime, mtime, atime)
        SELECT printf('e%031x', i + ?2), 'aaa', 'video/mp4', ?1, ?1, 0, 0, 0 FROM n`,
        ).bind(who.id, t),
        env.DB.prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
        INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
        SELECT ?1, printf('e%031x', i + ?2), 'asset', 0, 'aaa', 0, 0 FROM n`,
        ).bind(g, t),
      ]),
    );
    for (const skip of [SEEK_SPACING + 10, count - 5, count + SEEK_SPACING * 2]) {
      const deep = { ...q, skip };
      expect(await page(g, who.bearer, deep)).toEqual(await oracle(g, deep));
    }
    const rebuilt = await whereRead<{ built_at: number }>(g, "select built_at from member_seek_lists where group_id = ?");
    expect(rebuilt!.built_at).toBeGreaterThanOrEqual(built!.built_at);
    const spans = await whereRead<{ checkpoints: number }>(
      g,
      "select count(*) as checkpoints from member_seek where list_id = (select id from member_seek_lists where group_id = ?)",
    );
    expect(spans!.checkpoints).toBeGreaterThan(count / SEEK_SPACING);
  }, 120_000);

  it("pages a non-administrator by the filtered OFFSET query (access decides what counts)", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    await seed(g, user.id);
    const q: Query = { skip: SEEK_SPACING + 3, take: 20, sort: "mtime", order: "asc", type: "asset" };
    expect(await page(g, user.bearer, q)).toEqual(await oracle(g, q));
    expect(await seekLists(g)).toBe(0);
  });

  it("pages a reader the group passes read down to from the same checkpoints, and by the filtered query once a member opts out", async () => {
    const who = await admin();
    const reader = await ordinaryUser();
    const g = await createGroup(who, uniqueName());
    await seed(g, who.id);
    const rule = await call("/api/user/acl", { method: "POST", bearer: who.bearer, json: { subj: reader.id, obj: g, acl: ["read"] } });
    expect(rule.status).toBe(201);
    const q: Query = { skip: SEEK_SPACING + 3, take: 40, sort: "mtime", order: "desc", type: "asset" };
    expect(await page(g, reader.bearer, q)).toEqual(await oracle(g, q));
    expect(await seekLists(g)).toBe(1);

    // An asset before the page switches inheritance off: the reader no longer sees it, so the page shifts by one.
    const everything = await oracle(g, { ...q, skip: 0, take: 10 ** 6 });
    const hidden = everything[10];
    const off = await call(`/api/auth/access-inheritance/${hidden}`, { method: "POST", bearer: who.bearer, json: { inherit: false } });
    expect(off.status).toBe(200);
    const visible = everything.filter((id) => id !== hidden);
    expect(await page(g, reader.bearer, q)).toEqual(visible.slice(q.skip, q.skip + q.take));
    // The administrator still pages every member from the checkpoints.
    expect(await page(g, who.bearer, q)).toEqual(everything.slice(q.skip, q.skip + q.take));
  });

  it("answers an empty page past the end and 400 for bad skip, take and sort", async () => {
    const who = await admin();
    const g = await createGroup(who, uniqueName());
    await seed(g, who.id);
    for (const skip of [SEED_ASSETS + SEED_GROUPS, SEED_ASSETS + SEED_GROUPS + 1, 10 ** 9]) {
      expect(await page(g, who.bearer, { skip, take: 50, sort: "name", order: "asc" })).toEqual([]);
    }
    for (const query of ["skip=-1", "skip=1.5", "skip=abc", "take=501", "take=0", "sort=owner", "order=up"]) {
      const res = await call(`/api/group/members/${g}?${query}`, { bearer: who.bearer });
      const body = (await res.json()) as { statusCode: number; error: string };
      expect(res.status, query).toBe(400);
      expect(body.statusCode).toBe(400);
    }
  });
});
