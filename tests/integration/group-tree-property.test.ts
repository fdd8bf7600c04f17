import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sortKeyOf } from "../../workers/services/library/group-tree";
import { createGroup, expectTreeConsistent, ordinaryUser, send, uniqueName } from "./library-factories";

// Model-based property: random sequences of create, move (cycle attempts included) and delete, run through the API,
// answer what a plain in-memory tree predicts and keep group_closure equal to the transitive closure of parent links.

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

describe("group tree under random operations", () => {
  it("keeps the closure equal to the transitive closure of the parent links and never makes a cycle", async () => {
    const user = await ordinaryUser();
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops) => {
        const model = new Model(await createGroup(user, uniqueName()));
        for (const op of ops) {
          const pick = (n: number) => model.nodes[n % model.nodes.length];
          if (op.kind === "create") {
            const parent = pick(op.parent);
            const expected = model.trashed.has(parent) ? 404 : model.liveChildNamed(parent, op.name) ? 409 : 200;
            const res = await send<{ group_id: string }>("POST", "/api/group/create", user.bearer, { parent, group_name: op.name });
            expect(res.status, `create ${op.name} in ${parent}`).toBe(expected);
            if (res.status === 200) {
              model.nodes.push(res.body.group_id);
              model.parent.set(res.body.group_id, parent);
              model.name.set(res.body.group_id, op.name);
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
            const res = await send("POST", `/api/group/move-member/${node}/${from}/${target}`, user.bearer);
            expect(res.status, `move ${node} from ${from} to ${target}: ${JSON.stringify(res.body)}`).toBe(expected);
            if (res.status === 204) model.parent.set(node, target);
          } else {
            const node = pick(op.node);
            const expected = model.trashed.has(node) ? 404 : 204;
            const res = await send("DELETE", `/api/group/delete/${node}`, user.bearer);
            expect(res.status, `delete ${node}`).toBe(expected);
            if (res.status === 204) for (const id of model.subtree(node)) model.trashed.add(id);
          }
        }
        await expectTreeConsistent();
        const { results } = await env.DB.prepare(
          "SELECT id, parent_id, deleted_at FROM groups WHERE id IN (SELECT value FROM json_each(?))",
        )
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
  }, 120_000);
});
