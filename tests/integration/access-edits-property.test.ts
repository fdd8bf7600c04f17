import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LibraryShardDO } from "../../durable-objects/library-shard.do";
import type { Database } from "../../workers/db/client";
import { SqlStorageClient } from "../../workers/db/sql-storage-client";
import { filterVisible } from "../../workers/db/repositories/access.repository";
import { AppError } from "../../workers/lib/errors";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { DENY_BIT, levelBit, maskOf, type AccessLevel } from "../../workers/services/access/access-policy";
import { createRule, deleteRule, setInheritance, updateRule } from "../../workers/services/access/access-rules.service";
import { entityMask, visibility } from "../../workers/services/access/access.service";
import { createRequestContext, type Actor, type RequestContext } from "../../workers/services/access/context";
import { admin } from "./library-factories";

/**
 * Access checks under random rule edits: a random tree of folders and files (some owned by the user), then a random
 * sequence of edits made through the services an administrator's requests use — create a rule (of the user, of a
 * group of users they belong to, of one they do not), change its levels, delete it, switch inheritance on a folder
 * or file. After every edit, the single check (`entityMask`) and the list filter (`filterVisible` with the caller's
 * `visibility`) must both say what a small model says, read in the same request context that made the edits (its
 * per-request knowledge of callers must follow them) and in a fresh one.
 */

const LEVEL_SETS: AccessLevel[][] = [["read"], ["update"], ["read", "download"], ["deny"], ["superuser"]];

interface Shape {
  parents: number[];
  assets: number[][];
  ownedGroups: boolean[];
  ownedAssets: boolean[];
}

type Edit =
  | { op: "create"; subject: number; kind: "group" | "asset"; target: number; levels: number }
  | { op: "update"; pick: number; levels: number }
  | { op: "delete"; pick: number }
  | { op: "inherit"; kind: "group" | "asset"; target: number; inherit: boolean };

const shapeArb: fc.Arbitrary<Shape> = fc.integer({ min: 1, max: 6 }).chain((n) =>
  fc.integer({ min: 1, max: 4 }).chain((a) =>
    fc.record({
      parents: fc.tuple(...Array.from({ length: n }, (_, i) => fc.integer({ min: -1, max: i - 1 }))),
      assets: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: 3 }), { minLength: a, maxLength: a }),
      // About one in four owned by the user (owners read regardless of rules).
      ownedGroups: fc.array(
        fc.nat(3).map((x) => x === 0),
        { minLength: n, maxLength: n },
      ),
      ownedAssets: fc.array(
        fc.nat(3).map((x) => x === 0),
        { minLength: a, maxLength: a },
      ),
    }),
  ),
);

const editArb = (groups: number, assets: number): fc.Arbitrary<Edit> => {
  const target = (kind: "group" | "asset") => fc.integer({ min: 0, max: (kind === "group" ? groups : assets) - 1 });
  const kindArb = fc.constantFrom("group" as const, "asset" as const);
  return fc.oneof(
    {
      weight: 4,
      arbitrary: kindArb.chain((kind) =>
        fc.record({
          op: fc.constant("create" as const),
          subject: fc.integer({ min: 0, max: 2 }),
          kind: fc.constant(kind),
          target: target(kind),
          levels: fc.integer({ min: 0, max: LEVEL_SETS.length - 1 }),
        }),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant("update" as const),
        pick: fc.nat(),
        levels: fc.integer({ min: 0, max: LEVEL_SETS.length - 1 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), pick: fc.nat() }) },
    {
      weight: 2,
      arbitrary: kindArb.chain((kind) =>
        fc.record({ op: fc.constant("inherit" as const), kind: fc.constant(kind), target: target(kind), inherit: fc.boolean() }),
      ),
    },
  );
};

/** The model's state: the shape plus the rules and inheritance switches the edits made. */
interface Model extends Shape {
  /** key `subject:kind:target` → the rule's id and bitmask */
  rules: Map<string, { id: string; mask: number }>;
  groupInherit: boolean[];
  assetInherit: boolean[];
}

function ruleMask(m: Model, kind: "group" | "asset", target: number): number {
  let mask = 0;
  for (const [key, r] of m.rules) {
    const [subject, k, t] = key.split(":");
    if (subject !== "2" && k === kind && Number(t) === target) mask |= r.mask;
  }
  return mask;
}
function groupMask(m: Model, g: number): number {
  const own = ruleMask(m, "group", g);
  return !m.groupInherit[g] || m.parents[g] < 0 ? own : own | groupMask(m, m.parents[g]);
}
function expectedRead(m: Model, kind: "group" | "asset", i: number): boolean {
  if (kind === "group" ? m.ownedGroups[i] : m.ownedAssets[i]) return true;
  let mask = kind === "group" ? groupMask(m, i) : ruleMask(m, "asset", i);
  if (kind === "asset" && m.assetInherit[i]) for (const g of m.assets[i]) mask |= groupMask(m, g);
  if (mask & DENY_BIT) return false;
  return (mask & (levelBit("read") | levelBit("superuser"))) !== 0;
}

