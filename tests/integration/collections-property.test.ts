import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COLLECTION_SEEK_SPACING } from "../../workers/db/repositories/collection-seek.repository";
import { admin, createGroup, insertAsset, ordinaryUser, send, uniqueName } from "./library-factories";
import { propertyRuns } from "./property-runs";

/**
 * Collections are never wider than the files' own rights (decision record 034), as a property: random sequences of
 * collection calls (create, add, remove, share, unshare) by three users and rule changes by the administrator (grant
 * or revoke read on folders and files, to users and to a group of users) go through the API. A small model written
 * here — owners, folder memberships, read rules, collection members and orders; it shares no code with the access
 * policy — says what every call must answer and, after each step, exactly what every user's item pages show: only
 * files the model says he may read, in collection order, with `hidden` the exact number of the others, and the same
 * 404 as for nothing on a collection he does not hold.
 *
 * Deep pages (decision record 034, «Readable-item checkpoints»): the first collection also holds PADDING more of
 * alice's files in folder 0, after the prelude's two, so its readers' deep pages start from their checkpoints, and
 * every step (a rule, a file moved between alice's folders, trashed or restored, items added, removed or reordered)
 * meets lists built before it. After each step every holder's deep pages of it must equal the model's.
 */

const USERS = ["alice", "bob", "carol"] as const;
type UserIx = 0 | 1 | 2;
/** Rule subjects: the three users and «team», a group of users holding carol. */
const SUBJECTS = 4;
/** Files 0–3 are alice's (0, 1 in folder 0; 2, 3 in folder 1, at the start), file 4 is bob's (folder 2). */
const FILE_FOLDER = [0, 0, 1, 1, 2];
const FILE_OWNER: UserIx[] = [0, 0, 0, 0, 1];
/** alice's files in folder 0 behind the first collection's prelude items: two checkpoints and a bit. */
const PADDING = 2 * COLLECTION_SEEK_SPACING + 10;
const ROLES = ["view", "comment", "edit"] as const;
type Role = (typeof ROLES)[number];

type Step =
  | { op: "create"; by: UserIx }
  /** `asOwner`: the call is made by the collection's owner instead of `by` (owners share far more often than chance) */
  | { op: "add"; by: UserIx; asOwner: boolean; c: number; files: number[] }
  | { op: "remove"; by: UserIx; asOwner: boolean; c: number; files: number[] }
  | { op: "share"; by: UserIx; asOwner: boolean; c: number; subj: number; role: Role }
  | { op: "unshare"; by: UserIx; asOwner: boolean; c: number; subj: number }
  | { op: "reorder"; by: UserIx; asOwner: boolean; c: number; files: number[] }
  | { op: "grant"; subj: number; folder: boolean; target: number }
  | { op: "revoke"; pick: number }
  /** one of alice's files 0–3 moved between her folders 0 and 1 */
  | { op: "move"; file: number }
  /** a file to the trash by its owner, or back */
  | { op: "trash"; file: number };

const userArb = fc.constantFrom<UserIx>(0, 1, 2);
const filesArb = fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 4 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("create" as const), by: userArb }),
  fc.record({ op: fc.constant("add" as const), by: userArb, asOwner: fc.boolean(), c: fc.nat(3), files: filesArb }),
  fc.record({ op: fc.constant("remove" as const), by: userArb, asOwner: fc.boolean(), c: fc.nat(3), files: filesArb }),
  fc.record({ op: fc.constant("share" as const), by: userArb, asOwner: fc.boolean(), c: fc.nat(3), subj: fc.integer({ min: 0, max: 3 }), role: fc.constantFrom(...ROLES) }),
  fc.record({ op: fc.constant("unshare" as const), by: userArb, asOwner: fc.boolean(), c: fc.nat(3), subj: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ op: fc.constant("grant" as const), subj: fc.integer({ min: 0, max: SUBJECTS - 1 }), folder: fc.boolean(), target: fc.nat(4) }),
  fc.record({ op: fc.constant("revoke" as const), pick: fc.nat(20) }),
  fc.record({ op: fc.constant("reorder" as const), by: userArb, asOwner: fc.boolean(), c: fc.nat(3), files: filesArb }),
  fc.record({ op: fc.constant("move" as const), file: fc.nat(3) }),
  fc.record({ op: fc.constant("trash" as const), file: fc.nat(4) }),
);

