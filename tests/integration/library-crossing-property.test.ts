import { env } from "cloudflare:workers";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { forgetLibraryPlaces } from "../../workers/db/library-directory";
import { ROOT_GROUP_ID } from "../../workers/lib/ids";
import { createGroup } from "../../workers/services/library";
import { crossingOver } from "../../workers/services/library/library-crossing.service";
import { switchLibrary } from "./library-shard-fixtures";
import { actorOf, testContext } from "./catalog-fixtures";
import { call } from "./factories";
import { admin, ordinaryUser, releaseMovedLibraries } from "./library-factories";
import { inShard } from "./through-shards";

/**
 * One shard or many, across libraries (issue 40's model-based property, decision 046): the same random sequence of
 * folders, files, moves of files and folders inside and across libraries (some by another isolate, whose moves this one
 * does not see: its places remembered go out of date), copies, listings of files in more folders
 * and their removal (decision 047), rules for a reader, trashing and restoring of files and folders, new files and versions
 * whose upload is under way while the others run (begun with half a body, finished later or at the end: decision 049),
 * sent through the API once with every library in the catalog and once with each library in a shard of its own,
 * answers every call with the same status and leaves the same visible state — every folder's listing and every file's
 * answer, for the administrator and for the reader. Ids differ between the two runs; both are mapped to the model's
 * names (the order things were made in).
 */

const LIBRARIES = 2;
const LEVEL_SETS = [["read"], ["read", "download"], ["deny"]];

type Op =
  | { kind: "folder"; parent: number }
  | { kind: "file"; folder: number }
  | { kind: "moveFile"; file: number; to: number }
  | { kind: "moveElsewhere"; file: number; to: number }
  | { kind: "rename"; file: number }
  | { kind: "moveFolder"; folder: number; to: number }
  | { kind: "copy"; file: number; to: number }
  | { kind: "rule"; target: number; onFile: boolean; levels: number }
  | { kind: "trash"; file: number }
  | { kind: "list"; file: number; to: number }
  | { kind: "unlist"; file: number; from: number }
  | { kind: "trashFolder"; folder: number }
  | { kind: "restore"; target: number; folder: boolean }
  | { kind: "beginUpload"; folder: number; version: boolean }
  | { kind: "finishUpload" };

const n = fc.nat({ max: 40 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("folder" as const), parent: n }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("file" as const), folder: n }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("moveFile" as const), file: n, to: n }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("moveElsewhere" as const), file: n, to: n }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("rename" as const), file: n }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("moveFolder" as const), folder: n, to: n }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("copy" as const), file: n, to: n }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("rule" as const),
      target: n,
      onFile: fc.boolean(),
      levels: fc.nat({ max: LEVEL_SETS.length - 1 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("trash" as const), file: n }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("list" as const), file: n, to: n }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("unlist" as const), file: n, from: n }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("trashFolder" as const), folder: n }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("restore" as const), target: n, folder: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("beginUpload" as const), folder: n, version: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("finishUpload" as const) }) },
);

const DENIED_ELSEWHERE: Op[] = [
  { kind: "rule", target: 1, onFile: false, levels: 0 },
  { kind: "file", folder: 1 },
  { kind: "file", folder: 0 },
  { kind: "folder", parent: 0 },
  { kind: "list", file: 0, to: 0 },
  { kind: "rule", target: 0, onFile: false, levels: 2 },
];

/** A file renamed here, then moved into the other library by another isolate, and read here. */
const MOVED_ELSEWHERE: Op[] = [
  { kind: "file", folder: 0 },
  { kind: "rename", file: 0 },
  { kind: "moveElsewhere", file: 0, to: 1 },
];

/** A new version's body arriving while another isolate moves its file into the other library: it lands there. */
const UPLOADED_ELSEWHERE: Op[] = [
  { kind: "file", folder: 0 },
  { kind: "beginUpload", folder: 0, version: true },
  { kind: "moveElsewhere", file: 0, to: 1 },
  { kind: "finishUpload" },
];

