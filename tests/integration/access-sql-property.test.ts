import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LibraryShardDO } from "../../durable-objects/library-shard.do";
import type { Database } from "../../workers/db/client";
import { SqlStorageClient } from "../../workers/db/sql-storage-client";
import { filterVisible } from "../../workers/db/repositories/access.repository";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { ALL_GRANTS, DENY_BIT, levelBit, maskOf } from "../../workers/services/access/access-policy";
import { entityMask, visibility } from "../../workers/services/access/access.service";
import { createRequestContext, type Actor } from "../../workers/services/access/context";
import { admin } from "./library-factories";

/**
 * The SQL side of access control against a naive model, in D1: random trees (parent links), assets listed in
 * several groups, rules of the user and of a group of users (some deny, some superuser), inheritance switches and
 * a chroot. For every entity the one-query check (`entityMask`) and the list filter (`visibleSql` through
 * `filterVisible`) must both say exactly what the model says.
 */

/** The D1 API the statements below are written against. */
type CatalogClient = Pick<D1Database, "prepare" | "batch">;

interface Model {
  parents: number[];
  assets: number[][];
  groupInherit: boolean[];
  assetInherit: boolean[];
  /** subject 0 = the user, 1 = a group of users they belong to, 2 = a group of users they do not belong to */
  rules: { subject: number; kind: "group" | "asset"; target: number; mask: number }[];
  ownedGroups: boolean[];
  ownedAssets: boolean[];
  chroot: number | null;
}

const MASKS = [maskOf(["read"]), maskOf(["update"]), maskOf(["read", "download"]), DENY_BIT, levelBit("superuser")];

const modelArb: fc.Arbitrary<Model> = fc.integer({ min: 1, max: 8 }).chain((n) =>
  fc.record({
    parents: fc.tuple(...Array.from({ length: n }, (_, i) => fc.integer({ min: -1, max: i - 1 }))),
    assets: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: 3 }), { minLength: 1, maxLength: 4 }),
    groupInherit: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    assetInherit: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    rules: fc.array(
      fc.record({
        subject: fc.integer({ min: 0, max: 2 }),
        kind: fc.constantFrom("group" as const, "asset" as const),
        target: fc.integer({ min: 0, max: n - 1 }),
        mask: fc.constantFrom(...MASKS),
      }),
      { maxLength: 8 },
    ),
    ownedGroups: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    ownedAssets: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    chroot: fc.option(fc.integer({ min: 0, max: n - 1 }), { freq: 3 }),
  }),
);

function ruleMask(m: Model, kind: "group" | "asset", target: number): number {
  return m.rules.filter((r) => r.kind === kind && r.target === target && r.subject !== 2).reduce((a, r) => a | r.mask, 0);
}
function groupMask(m: Model, g: number): number {
  const own = ruleMask(m, "group", g);
  return !m.groupInherit[g] || m.parents[g] < 0 ? own : own | groupMask(m, m.parents[g]);
}
function ancestorsOf(m: Model, g: number): number[] {
  const out: number[] = [];
  for (let x = g; x >= 0; x = m.parents[x]) out.push(x);
  return out;
}
function expectedRead(m: Model, kind: "group" | "asset", i: number): boolean {
  const groupsOf = kind === "group" ? [i] : m.assets[i];
  const owned = kind === "group" ? m.ownedGroups[i] : m.ownedAssets[i];
  if (m.chroot !== null) {
    const inside = groupsOf.some((g) => ancestorsOf(m, g).includes(m.chroot!)) || (kind === "asset" && owned && m.assets[i].length === 0);
    if (!inside) return false;
  }
  if (owned) return true;
  let mask = kind === "group" ? groupMask(m, i) : ruleMask(m, "asset", i);
  if (kind === "asset" && m.assetInherit[i]) for (const g of m.assets[i]) mask |= groupMask(m, g);
  if (mask & DENY_BIT) return false;
  return (mask & (levelBit("read") | levelBit("superuser"))) !== 0;
}

/**
 * One run of the property against a catalog: D1 (`DB`), or a library shard's own SQLite (decision 043) through the
 * D1 API the repositories use there, with the same services on top.
 */
