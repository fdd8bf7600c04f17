import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { roundTripsOf } from "../../workers/db/round-trips";
import { ROUND_TRIP_BUDGETS } from "../../workers/lib/round-trip-budget";
import { buildTree, type GroupTreeNode } from "../../workers/services/library/group-tree";
import { TREE_ASSETS_PER_FOLDER, TREE_ASSETS_TOTAL } from "../../workers/services/library/subtree.service";
import { bytesOf, createAsset, uploadVersion } from "./asset-fixtures";
import { call } from "./factories";
import { admin, createGroup, send, throughShards, uniqueName } from "./library-factories";

// The tree form with files is answered from the per-isolate cache keyed by the root's tree and files versions
// (decision record 032). Every answer must be byte-for-byte what the uncached reading of today gives (the oracle
// below is that reading, done straight on the database), after a cache hit and after each kind of change in between,
// and answers read while the tree changes must each be one state of it, never a mix.

type Admin = Awaited<ReturnType<typeof admin>>;

/** Today's reading: closure, tree, then files folder by folder (200 per query) breadth first until the caps. */
async function oracle(id: string): Promise<string> {
  const groups = await env.DB.prepare(
    "select g.id, g.name, g.parent_id from group_closure c join groups g on g.id = c.descendant where c.ancestor = ? and g.deleted_at is null",
  )
    .bind(id)
    .all<{ id: string; name: string; parent_id: string | null }>();
  const root = buildTree(
    groups.results.map((r) => ({ id: r.id, name: r.name, parentId: r.parent_id })),
    id,
  )!;
  const order: GroupTreeNode[] = [];
  for (let i = 0, queue = [root]; i < queue.length; i++) {
    order.push(queue[i]);
    queue.push(...queue[i].subGroups);
  }
  for (const node of order) {
    node.assets = [];
    node.assets_more = true;
  }
  let listed = 0;
  for (let start = 0; start < order.length && listed < TREE_ASSETS_TOTAL; start += 200) {
    const chunk = order.slice(start, start + 200);
    const rows = await env.DB.prepare(
      `select j.value as group_id, a.id as asset_id, a.name, a.mime, a.latest_version as ver
       from json_each(?1) j
       join group_members m on m.group_id = j.value and m.el_type = 'asset' and m.trashed_at is null and m.el_id in (
         select m2.el_id from group_members m2 cross join assets a2 on a2.id = m2.el_id
         where m2.group_id = j.value and m2.el_type = 'asset' and m2.trashed_at is null and a2.deleted_at is null
         order by m2.sort_name, m2.el_id limit ?2)
       cross join assets a on a.id = m.el_id
       order by j.key, m.sort_name, m.el_id`,
    )
      .bind(JSON.stringify(chunk.map((n) => n.element_id)), TREE_ASSETS_PER_FOLDER + 1)
      .all<{ group_id: string; asset_id: string; name: string; mime: string; ver: number | null }>();
    for (const node of chunk) {
      const found = rows.results.filter((r) => r.group_id === node.element_id);
      const room = Math.min(TREE_ASSETS_PER_FOLDER, TREE_ASSETS_TOTAL - listed);
      if (room <= 0) break;
      node.assets = found.slice(0, room).map((r) => ({ asset_id: r.asset_id, name: r.name, mimetype: r.mime, ver: r.ver ?? 0 }));
      node.assets_more = found.length > room;
      listed += node.assets.length;
    }
  }
  root.assets_cap = { per_folder: TREE_ASSETS_PER_FOLDER, total: TREE_ASSETS_TOTAL };
  return JSON.stringify(root);
}

async function subtree(who: Admin, id: string): Promise<{ text: string; trips: number | null; timing: string | null }> {
  const res = await call(`/api/group/subtree/${id}`, { bearer: who.bearer });
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(200);
  const timing = res.headers.get("server-timing");
  return { text, trips: roundTripsOf(timing), timing };
}