const moved: string[] = [];
afterAll(() => releaseMovedLibraries(moved));

/** One run's model: folders and files by the order they were made, each file's folder, each folder's parent. */
interface Layout {
  folders: string[];
  parentOf: Map<string, string>;
  files: string[];
  folderOf: Map<string, string>;
}

/** A new file's upload (or a new version's: no folder) begun: half its body sent, the rest to come. */
interface InFlight {
  folder: string | null;
  rest: Uint8Array;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  answer: Promise<Response>;
}

const PENDING_NAMED = "SELECT count(*) AS n FROM variants WHERE file_name = ? AND status = 'pending'";

/**
 * Until an upload has reached its body (its pending version is written, in the catalog or a shard) or has answered:
 * the next operation then meets it receiving its body, in both runs alike, not still checking.
 */
async function untilReceiving(name: string, shards: number[], answer: Promise<Response>) {
  let answered = false;
  void answer.then(() => (answered = true));
  for (let tries = 0; tries < 250 && !answered; tries++) {
    let pending = (await env.DB.prepare(PENDING_NAMED).bind(name).first<{ n: number }>())!.n;
    for (const shard of shards) pending += await inShard(shard, (sql) => sql.exec<{ n: number }>(PENDING_NAMED, name).one().n);
    if (pending > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function status(res: Response): Promise<number> {
  if (!res.bodyUsed) await res.body?.cancel();
  return res.status;
}

/** Runs the operations through the API in a fresh set of libraries; each in its own shard when `sharded`. */
async function run(ops: readonly Op[], sharded: boolean, bearer: string, readerId: string, bossId: string) {
  const boss = actorOf({ id: bossId, login: "admin", name: "admin", isAdmin: true });
  const layout: Layout = { folders: [], parentOf: new Map(), files: [], folderOf: new Map() };
  const shards: number[] = [];
  for (let l = 0; l < LIBRARIES; l++) {
    // Made by the service, not the route: with NEW_LIBRARIES=shard the route would move it into a shard at once.
    const { group_id: top } = await createGroup(testContext(), boss, {
      parent: ROOT_GROUP_ID,
      group_name: `Библиотека ${l} ${crypto.randomUUID()}`,
    });
    if (sharded) {
      moved.push(top);
      shards.push(await switchLibrary(top));
    }
    layout.folders.push(top);
  }
  forgetLibraryPlaces();
  const post = (path: string, json?: unknown) => call(path, { method: "POST", bearer, json });
  const outcomes: number[] = [];
  const inFlight: InFlight[] = [];
  const finishUpload = async (upload: InFlight) => {
    const sent = upload.writer
      .write(upload.rest)
      .then(() => upload.writer.close())
      .catch(() => undefined);
    await Promise.race([sent, upload.answer]);
    const res = await upload.answer;
    if (res.ok && upload.folder) {
      const { asset_id } = (await res.json()) as { asset_id: string };
      layout.files.push(asset_id);
      layout.folderOf.set(asset_id, upload.folder);
    }
    outcomes.push(await status(res));
  };
  for (const [i, op] of ops.entries()) {
    const pick = <T>(list: T[], k: number) => list[k % list.length];
    switch (op.kind) {
      case "folder": {
        const parent = pick(layout.folders, op.parent);
        const res = await post("/api/group/create", { group_name: `Папка ${i}`, parent });
        if (res.ok) {
          const { group_id } = (await res.json()) as { group_id: string };
          layout.folders.push(group_id);
          layout.parentOf.set(group_id, parent);
        }
        outcomes.push(await status(res));
        break;
      }
      case "file": {
        const folder = pick(layout.folders, op.folder);
        const res = await call(`/api/asset/upload?${new URLSearchParams({ in_group: folder, name: `файл-${i}.txt` })}`, {
          method: "POST",
          bearer,
          body: `строка ${i}\n`,
          headers: { "content-type": "text/plain" },
        });
        if (res.ok) {
          const { asset_id } = (await res.json()) as { asset_id: string };
          layout.files.push(asset_id);
          layout.folderOf.set(asset_id, folder);
        }
        outcomes.push(await status(res));
        break;
      }
      case "moveFile":
      case "copy": {
        if (layout.files.length === 0) continue;
        const file = pick(layout.files, op.file);
        const to = pick(layout.folders, op.to);
        if (op.kind === "moveFile") {
          const res = await post(`/api/group/move-member/${file}/${layout.folderOf.get(file)}/${to}`);
          if (res.ok) layout.folderOf.set(file, to);
          outcomes.push(await status(res));
        } else {
          const res = await post(`/api/asset/copy/${file}/${to}`);
          if (res.ok) {
            const { asset_id } = (await res.json()) as { asset_id: string };
            layout.files.push(asset_id);
            layout.folderOf.set(asset_id, to);
          }
          outcomes.push(await status(res));
        }
        break;
      }
      case "moveElsewhere": {
        // Another isolate moves a file (at the storage layer, so this isolate keeps remembering where it was), as a
        // change across the libraries it leaves and enters (what their shards had not written back written back
        // first: a version's body may be arriving there): what follows here reads and writes it where it is now, as
        // with one shard.
        if (layout.files.length === 0) continue;
        const file = pick(layout.files, op.file);
        const [from, to] = [layout.folderOf.get(file)!, pick(layout.folders, op.to)];
        const there = await env.DB.prepare("SELECT 1 FROM group_members WHERE el_id = ? AND group_id = ?").bind(file, to).first();
        if (from === to || there) continue;
        const crossing = crossingOver(env, [file, to]);
        await crossing.hold();
        try {
          await env.DB.prepare("UPDATE group_members SET group_id = ? WHERE el_id = ? AND group_id = ?").bind(to, file, from).run();
        } finally {
          await crossing.letGo();
        }
        layout.folderOf.set(file, to);
        break;
      }
      case "rename": {
        if (layout.files.length === 0) continue;
        const res = await call(`/api/asset/${pick(layout.files, op.file)}`, {
          method: "PATCH",
          bearer,
          json: { asset_name: `имя-${i}.txt` },
        });
        outcomes.push(await status(res));
        break;
      }
      case "moveFolder": {
        const movable = layout.folders.slice(LIBRARIES);
        if (movable.length === 0) continue;
        const folder = pick(movable, op.folder);
        const to = pick(layout.folders, op.to);
        const res = await post(`/api/group/move-member/${folder}/${layout.parentOf.get(folder)}/${to}`);
        if (res.ok) layout.parentOf.set(folder, to);
        outcomes.push(await status(res));
        break;
      }
      case "rule": {
        const targets = op.onFile && layout.files.length > 0 ? layout.files : layout.folders;
        const res = await post("/api/user/acl", { subj: readerId, obj: pick(targets, op.target), acl: LEVEL_SETS[op.levels] });
        outcomes.push(await status(res));
        break;
      }
      case "list": {
        if (layout.files.length === 0) continue;
        const file = pick(layout.files, op.file);
        const to = pick(layout.folders, op.to);
        const res = await post(`/api/group/insert-members/${to}`, { members: [{ el_id: file, el_type: "asset" }] });
        outcomes.push(await status(res));
        break;
      }
      case "unlist": {
        if (layout.files.length === 0) continue;
        const file = pick(layout.files, op.file);
        const from = pick(layout.folders, op.from);
        outcomes.push(await status(await call(`/api/group/delete-members/${from}?ids=${file}`, { method: "DELETE", bearer })));
        break;
      }
      case "trashFolder": {
        const trashable = layout.folders.slice(LIBRARIES);
        if (trashable.length === 0) continue;
        outcomes.push(await status(await call(`/api/group/delete/${pick(trashable, op.folder)}`, { method: "DELETE", bearer })));
        break;
      }
      case "trash": {
        if (layout.files.length === 0) continue;
        outcomes.push(await status(await post("/api/asset/delete-list", { ids: [pick(layout.files, op.file)] })));
        break;
      }
      case "restore": {
        const targets = op.folder ? layout.folders.slice(LIBRARIES) : layout.files;
        if (targets.length === 0) continue;
        outcomes.push(await status(await post(`/api/${op.folder ? "group" : "asset"}/restore/${pick(targets, op.target)}`)));
        break;
      }
      case "beginUpload": {
        const version = op.version && layout.files.length > 0;
        const folder = version ? null : pick(layout.folders, op.folder);
        const to: Record<string, string> = folder ? { in_group: folder } : { asset_id: pick(layout.files, op.folder) };
        const text = new TextEncoder().encode(`строка ${i}, пришедшая не сразу\n`);
        const body = new FixedLengthStream(text.byteLength);
        const writer = body.writable.getWriter();
        const name = `поздний-${i}.txt`;
        const answer = call(`/api/asset/upload?${new URLSearchParams({ ...to, name })}`, {
          method: "POST",
          bearer,
          body: body.readable,
          headers: { "content-type": "text/plain" },
        });
        // Refused before its body is read (a file or folder gone meanwhile), an upload answers without taking it.
        await Promise.race([writer.write(text.slice(0, 8)).catch(() => undefined), answer]);
        await untilReceiving(name, shards, answer);
        inFlight.push({ folder, rest: text.slice(8), writer, answer });
        break;
      }
      case "finishUpload": {
        const upload = inFlight.shift();
        if (upload) await finishUpload(upload);
        break;
      }
    }
  }
  for (const upload of inFlight.splice(0)) await finishUpload(upload);
  return { outcomes, layout };
}

/** What `bearer` sees: each folder's listing and each file's answer, in the model's names. */
async function visible(layout: Layout, bearer: string) {
  const name = new Map<string, string>([
    ...layout.folders.map((id, k) => [id, `папка${k}`] as const),
    ...layout.files.map((id, k) => [id, `файл${k}`] as const),
  ]);
  const folders: Record<string, unknown> = {};
  for (const id of layout.folders) {
    const res = await call(`/api/group/members/${id}`, { bearer });
    folders[name.get(id)!] = res.ok
      ? ((await res.json()) as { el_id: string }[]).map((m) => name.get(m.el_id) ?? "?").sort()
      : await status(res);
  }
  const files: Record<string, number> = {};
  for (const id of layout.files) files[name.get(id)!] = await status(await call(`/api/asset/${id}`, { bearer }));
  return { folders, files };
}

describe("one shard or many, across libraries", () => {
  it("answers and shows the same with every library in the catalog and with each in its own shard", async () => {
    const boss = await admin();
    const reader = await ordinaryUser();
    // Printed first: a run that times out prints no counterexample, and its seed replays it (`seed` below).
    const seed = Date.now() % 2 ** 31;
    console.log(JSON.stringify({ property: "library-crossing", seed }));
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 6, maxLength: 14 }), async (ops) => {
        const one = await run(ops, false, boss.bearer, reader.id, boss.id);
        const many = await run(ops, true, boss.bearer, reader.id, boss.id);
        expect(many.outcomes).toEqual(one.outcomes);
        expect(await visible(many.layout, boss.bearer)).toEqual(await visible(one.layout, boss.bearer));
        expect(await visible(many.layout, reader.bearer)).toEqual(await visible(one.layout, reader.bearer));
      }),
      // Always tried too: a reader with read on one library and deny on the other, a file of the first listed in the
      // second — its own library's page showed it from the shard (found in CI, decision 047); and a file another isolate
      // moved out of the library this one remembers it in (found by the visibility tokens' property).
      { numRuns: 10, examples: [[DENIED_ELSEWHERE], [MOVED_ELSEWHERE], [UPLOADED_ELSEWHERE]], seed },
    );
  }, 180_000);
});