async function agreesWithModel(catalog: CatalogClient, db: Database, adminId: string): Promise<void> {
  await fc.assert(
    fc.asyncProperty(modelArb, async (m) => {
      const now = Date.now();
      const user = newId();
      const other = newId();
      const team = newId();
      const stranger = newId();
      const groups = m.parents.map(() => newId());
      const assets = m.assets.map(() => newId());
      const statements = [
        catalog
          .prepare("INSERT INTO users (id, login, name, ctime, mtime, chroot_groups) VALUES (?, ?, 'u', ?, ?, ?)")
          .bind(user, `p-${user}`, now, now, JSON.stringify(m.chroot === null ? [] : [groups[m.chroot]])),
        catalog.prepare("INSERT INTO users (id, login, name, ctime, mtime) VALUES (?, ?, 'o', ?, ?)").bind(other, `p-${other}`, now, now),
        catalog.prepare("INSERT INTO user_group_members (group_id, user_id, ctime) VALUES (?, ?, ?)").bind(team, user, now),
      ];
      m.parents.forEach((p, i) => {
        const parent = p < 0 ? ROOT_GROUP_ID : groups[p];
        const owner = m.ownedGroups[i] ? user : other;
        statements.push(
          catalog
            .prepare("INSERT INTO groups (id, name, parent_id, owner_id, ctime, mtime) VALUES (?, ?, ?, ?, ?, ?)")
            .bind(groups[i], `g${i}`, parent, owner, now, now),
          catalog
            .prepare("INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) VALUES (?, ?, 'group', ?, ?)")
            .bind(parent, groups[i], now, `g${i}`),
        );
        const chain = [i, ...ancestorsOf(m, i).slice(1)];
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
        if (!m.groupInherit[i]) {
          statements.push(
            catalog
              .prepare("INSERT INTO access_inheritance (entity_id, entity_type, inherit, mtime) VALUES (?, 'group', 0, ?)")
              .bind(groups[i], now),
          );
        }
      });
      m.assets.forEach((memberOf, i) => {
        const owner = m.ownedAssets[i] ? user : other;
        statements.push(
          catalog
            .prepare(
              "INSERT INTO assets (id, name, mime, owner_id, creator_id, ctime, mtime, atime) VALUES (?, ?, 'video/mp4', ?, ?, ?, ?, ?)",
            )
            .bind(assets[i], `a${i}`, owner, owner, now, now, now),
        );
        for (const g of memberOf) {
          statements.push(
            catalog
              .prepare("INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) VALUES (?, ?, 'asset', ?, ?)")
              .bind(groups[g], assets[i], now, `a${i}`),
          );
        }
        if (!m.assetInherit[i]) {
          statements.push(
            catalog
              .prepare("INSERT INTO access_inheritance (entity_id, entity_type, inherit, mtime) VALUES (?, 'asset', 0, ?)")
              .bind(assets[i], now),
          );
        }
      });
      m.rules.forEach((r) => {
        const subj = [user, team, stranger][r.subject];
        const obj = r.kind === "group" ? groups[r.target] : assets[Math.min(r.target, assets.length - 1)];
        const target = r.kind === "group" ? r.target : Math.min(r.target, assets.length - 1);
        r.target = target;
        statements.push(
          catalog
            .prepare("INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) VALUES (?, ?, ?, ?, ?, ?, ?)")
            .bind(newId(), subj, r.subject === 0 ? "user" : "group", obj, r.kind, r.mask, now),
        );
      });
      await catalog.batch(statements);

      const rc = { ...createRequestContext(env, () => undefined, "property"), db };
      const actor: Actor = { id: user, name: "u", login: `p-${user}`, isAdmin: false, isRobot: false, sessionFamily: null };
      const vis = await visibility(rc, actor);
      const visibleGroups = await filterVisible(rc.db, vis, "group", groups);
      const visibleAssets = await filterVisible(rc.db, vis, "asset", assets);
      for (const [kind, ids, visible] of [
        ["group", groups, visibleGroups],
        ["asset", assets, visibleAssets],
      ] as const) {
        for (let i = 0; i < ids.length; i++) {
          const expected = expectedRead(m, kind, i);
          const owned = kind === "group" ? m.ownedGroups[i] : m.ownedAssets[i];
          const mask = await entityMask(rc, actor, { id: ids[i], type: kind, ownerId: owned ? user : other });
          expect({ kind, i, check: (mask & levelBit("read")) !== 0 }).toEqual({ kind, i, check: expected });
          expect({ kind, i, list: visible.has(ids[i]) }).toEqual({ kind, i, list: expected });
          if (owned && expected) expect(mask).toBe(ALL_GRANTS);
        }
      }
      // The administrator reads everything.
      const adminActor: Actor = { id: adminId, name: "a", login: "admin", isAdmin: true, isRobot: false, sessionFamily: null };
      expect((await filterVisible(rc.db, await visibility(rc, adminActor), "asset", assets)).size).toBe(assets.length);
    }),
    { numRuns: 60 },
  );
}

describe("access SQL against the model", () => {
  it("entityMask and the list filter agree with the model over random trees, rules, switches and chroots", async () => {
    const boss = await admin();
    await agreesWithModel(env.DB, createRequestContext(env, () => undefined, "property").db, boss.id);
  });

  it("gives the same answers in a library shard's SQLite, through the same repositories", async () => {
    const shard = env.LIBRARY_SHARDS.get(env.LIBRARY_SHARDS.idFromName("access-sql-property"));
    await runInDurableObject(shard, async (instance: LibraryShardDO, state) =>
      agreesWithModel(new SqlStorageClient(state.storage), instance.db, newId()),
    );
  });
});