interface ModelCollection {
  id: string;
  owner: UserIx;
  items: number[];
  members: Map<number, Role>;
}

interface Model {
  /** read rules: `${subj}:${folder ? "g" : "a"}:${target}` → rule id */
  rules: Map<string, string>;
  collections: ModelCollection[];
  /** each file's folder (files 0–3 move; the padding stays in folder 0) */
  folder: number[];
  /** files in the trash: listed nowhere, neither shown nor hidden */
  trashed: Set<number>;
}

/** The subjects a user acts as: himself, and «team» for carol. */
const subjectsOf = (u: UserIx) => (u === 2 ? [2, 3] : [u]);

const ownerOf = (file: number): UserIx => FILE_OWNER[file] ?? 0;

function mayRead(m: Model, u: UserIx, file: number): boolean {
  if (ownerOf(file) === u) return true;
  return subjectsOf(u).some((s) => m.rules.has(`${s}:a:${file}`) || m.rules.has(`${s}:g:${m.folder[file]}`));
}

/** The user's role on a collection: 4 owner, 3 edit, 2 comment, 1 view, 0 none. */
function rankOn(c: ModelCollection, u: UserIx): number {
  if (c.owner === u) return 4;
  return Math.max(0, ...subjectsOf(u).map((s) => (c.members.has(s) ? ROLES.indexOf(c.members.get(s)!) + 1 : 0)));
}

const refusal = (rank: number, need: number) => (rank === 0 ? 404 : rank < need ? 403 : 200);

