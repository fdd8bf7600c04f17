import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LibraryShardDO } from "../../durable-objects/library-shard.do";
import { storeCallerCopy } from "../../workers/db/repositories/caller-copy.repository";
import { SqlStorageClient } from "../../workers/db/sql-storage-client";
import { AppError } from "../../workers/lib/errors";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { levelBit, type AccessLevel } from "../../workers/services/access/access-policy";
import { createRule, setInheritance } from "../../workers/services/access/access-rules.service";
import { entityMask } from "../../workers/services/access/access.service";
import { createRequestContext, type Actor, type RequestContext } from "../../workers/services/access/context";
import { createGroup, listMembers, trashGroups } from "../../workers/services/library";
import { callerCopyOf } from "./shard-fixtures";

/**
 * One shard or many (issue 40, decision 043), within libraries: the same random sequence of folders, files, rules,
 * inheritance switches and trashing, run once with every library in one shard and once with each library in a shard
 * of its own — through the same services — answers every operation alike and leaves a reader the same visible state:
 * the root listing (in many shards: the union of each shard's), every folder's listing and every file's check. What
 * this proves is the boundary: nothing a library's access depends on lies outside it.
 */

const LIBRARIES = 3;
const LEVEL_SETS: AccessLevel[][] = [["read"], ["read", "download"], ["deny"], ["update"]];

type Op =
  | { kind: "folder"; lib: number; parent: number; name: string }
  | { kind: "file"; lib: number; folder: number }
  | { kind: "rule"; lib: number; target: number; onFile: boolean; forReader: boolean; levels: number }
  | { kind: "inherit"; lib: number; target: number; onFile: boolean; inherit: boolean }
  | { kind: "trash"; lib: number; folder: number };

const lib = fc.nat({ max: LIBRARIES - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("folder" as const), lib, parent: fc.nat(), name: fc.constantFrom("Сырьё", "Монтаж", "Звук") }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("file" as const), lib, folder: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("rule" as const),
      lib,
      target: fc.nat(),
      onFile: fc.boolean(),
      forReader: fc.boolean(),
      levels: fc.nat({ max: LEVEL_SETS.length - 1 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("inherit" as const), lib, target: fc.nat(), onFile: fc.boolean(), inherit: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("trash" as const), lib, folder: fc.nat() }) },
);

/** A layout's libraries: the folders (0 = the library's top folder) and files of each, in the order they were made. */
interface Placed {
  folders: string[][];
  files: string[][];
}

/** Runs `work` inside the shard with the services' catalog pointed at it, the two callers' copies made current. */
function inShard<T>(name: string, callers: Actor[], work: (rc: RequestContext, client: SqlStorageClient) => Promise<T>): Promise<T> {
  const object = env.LIBRARY_SHARDS.get(env.LIBRARY_SHARDS.idFromName(name));
  return runInDurableObject(object, async (instance: LibraryShardDO, state) => {
    for (const caller of callers) await storeCallerCopy(instance.db, callerCopyOf(caller), 0);
    return work({ ...createRequestContext(env, () => undefined, `shards-${name}`), db: instance.db }, new SqlStorageClient(state.storage));
  });
}

async function outcome(operation: Promise<unknown>): Promise<string> {
  try {
    await operation;
    return "ok";
  } catch (error) {
    if (error instanceof AppError) return String(error.status);
    throw error;
  }
}

async function addFile(client: SqlStorageClient, owner: string, folder: string, name: string): Promise<string> {
  const id = newId();
  const now = Date.now();
  await client.batch([
    client
      .prepare("INSERT INTO assets (id, name, mime, owner_id, creator_id, ctime, mtime, atime) VALUES (?, ?, 'video/mp4', ?, ?, ?, ?, ?)")
      .bind(id, name, owner, owner, now, now, now),
    client
      .prepare("INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) VALUES (?, ?, 'asset', ?, ?)")
      .bind(folder, id, now, name),
  ]);
  return id;
}

