import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exec, indexRowsOf, indexed } from "./catalog-fixtures";
import { call } from "./factories";
import { admin, createGroup, insertAsset, ordinaryUser, ROOT_GROUP_ID, uniqueName } from "./library-factories";
import { propertyRuns } from "./property-runs";

// The index's visibility column (decision 039, migration 0055) against a small independent model: after any sequence
// of the writes that move it — new folders, folder moves, listings added, removed and trashed, inheritance switches on
// folders and files, owner changes — every document's tokens equal what the model derives from the tree alone. The
// search property test then checks that the decisions made with those tokens equal the access check's.

type Op =
  | { kind: "folder"; parent: number }
  | { kind: "move"; folder: number; to: number }
  | { kind: "list"; asset: number; folder: number }
  | { kind: "unlist"; asset: number }
  | { kind: "trashListing"; asset: number }
  | { kind: "switch"; onAsset: boolean; pick: number; inherit: boolean }
  | { kind: "chown"; asset: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("folder" as const), parent: fc.nat(20) }),
  fc.record({ kind: fc.constant("move" as const), folder: fc.nat(20), to: fc.nat(20) }),
  fc.record({ kind: fc.constant("list" as const), asset: fc.nat(20), folder: fc.nat(20) }),
  fc.record({ kind: fc.constant("unlist" as const), asset: fc.nat(20) }),
  fc.record({ kind: fc.constant("trashListing" as const), asset: fc.nat(20) }),
  fc.record({ kind: fc.constant("switch" as const), onAsset: fc.boolean(), pick: fc.nat(20), inherit: fc.boolean() }),
  fc.record({ kind: fc.constant("chown" as const), asset: fc.nat(20) }),
);

interface Listing {
  folder: string;
  trashed: boolean;
}

describe("the search index's visibility tokens", () => {
  it("equal a model of the tree after any sequence of structural writes", { timeout: 300_000 }, async () => {
    const boss = await admin();
    const other = await ordinaryUser();
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), fc.nat(3), async (ops, assetCount) => {
        const top = await createGroup(boss, uniqueName("Токены"));
        const parent = new Map<string, string>([[top, ROOT_GROUP_ID]]);
        const owner = new Map<string, string>([[top, boss.id]]);
        const cut = new Set<string>();
        const folders = [top];
        const listings = new Map<string, Listing[]>();
        for (let i = 0; i <= assetCount; i++) {
          const made = await insertAsset({
            ownerId: i % 2 ? other.id : boss.id,
            name: `токен ${i}.jpg`,
            mime: "image/jpeg",
            groups: i === 0 ? [] : [top],
          });
          listings.set(made.id, i === 0 ? [] : [{ folder: top, trashed: false }]);
          owner.set(made.id, i % 2 ? other.id : boss.id);
        }
        const assets = [...listings.keys()];
        const pick = <T>(list: T[], n: number) => list[n % list.length];
        /** Ancestors of a folder with their depth from it, itself at 0 and the root last. */
        const chain = (id: string): [string, number][] => {
          const out: [string, number][] = [];
          for (let at: string | undefined = id, d = 0; at; at = parent.get(at), d++) out.push([at, d]);
          return out;
        };
        const cutDepth = (id: string) => chain(id).find(([node]) => cut.has(node))?.[1] ?? Infinity;

        for (const op of ops) {
          switch (op.kind) {
            case "folder": {
              const at = pick(folders, op.parent);
              const id = await createGroup(boss, uniqueName("Вложенная"), at);
              parent.set(id, at);
              owner.set(id, boss.id);
              folders.push(id);
              break;
            }
            case "move": {
              const folder = pick(folders, op.folder);
              const to = pick(folders, op.to);
              if (folder === top || chain(to).some(([node]) => node === folder) || parent.get(folder) === to) break;
              const res = await call(`/api/group/move-member/${folder}/${parent.get(folder)}/${to}`, {
                method: "POST",
                bearer: boss.bearer,
              });
              expect(res.status).toBe(204);
              parent.set(folder, to);
              break;
            }
            case "list": {
              const asset = pick(assets, op.asset);
              const folder = pick(folders, op.folder);
              if (listings.get(asset)!.some((l) => l.folder === folder)) break;
              await exec(
                "insert into group_members (group_id, el_id, el_type, ctime, sort_name) values (?, ?, 'asset', ?, ?)",
                folder,
                asset,
                Date.now(),
                asset,
              );
              listings.get(asset)!.push({ folder, trashed: false });
              break;
            }
            case "unlist": {
              const asset = pick(assets, op.asset);
              const gone = listings.get(asset)!.shift();
              if (gone) await exec("delete from group_members where group_id = ? and el_id = ?", gone.folder, asset);
              break;
            }
            case "trashListing": {
              const listing = listings.get(pick(assets, op.asset))![0];
              if (!listing) break;
              listing.trashed = !listing.trashed;
              await exec(
                "update group_members set trashed_at = ? where group_id = ? and el_id = ?",
                listing.trashed ? Date.now() : null,
                listing.folder,
                pick(assets, op.asset),
              );
              break;
            }
            case "switch": {
              const id = op.onAsset ? pick(assets, op.pick) : pick(folders, op.pick);
              const res = await call(`/api/auth/access-inheritance/${id}`, {
                method: "POST",
                bearer: boss.bearer,
                json: { inherit: op.inherit },
              });
              expect(res.status).toBe(200);
              if (op.inherit) cut.delete(id);
              else cut.add(id);
              break;
            }
            case "chown": {
              const asset = pick(assets, op.asset);
              owner.set(asset, owner.get(asset) === boss.id ? other.id : boss.id);
              await exec("update assets set owner_id = ? where id = ?", owner.get(asset), asset);
              break;
            }
          }
        }

        const expected = new Map<string, string[]>();
        for (const folder of folders) {
          const limit = cutDepth(folder);
          expected.set(folder, [`o${owner.get(folder)}`, ...chain(folder).map(([node, d]) => `${d <= limit ? "a" : "b"}${node}`)]);
        }
        for (const asset of assets) {
          const tokens = new Set([`o${owner.get(asset)}`, `a${asset}`]);
          for (const l of listings.get(asset)!) {
            const limit = cutDepth(l.folder);
            for (const [node, d] of chain(l.folder)) tokens.add(`${!l.trashed && !cut.has(asset) && d <= limit ? "a" : "b"}${node}`);
          }
          if (listings.get(asset)!.length === 0) tokens.add("unfiled");
          expected.set(asset, [...tokens]);
        }
        await indexed();
        const stored = await indexRowsOf([...expected.keys()]);
        const got = new Map(stored.map((r) => [r.id, [...new Set(r.acl.split(" "))].sort()]));
        for (const [id, tokens] of expected) expect(got.get(id), `${id} after ${JSON.stringify(ops)}`).toEqual([...new Set(tokens)].sort());
      }),
      { numRuns: propertyRuns(25) },
    );
  });
});
