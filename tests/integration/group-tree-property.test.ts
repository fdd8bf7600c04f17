import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LibraryShardDO } from "../../durable-objects/library-shard.do";
import { storeCallerCopy } from "../../workers/db/repositories/caller-copy.repository";
import { SqlStorageClient } from "../../workers/db/sql-storage-client";
import { AppError } from "../../workers/lib/errors";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { createRequestContext, type Actor } from "../../workers/services/access/context";
import { createGroup as createGroupService, moveMembers, trashGroups } from "../../workers/services/library";
import { sortKeyOf } from "../../workers/services/library/group-tree";
import { callerCopyOf } from "./shard-fixtures";
import { createGroup, expectTreeConsistent, ordinaryUser, send, uniqueName } from "./library-factories";

// Model-based property: random sequences of create, move (cycle attempts included) and delete, run through the API,
// answer what a plain in-memory tree predicts and keep group_closure equal to the transitive closure of parent links;
// and the same sequences through the same services inside a library shard (decision 043).

type Op =
  | { kind: "create"; parent: number; name: string }
  | { kind: "move"; node: number; target: number }
  | { kind: "delete"; node: number };

const NAMES = ["a", "A", "b", "ё", "Ё", "📁"];

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("create" as const), parent: fc.nat(), name: fc.constantFrom(...NAMES) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("move" as const), node: fc.nat(), target: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), node: fc.nat() }) },
);

/** The in-memory tree the API must agree with. */
class Model {
  parent = new Map<string, string>();
  name = new Map<string, string>();
  trashed = new Set<string>();
  nodes: string[];

  constructor(readonly top: string) {
    this.nodes = [top];
  }

  isAncestorOrSelf(ancestor: string, node: string): boolean {
    for (let at: string | undefined = node; at; at = this.parent.get(at)) if (at === ancestor) return true;
    return false;
  }

  liveChildNamed(parent: string, name: string, except?: string): boolean {
    return [...this.parent].some(
      ([id, p]) => p === parent && id !== except && !this.trashed.has(id) && sortKeyOf(this.name.get(id)!) === sortKeyOf(name),
    );
  }

  subtree(root: string): string[] {
    return this.nodes.filter((id) => this.isAncestorOrSelf(root, id));
  }
}

/** Where the operations run: the API over D1, or the same services inside a library shard (decision 043). */
interface TreeEngine {
  top(): Promise<string>;
  create(parent: string, name: string): Promise<{ status: number; id?: string }>;
  move(node: string, from: string, to: string): Promise<number>;
  trash(node: string): Promise<number>;
  catalog: Pick<D1Database, "prepare">;
}

/** The status a service's refusal maps to, as the API answers it. */
async function statusOf(operation: Promise<unknown>, ok: number): Promise<number> {
  try {
    await operation;
    return ok;
  } catch (error) {
    if (error instanceof AppError) return error.status;
    throw error;
  }
}

async function followsModel(engine: TreeEngine): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops) => {
      const model = new Model(await engine.top());
      for (const op of ops) {
        const pick = (n: number) => model.nodes[n % model.nodes.length];
        if (op.kind === "create") {
          const parent = pick(op.parent);
          const expected = model.trashed.has(parent) ? 404 : model.liveChildNamed(parent, op.name) ? 409 : 200;
          const res = await engine.create(parent, op.name);
          expect(res.status, `create ${op.name} in ${parent}`).toBe(expected);
          if (res.status === 200) {
            model.nodes.push(res.id!);
            model.parent.set(res.id!, parent);
            model.name.set(res.id!, op.name);
          }
        } else if (op.kind === "move") {
          const node = pick(op.node);
          const target = pick(op.target);
          if (node === model.top) continue;
          const from = model.parent.get(node)!;
          let expected: number;
          if (from === target) expected = 400;
          else if (model.trashed.has(from) || model.trashed.has(target) || model.trashed.has(node)) expected = 404;
          else if (model.isAncestorOrSelf(node, target)) expected = 409;
          else if (model.liveChildNamed(target, model.name.get(node)!)) expected = 409;
          else expected = 204;
          const status = await engine.move(node, from, target);
          expect(status, `move ${node} from ${from} to ${target}`).toBe(expected);
          if (status === 204) model.parent.set(node, target);
        } else {
          const node = pick(op.node);
          const expected = model.trashed.has(node) ? 404 : 204;
          expect(await engine.trash(node), `delete ${node}`).toBe(expected);
          if (expected === 204) for (const id of model.subtree(node)) model.trashed.add(id);
        }
      }
      await expectTreeConsistent(engine.catalog);
      const { results } = await engine.catalog
        .prepare("SELECT id, parent_id, deleted_at FROM groups WHERE id IN (SELECT value FROM json_each(?))")
        .bind(JSON.stringify(model.nodes))
        .all<{ id: string; parent_id: string; deleted_at: number | null }>();
      for (const row of results) {
        if (row.id !== model.top) expect(row.parent_id).toBe(model.parent.get(row.id));
        expect(row.deleted_at != null).toBe(model.trashed.has(row.id));
      }
      expect(results).toHaveLength(model.nodes.length);
    }),
    { numRuns: 40 },
  );
}

describe("group tree under random operations", () => {
  it("keeps the closure equal to the transitive closure of the parent links and never makes a cycle", async () => {
    const user = await ordinaryUser();
    await followsModel({
      top: () => createGroup(user, uniqueName()),
      create: async (parent, name) => {
        const res = await send<{ group_id: string }>("POST", "/api/group/create", user.bearer, { parent, group_name: name });
        return { status: res.status, id: res.body?.group_id };
      },
      move: async (node, from, to) => (await send("POST", `/api/group/move-member/${node}/${from}/${to}`, user.bearer)).status,
      trash: async (node) => (await send("DELETE", `/api/group/delete/${node}`, user.bearer)).status,
      catalog: env.DB,
    });
  }, 120_000);

  it("does the same in a library shard's SQLite, through the same services", async () => {
    const shard = env.LIBRARY_SHARDS.get(env.LIBRARY_SHARDS.idFromName("group-tree-property"));
    await runInDurableObject(shard, async (instance: LibraryShardDO, state) => {
      const actor: Actor = {
        id: newId(),
        name: "Монтажёр",
        login: `editor-${newId()}`,
        isAdmin: false,
        isRobot: false,
        sessionFamily: null,
      };
      // The caller's copy, as a call to a shard carries it.
      await storeCallerCopy(instance.db, callerCopyOf(actor), Date.now());
      const rc = { ...createRequestContext(env, () => undefined, "group-tree-shard"), db: instance.db };
      await followsModel({
        top: async () => (await createGroupService(rc, actor, { parent: ROOT_GROUP_ID, group_name: uniqueName() })).group_id,
        create: async (parent, name) => {
          try {
            return { status: 200, id: (await createGroupService(rc, actor, { parent, group_name: name })).group_id };
          } catch (error) {
            if (error instanceof AppError) return { status: error.status };
            throw error;
          }
        },
        move: (node, from, to) => statusOf(moveMembers(rc, actor, from, to, [node]), 204),
        trash: (node) => statusOf(trashGroups(rc, actor, [node]), 204),
        catalog: new SqlStorageClient(state.storage),
      });
    });
  }, 120_000);
});