async function insertShape(
  catalog: Pick<D1Database, "prepare" | "batch">,
  shape: Shape,
  ids: { user: string; other: string; team: string; stranger: string; boss: string },
) {
  const now = Date.now();
  const groups = shape.parents.map(() => newId());
  const assets = shape.assets.map(() => newId());
  const statements = [
    catalog.prepare("INSERT INTO users (id, login, name, ctime, mtime) VALUES (?, ?, 'u', ?, ?)").bind(ids.user, `e-${ids.user}`, now, now),
    catalog
      .prepare("INSERT INTO users (id, login, name, ctime, mtime) VALUES (?, ?, 'o', ?, ?)")
      .bind(ids.other, `e-${ids.other}`, now, now),
  ];
  // The groups of users: `team` holds the user, `stranger` does not.
  for (const g of [ids.team, ids.stranger]) {
    statements.push(
      catalog
        .prepare("INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES (?, ?, ?, ?, ?, ?)")
        .bind(g, `ug-${g}`, ROOT_GROUP_ID, ids.boss, now, now),
      catalog.prepare("INSERT INTO group_closure (ancestor, descendant, depth) VALUES (?, ?, 0), (?, ?, 1)").bind(g, g, ROOT_GROUP_ID, g),
      // Its membership in the root too, as the API makes it: a group without one breaks the tree invariant that other
      // files sharing this database check (expectTreeConsistent).
      catalog
        .prepare("INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) VALUES (?, ?, 'group', ?, ?)")
        .bind(ROOT_GROUP_ID, g, now, `ug-${g}`),
    );
  }
  statements.push(
    catalog.prepare("INSERT INTO user_group_members (group_id, user_id, ctime) VALUES (?, ?, ?)").bind(ids.team, ids.user, now),
  );
  const chainOf = (g: number): number[] => (g < 0 ? [] : [g, ...chainOf(shape.parents[g])]);
  shape.parents.forEach((p, i) => {
    const parent = p < 0 ? ROOT_GROUP_ID : groups[p];
    statements.push(
      catalog
        .prepare("INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES (?, ?, ?, ?, ?, ?)")
        .bind(groups[i], `g${i}`, parent, shape.ownedGroups[i] ? ids.user : ids.other, now, now),
      catalog
        .prepare("INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) VALUES (?, ?, 'group', ?, ?)")
        .bind(parent, groups[i], now, `g${i}`),
    );
    const chain = chainOf(i);
    chain.forEach((a, depth) =>
      statements.push(
        catalog.prepare("INSERT INTO group_closure (ancestor, descendant, depth) VALUES (?, ?, ?)").bind(groups[a], groups[i], depth),
      ),
    );
    statements.push(
      catalog
        .prepare("INSERT INTO group_closure (ancestor, descendant, depth) VALUES (?, ?, ?)")
        .bind(ROOT_GROUP_ID, groups[i], chain.length),
    );
  });
  shape.assets.forEach((memberOf, i) => {
    const owner = shape.ownedAssets[i] ? ids.user : ids.other;
    statements.push(
      catalog
        .prepare("INSERT INTO assets (id, name, mime, owner_id, creator_id, ctime, mtime, atime) VALUES (?, ?, 'video/mp4', ?, ?, ?, ?, ?)")
        .bind(assets[i], `a${i}`, owner, owner, now, now, now),
    );
    for (const g of memberOf) {
      statements.push(
        catalog
          .prepare("INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) VALUES (?, ?, 'asset', ?, ?)")
          .bind(groups[g], assets[i], now, `a${i}`),
      );
    }
  });
  await catalog.batch(statements);
  return { groups, assets };
}

/** Both readings of the user's read access, in `rc`, against the model. */
async function expectAgreement(
  rc: RequestContext,
  actor: Actor,
  m: Model,
  ids: { groups: string[]; assets: string[] },
  other: string,
  after: unknown,
) {
  const vis = await visibility(rc, actor);
  for (const kind of ["group", "asset"] as const) {
    const list = kind === "group" ? ids.groups : ids.assets;
    const visible = await filterVisible(rc.db, vis, kind, list);
    for (let i = 0; i < list.length; i++) {
      const owned = kind === "group" ? m.ownedGroups[i] : m.ownedAssets[i];
      const expected = expectedRead(m, kind, i);
      const mask = await entityMask(rc, actor, { id: list[i], type: kind, ownerId: owned ? actor.id : other });
      expect({ after, kind, i, check: (mask & levelBit("read")) !== 0, list: visible.has(list[i]) }).toEqual({
        after,
        kind,
        i,
        check: expected,
        list: expected,
      });
    }
  }
}

/**
 * Random rule edits through the services, in a catalog: D1 (`DB`), or a library shard's own SQLite (decision 043)
 * with the services' database handle pointed at it. Returns how many edits ran.
 */