/** `count` files named `${prefix}-NNN` in `group`, straight into the tables (the triggers keep every total). */
async function insertFiles(group: string, ownerId: string, prefix: string, count: number): Promise<void> {
  const t = Date.now();
  const ids = Array.from({ length: count }, (_, i) =>
    `${t.toString(16)}${prefix}${String(i).padStart(4, "0")}`.padEnd(32, "0").slice(0, 32),
  );
  await throughShards(() =>
    env.DB.batch([
      env.DB.prepare(
        `insert into assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
       select j.value, ?2 || '-' || printf('%03d', j.key) || '.jpg', 'image/jpeg', ?1, ?1, 1, 0, 0, 0 from json_each(?3) j`,
      ).bind(ownerId, prefix, JSON.stringify(ids)),
      env.DB.prepare(
        `insert into group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
       select ?1, j.value, 'asset', 0, lower(?2 || '-' || printf('%03d', j.key) || '.jpg'), 0, 0 from json_each(?3) j`,
      ).bind(group, prefix, JSON.stringify(ids)),
    ]),
  );
}

let who: Admin;
let top: string;
let small: string;
let deep: string;

beforeAll(async () => {
  who = await admin();
  top = await createGroup(who, uniqueName("Дерево"));
  // More files than a folder lists (60 > 50), an empty folder, 28 folders of 50 files beside them, a folder of 3
  // below the empty one, and 12 folders of 50 three levels further down: 2,063 files, past the tree's cap of 2,000
  // (reached in the deepest row), so both caps and `assets_more` show in the answer.
  const big = await createGroup(who, "Большая", top);
  await insertFiles(big, who.id, "b", 60);
  const empty = await createGroup(who, "Пустая", top);
  for (let i = 0; i < 28; i++) {
    const g = await createGroup(who, `Ряд ${String(i).padStart(2, "0")}`, top);
    await insertFiles(g, who.id, `r${String(i).padStart(2, "0")}`, 50);
  }
  small = await createGroup(who, "Малая", empty);
  await insertFiles(small, who.id, "s", 3);
  deep = await createGroup(who, "Глубокая", small);
  for (let i = 0; i < 12; i++) {
    const g = await createGroup(who, `Нижний ${String(i).padStart(2, "0")}`, deep);
    await insertFiles(g, who.id, `n${String(i).padStart(2, "0")}`, 50);
  }
}, 120_000);