/** Applies the operations with library l in shard `shardOf(l)`; answers each operation's outcome and where things went. */
async function apply(
  ops: readonly Op[],
  shardOf: (l: number) => string,
  admin: Actor,
  reader: Actor,
): Promise<{ outcomes: string[]; placed: Placed }> {
  const placed: Placed = { folders: [], files: [] };
  for (let l = 0; l < LIBRARIES; l++) {
    const top = await inShard(
      shardOf(l),
      [admin, reader],
      async (rc) => (await createGroup(rc, admin, { parent: ROOT_GROUP_ID, group_name: `Библиотека ${l}` })).group_id,
    );
    placed.folders.push([top]);
    placed.files.push([]);
  }
  const outcomes: string[] = [];
  for (const [i, op] of ops.entries()) {
    const folders = placed.folders[op.lib];
    const files = placed.files[op.lib];
    const result = await inShard(shardOf(op.lib), [admin, reader], async (rc, client) => {
      switch (op.kind) {
        case "folder": {
          let id: string | null = null;
          const status = await outcome(
            createGroup(rc, admin, { parent: folders[op.parent % folders.length], group_name: op.name }).then((g) => (id = g.group_id)),
          );
          if (id) folders.push(id);
          return status;
        }
        case "file":
          files.push(await addFile(client, admin.id, folders[op.folder % folders.length], `clip-${i}.mp4`));
          return "ok";
        case "rule": {
          const targets = op.onFile && files.length > 0 ? files : folders;
          const obj = targets[op.target % targets.length];
          const subj = op.forReader ? reader.id : admin.id;
          return outcome(
            createRule(rc, admin, {
              subj,
              subj_type: "user",
              obj,
              obj_type: targets === files ? "asset" : "group",
              acl: LEVEL_SETS[op.levels],
            }),
          );
        }
        case "inherit": {
          const targets = op.onFile && files.length > 0 ? files : folders;
          return outcome(setInheritance(rc, admin, targets[op.target % targets.length], op.inherit));
        }
        case "trash":
          return outcome(trashGroups(rc, admin, [folders[op.folder % folders.length]]));
      }
    });
    outcomes.push(`${op.kind}:${result}`);
  }
  return { outcomes, placed };
}

/** What the reader sees, with every id replaced by its place (library, folder or file index). */
async function readerView(placed: Placed, shardOf: (l: number) => string, admin: Actor, reader: Actor) {
  const nameOf = new Map<string, string>();
  placed.folders.forEach((ids, l) => ids.forEach((id, f) => nameOf.set(id, `L${l}/folder ${f}`)));
  placed.files.forEach((ids, l) => ids.forEach((id, f) => nameOf.set(id, `L${l}/file ${f}`)));
  const view: Record<string, unknown> = {};
  const roots = new Set<string>();
  for (const name of new Set(Array.from({ length: LIBRARIES }, (_, l) => shardOf(l)))) {
    const listed = await inShard(name, [admin, reader], (rc) => listMembers(rc, reader, ROOT_GROUP_ID, { take: 100 }));
    for (const item of listed.items) roots.add(nameOf.get(item.el_id) ?? "unknown");
  }
  view.root = [...roots].sort();
  for (let l = 0; l < LIBRARIES; l++) {
    await inShard(shardOf(l), [admin, reader], async (rc) => {
      for (const [f, id] of placed.folders[l].entries()) {
        view[`L${l}/folder ${f}`] = await listMembers(rc, reader, id, { take: 100 }).then(
          (page) => page.items.map((item) => nameOf.get(item.el_id) ?? "unknown").sort(),
          (error: unknown) => (error instanceof AppError ? error.status : Promise.reject(error)),
        );
      }
      for (const [f, id] of placed.files[l].entries()) {
        const mask = await entityMask(rc, reader, { id, type: "asset", ownerId: admin.id });
        view[`L${l}/file ${f}`] = (mask & levelBit("read")) !== 0;
      }
    });
  }
  return view;
}

describe("one shard or many", () => {
  it("the same operations answer alike and leave a reader the same view, every library in one shard or each in its own", async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops) => {
        const run = newId();
        const admin: Actor = {
          id: newId(),
          name: "Администратор",
          login: `admin-${run}`,
          isAdmin: true,
          isRobot: false,
          sessionFamily: null,
        };
        const reader: Actor = {
          id: newId(),
          name: "Читатель",
          login: `reader-${run}`,
          isAdmin: false,
          isRobot: false,
          sessionFamily: null,
        };
        const one = (_l: number) => `one-${run}`;
        const many = (l: number) => `many-${run}-${l}`;
        const inOne = await apply(ops, one, admin, reader);
        const inMany = await apply(ops, many, admin, reader);
        expect(inMany.outcomes).toEqual(inOne.outcomes);
        const viewOne = await readerView(inOne.placed, one, admin, reader);
        expect(await readerView(inMany.placed, many, admin, reader)).toEqual(viewOne);
        compared += Object.keys(viewOne).length;
      }),
      { numRuns: 15 },
    );
    expect(compared).toBeGreaterThan(60);
  }, 120_000);
});