describe("collections never show an item its reader cannot read", () => {
  it("random collection, sharing and rule calls agree with the model, and every page is exact", async () => {
    const boss = await admin();
    let checks = 0;
    // pages of members with some items hidden: the cases the property is about must actually occur
    let hiddenSeen = 0;
    // deep pages checked, and those of them that showed items
    let deepChecks = 0;
    let deepItems = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 3, maxLength: 12 }), async (plan) => {
        const users = await Promise.all(USERS.map((n) => ordinaryUser(n)));
        const folders = [
          await createGroup(users[0], uniqueName("Альфа")),
          await createGroup(users[0], uniqueName("Бета")),
          await createGroup(users[1], uniqueName("Боб")),
        ];
        const team = await createGroup(boss, uniqueName("Команда"));
        expect((await send("POST", `/api/group/users/${team}`, boss.bearer, { users: [users[2].id] })).status).toBe(200);
        const files: string[] = [];
        for (let f = 0; f < FILE_FOLDER.length; f++) {
          files.push((await insertAsset({ ownerId: users[FILE_OWNER[f]].id, groups: [folders[FILE_FOLDER[f]]], name: `f${f}.jpg` })).id);
        }
        const padding = await Promise.all(
          Array.from({ length: PADDING }, (_, k) => insertAsset({ ownerId: users[0].id, groups: [folders[0]], name: `p${k}.jpg`, size: null }).then((a) => a.id)),
        );
        files.push(...padding);
        const subjId = (s: number) => (s === 3 ? team : users[s].id);
        const m: Model = {
          rules: new Map(),
          collections: [],
          folder: [...FILE_FOLDER, ...padding.map(() => 0)],
          trashed: new Set(),
        };
        // Every collection user may share with «team»: make it readable to the three of them (a group subject must be
        // one the caller may read) with a rule on the group itself, which reaches no file.
        for (const u of users) expect((await send("POST", "/api/user/acl", boss.bearer, { subj: u.id, obj: team, acl: ["read"] })).status).toBe(201);

        async function expectPages(step: Step | "start") {
          for (const c of m.collections) {
            for (const u of [0, 1, 2] as UserIx[]) {
              const res = await send<{ total: number; hidden: number; items: { asset_id: string }[] }>(
                "GET",
                `/api/collections/${c.id}/items?take=500`,
                users[u].bearer,
              );
              const label = `${JSON.stringify(step)} ${USERS[u]} on ${m.collections.indexOf(c)}`;
              if (rankOn(c, u) === 0) {
                expect(res.status, label).toBe(404);
                continue;
              }
              expect(res.status, label).toBe(200);
              const live = c.items.filter((f) => !m.trashed.has(f));
              const readable = live.filter((f) => mayRead(m, u, f));
              expect(res.body.items.map((i) => i.asset_id), label).toEqual(readable.map((f) => files[f]));
              expect(res.body.total, label).toBe(readable.length);
              expect(res.body.hidden, label).toBe(live.length - readable.length);
              checks += 1;
              if (readable.length < live.length) hiddenSeen += 1;
              if (c !== m.collections[0]) continue;
              // deep pages: from the checkpoints of this user's list, built by the previous step's pages
              for (const skip of new Set([COLLECTION_SEEK_SPACING, Math.max(COLLECTION_SEEK_SPACING, readable.length - 3)])) {
                const deep = await send<{ total: number; hidden: number; items: { asset_id: string }[] }>(
                  "GET",
                  `/api/collections/${c.id}/items?skip=${skip}&take=50`,
                  users[u].bearer,
                );
                expect(deep.status, label).toBe(200);
                expect({ ...deep.body, items: deep.body.items.map((i) => i.asset_id) }, `${label} skip ${skip}`).toEqual({
                  total: readable.length,
                  hidden: live.length - readable.length,
                  items: readable.slice(skip, skip + 50).map((f) => files[f]),
                });
                deepChecks += 1;
                if (readable.length > skip) deepItems += 1;
              }
            }
          }
        }

        // Every run starts with a collection of alice's shared with bob, so each step has something to act on and
        // hidden items are common, not a rare draw.
        const prelude: Step[] = [
          { op: "create", by: 0 },
          { op: "share", by: 0, asOwner: true, c: 0, subj: 1, role: "view" },
          { op: "add", by: 0, asOwner: true, c: 0, files: [0, 2] },
          { op: "add", by: 0, asOwner: true, c: 0, files: padding.map((_, k) => FILE_FOLDER.length + k) },
        ];
        for (const step of [...prelude, ...plan]) {
          const pick = (i: number) => m.collections[i % Math.max(1, m.collections.length)];
          if (step.op === "create") {
            const res = await send<{ collection_id: string }>("POST", "/api/collections", users[step.by].bearer, { name: "Подборка" });
            expect(res.status).toBe(201);
            m.collections.push({ id: res.body.collection_id, owner: step.by, items: [], members: new Map() });
          } else if (step.op === "move") {
            if (m.trashed.has(step.file)) continue;
            const [from, to] = [m.folder[step.file], 1 - m.folder[step.file]];
            const res = await send("POST", `/api/group/move-member/${files[step.file]}/${folders[from]}/${folders[to]}`, users[0].bearer);
            expect(res.status, JSON.stringify([step, res.body])).toBeLessThan(300);
            m.folder[step.file] = to;
          } else if (step.op === "trash") {
            const bearer = users[ownerOf(step.file)].bearer;
            const id = files[step.file];
            const res = m.trashed.has(step.file) ? await send("POST", `/api/asset/restore/${id}`, bearer) : await send("DELETE", `/api/asset/${id}`, bearer);
            expect(res.status, JSON.stringify([step, res.body])).toBeLessThan(300);
            if (m.trashed.has(step.file)) m.trashed.delete(step.file);
            else m.trashed.add(step.file);
          } else if (step.op === "grant" || step.op === "revoke") {
            if (step.op === "grant") {
              // a rule needs a live object
              if (!step.folder && m.trashed.has(step.target)) continue;
              const key = `${step.subj}:${step.folder ? "g" : "a"}:${step.folder ? step.target % 3 : step.target}`;
              if (m.rules.has(key)) continue;
              const obj = step.folder ? folders[step.target % 3] : files[step.target];
              const res = await send<{ rule_id: string }>("POST", "/api/user/acl", boss.bearer, { subj: subjId(step.subj), obj, acl: ["read"] });
              expect(res.status, JSON.stringify(res.body)).toBe(201);
              m.rules.set(key, res.body.rule_id);
            } else {
              const keys = [...m.rules.keys()];
              if (keys.length === 0) continue;
              const key = keys[step.pick % keys.length];
              const res = await send("DELETE", `/api/user/acl/${m.rules.get(key)}`, boss.bearer);
              expect(res.status).toBeLessThan(300);
              m.rules.delete(key);
            }
          } else {
            const c = pick(step.c);
            if (!c) continue;
            const by = step.asOwner ? c.owner : step.by;
            const rank = rankOn(c, by);
            const bearer = users[by].bearer;
            if (step.op === "add") {
              const res = await send("POST", `/api/collections/${c.id}/items`, bearer, { asset_ids: step.files.map((f) => files[f]) });
              const expected = rank < 3 ? refusal(rank, 3) : step.files.every((f) => mayRead(m, by, f) && !m.trashed.has(f)) ? 200 : 404;
              expect(res.status, JSON.stringify([step, res.body])).toBe(expected);
              if (expected === 200) for (const f of step.files) if (!c.items.includes(f)) c.items.push(f);
            } else if (step.op === "remove") {
              const res = await send("POST", `/api/collections/${c.id}/remove-items`, bearer, { asset_ids: step.files.map((f) => files[f]) });
              const expected = refusal(rank, 3);
              expect(res.status, JSON.stringify([step, res.body])).toBe(expected);
              if (expected === 200) c.items = c.items.filter((f) => !step.files.includes(f));
            } else if (step.op === "reorder") {
              const res = await send("PUT", `/api/collections/${c.id}/order`, bearer, { asset_ids: step.files.map((f) => files[f]) });
              const expected = refusal(rank, 3);
              expect(res.status, JSON.stringify([step, res.body])).toBe(expected);
              if (expected === 200) {
                const first = step.files.filter((f) => c.items.includes(f));
                c.items = [...first, ...c.items.filter((f) => !first.includes(f))];
              }
            } else if (step.op === "share") {
              const res = await send("PUT", `/api/collections/${c.id}/members`, bearer, {
                subj: subjId(step.subj),
                subj_type: step.subj === 3 ? "group" : "user",
                role: step.role,
              });
              const expected = rank < 4 ? refusal(rank, 4) : step.subj === c.owner ? 400 : 200;
              expect(res.status, JSON.stringify([step, res.body])).toBe(expected);
              if (expected === 200) c.members.set(step.subj, step.role);
            } else {
              const res = await send("DELETE", `/api/collections/${c.id}/members/${subjId(step.subj)}`, bearer);
              const leaving = step.subj === by;
              const expected = leaving ? refusal(rank, 1) : refusal(rank, 4);
              expect(res.status, JSON.stringify([step, res.body])).toBe(expected);
              if (expected === 200) c.members.delete(step.subj);
            }
          }
          await expectPages(step);
        }
      }),
      { numRuns: propertyRuns(15) },
    );
    expect(checks, `hidden pages ${hiddenSeen}`).toBeGreaterThan(80);
    expect(hiddenSeen, `hidden pages among ${checks}`).toBeGreaterThan(10);
    expect(deepItems, `deep pages with items among ${deepChecks}`).toBeGreaterThan(40);
  }, 600_000);
});