describe("GET /api/group/subtree with files: cached and exact", () => {
  it("answers today's tree byte for byte, the same again from the cache, with the caps stated", async () => {
    const expected = await oracle(top);
    const first = await subtree(who, top);
    expect(first.text).toBe(expected);
    const again = await subtree(who, top);
    expect(again.text).toBe(expected);
    const tree = JSON.parse(expected) as GroupTreeNode;
    expect(tree.assets_cap).toEqual({ per_folder: TREE_ASSETS_PER_FOLDER, total: TREE_ASSETS_TOTAL });
    const listed = (n: GroupTreeNode): number => (n.assets?.length ?? 0) + n.subGroups.reduce((s, c) => s + listed(c), 0);
    expect(listed(tree)).toBe(TREE_ASSETS_TOTAL);
    expect(tree.subGroups.find((g) => g.group_name === "Большая")!.assets_more).toBe(true);
  });

  it("a remembered tree goes out gzipped, compressed once, to a client that accepts gzip, and plain to one that does not", async () => {
    const expected = await oracle(top);
    const ask = (encoding: string) =>
      call(`/api/group/subtree/${top}`, { bearer: who.bearer, headers: { "accept-encoding": encoding } });
    await ask("identity");
    const zipped = await ask("gzip, deflate, br");
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("vary")).toContain("accept-encoding");
    // fetch decodes the body as a browser does: what arrives must be the tree itself.
    expect(await zipped.text()).toBe(expected);
    const plain = await ask("br;q=1, gzip;q=0");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(expected);
  });

  it("a cache hit costs the administrator no round trip past the access check (the versions are read beside it)", async () => {
    await subtree(who, top);
    const hit = await subtree(who, top);
    expect(hit.trips, hit.timing ?? "no Server-Timing").not.toBeNull();
    expect(hit.trips!, hit.timing!).toBeLessThanOrEqual(ROUND_TRIP_BUDGETS.subtreeCached.budget);
  });

  it("follows every kind of change to the files and folders it shows", async () => {
    const changes: [string, () => Promise<unknown>][] = [
      [
        "upload into a folder",
        async () => {
          const asset = await createAsset(who.bearer, { in_group: small, asset_name: "a-новый.mp4" });
          await uploadVersion(who.bearer, asset, bytesOf(1000, 3), { file_name: "a-новый.mp4", mime_type: "video/mp4" });
        },
      ],
      [
        "a new version of a listed file",
        async () => {
          const [{ id }] = (
            await env.DB.prepare(
              "select el_id as id from group_members where group_id = ? and el_type = 'asset' and trashed_at is null and el_id in (select id from assets where deleted_at is null) order by sort_name limit 1",
            )
              .bind(small)
              .all<{ id: string }>()
          ).results;
          await uploadVersion(who.bearer, id, bytesOf(2000, 4), { file_name: "v2.mp4", mime_type: "video/mp4" });
        },
      ],
      [
        "rename a file (name and sort key)",
        async () => {
          const [{ id }] = (
            await env.DB.prepare(
              "select el_id as id from group_members where group_id = ? and el_type = 'asset' and trashed_at is null and el_id in (select id from assets where deleted_at is null) order by sort_name desc limit 1",
            )
              .bind(small)
              .all<{ id: string }>()
          ).results;
          await throughShards(() =>
            env.DB.batch([
              env.DB.prepare("update assets set name = 'Аа-первый.jpg' where id = ?").bind(id),
              env.DB.prepare("update group_members set sort_name = 'аа-первый.jpg' where el_id = ?").bind(id),
            ]),
          );
        },
      ],
      [
        "change a file's MIME type",
        () =>
          throughShards(() =>
            env.DB.prepare(
              "update assets set mime = 'image/png' where id = (select el_id from group_members where group_id = ? and el_type = 'asset' and trashed_at is null and el_id in (select id from assets where deleted_at is null) order by sort_name limit 1)",
            )
              .bind(small)
              .run(),
          ),
      ],
      [
        "trash a file",
        () =>
          throughShards(() =>
            env.DB.prepare(
              "update assets set deleted_at = 1 where id = (select el_id from group_members where group_id = ? and el_type = 'asset' and trashed_at is null and el_id in (select id from assets where deleted_at is null) order by sort_name limit 1)",
            )
              .bind(small)
              .run(),
          ),
      ],
      [
        "take a listing to the trash",
        () =>
          throughShards(() =>
            env.DB.prepare(
              "update group_members set trashed_at = 1 where el_type = 'asset' and el_id = (select el_id from group_members where group_id = ? and el_type = 'asset' and trashed_at is null and el_id in (select id from assets where deleted_at is null) order by sort_name limit 1)",
            )
              .bind(small)
              .run(),
          ),
      ],
      [
        "move a listing to another folder",
        () =>
          throughShards(() =>
            env.DB.prepare(
              "update group_members set group_id = ? where group_id = ? and el_type = 'asset' and el_id = (select el_id from group_members where group_id = ? and el_type = 'asset' and trashed_at is null and el_id in (select id from assets where deleted_at is null) order by sort_name limit 1)",
            )
              .bind(deep, small, small)
              .run(),
          ),
      ],
      ["files into a folder that had none", () => insertFiles(deep, who.id, "d", 2)],
      ["rename a folder", () => send("PATCH", `/api/group/update/${small}`, who.bearer, { group_name: "Малая переименованная" })],
      ["trash a folder", () => send("DELETE", `/api/group/delete/${deep}`, who.bearer)],
    ];
    let before = (await subtree(who, top)).text;
    for (const [what, change] of changes) {
      await change();
      const expected = await oracle(top);
      expect(expected, `${what}: the change shows in the tree`).not.toBe(before);
      expect((await subtree(who, top)).text, `${what}: first answer`).toBe(expected);
      expect((await subtree(who, top)).text, `${what}: cached answer`).toBe(expected);
      before = expected;
    }
  }, 120_000);

  it("answers one state of the tree while it changes, never a mix", async () => {
    const states = new Set([await oracle(top)]);
    const answers: string[] = [];
    let writing = true;
    const readers = Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 40 && (writing || i < 2); i++) answers.push((await subtree(who, top)).text);
    });
    for (let i = 0; i < 6; i++) {
      await insertFiles(small, who.id, `c${i}`, 1);
      states.add(await oracle(top));
    }
    writing = false;
    await Promise.all(readers);
    expect(answers.length).toBeGreaterThan(0);
    for (const a of answers) expect(states.has(a)).toBe(true);
  }, 120_000);
});