async function followsEdits(catalog: Pick<D1Database, "prepare" | "batch">, db: Database, bossId: string): Promise<number> {
  const adminActor: Actor = { id: bossId, name: "admin", login: "admin", isAdmin: true, isRobot: false, sessionFamily: null };
  const contextOf = (requestId: string): RequestContext => ({ ...createRequestContext(env, () => undefined, requestId), db });
  let edits = 0;
  await fc.assert(
    fc.asyncProperty(
      shapeArb.chain((shape) =>
        fc.tuple(fc.constant(shape), fc.array(editArb(shape.parents.length, shape.assets.length), { minLength: 1, maxLength: 10 })),
      ),
      async ([shape, plan]) => {
        const who = { user: newId(), other: newId(), team: newId(), stranger: newId(), boss: bossId };
        const ids = await insertShape(catalog, shape, who);
        const m: Model = {
          ...shape,
          rules: new Map(),
          groupInherit: shape.parents.map(() => true),
          assetInherit: shape.assets.map(() => true),
        };
        const actor: Actor = { id: who.user, name: "u", login: `e-${who.user}`, isAdmin: false, isRobot: false, sessionFamily: null };
        // One request context for the edits and the checks that follow them (as a request that changes rules and
        // then lists would), and a fresh one per check.
        const rc = contextOf("access-edits");
        await expectAgreement(rc, actor, m, ids, who.other, "start");
        const subjects = [who.user, who.team, who.stranger];
        for (const edit of plan) {
          if (edit.op === "create") {
            const key = `${edit.subject}:${edit.kind}:${edit.target}`;
            const obj = edit.kind === "group" ? ids.groups[edit.target] : ids.assets[edit.target];
            const input = {
              subj: subjects[edit.subject],
              subj_type: edit.subject === 0 ? ("user" as const) : ("group" as const),
              obj,
              obj_type: edit.kind,
              acl: LEVEL_SETS[edit.levels],
            };
            if (m.rules.has(key)) {
              await expect(createRule(rc, adminActor, input)).rejects.toSatisfy((e) => e instanceof AppError && e.code === "CONFLICT");
            } else {
              const rule = await createRule(rc, adminActor, input);
              m.rules.set(key, { id: rule.rule_id, mask: maskOf(LEVEL_SETS[edit.levels]) });
            }
          } else if (edit.op === "update" || edit.op === "delete") {
            const keys = [...m.rules.keys()];
            if (keys.length === 0) continue;
            const key = keys[edit.pick % keys.length];
            const rule = m.rules.get(key)!;
            if (edit.op === "update") {
              await updateRule(rc, adminActor, rule.id, LEVEL_SETS[edit.levels]);
              rule.mask = maskOf(LEVEL_SETS[edit.levels]);
            } else {
              await deleteRule(rc, adminActor, rule.id);
              m.rules.delete(key);
            }
          } else {
            const obj = edit.kind === "group" ? ids.groups[edit.target] : ids.assets[edit.target];
            await setInheritance(rc, adminActor, obj, edit.inherit);
            (edit.kind === "group" ? m.groupInherit : m.assetInherit)[edit.target] = edit.inherit;
          }
          edits += 1;
          await expectAgreement(rc, actor, m, ids, who.other, edit);
          await expectAgreement(contextOf("access-edits-fresh"), actor, m, ids, who.other, edit);
        }
      },
    ),
    { numRuns: 40 },
  );
  return edits;
}

describe("access checks under random rule edits", () => {
  it("the check and the list filter follow every edit exactly as the model does", async () => {
    const boss = await admin();
    expect(await followsEdits(env.DB, createRequestContext(env, () => undefined, "setup").db, boss.id)).toBeGreaterThan(100);
  }, 120_000);

  it("follow them the same way in a library shard's SQLite, through the same services", async () => {
    const shard = env.LIBRARY_SHARDS.get(env.LIBRARY_SHARDS.idFromName("access-edits-property"));
    const edits = await runInDurableObject(shard, async (instance: LibraryShardDO, state) => {
      const client = new SqlStorageClient(state.storage);
      const bossId = newId();
      await client
        .prepare("INSERT INTO users (id, login, name, is_admin, ctime, mtime) VALUES (?, 'admin', 'admin', 1, 0, 0)")
        .bind(bossId)
        .run();
      const count = await followsEdits(client, instance.db, bossId);
      // The services wrote their rules and audit rows here, in the shard.
      const written = await client
        .prepare("SELECT (SELECT count(*) FROM access_rules) AS rules, (SELECT count(*) FROM audit_log) AS audit")
        .first<{ rules: number; audit: number }>();
      return { count, written };
    });
    expect(edits.count).toBeGreaterThan(100);
    expect(edits.written!.rules).toBeGreaterThan(0);
    expect(edits.written!.audit).toBeGreaterThan(0);
  }, 120_000);
});
