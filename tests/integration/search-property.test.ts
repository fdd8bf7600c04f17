import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canAccess } from "../../workers/services/access";
import { parseQuery } from "../../workers/services/search/query-parser";
import { words } from "../../workers/services/search/tokenize";
import { actorOf, exec, indexed, insertTag, rows, searchRows, tagEntity, testContext } from "./catalog-fixtures";
import { call } from "./factories";
import { AppError } from "../../workers/lib/errors";
import type { Actor } from "../../workers/services/access";
import { searchQuery, type SearchFilters } from "../../workers/services/search";
import { admin, createGroup, insertAsset, ordinaryUser, uniqueName } from "./library-factories";
import { propertyRuns } from "./property-runs";

// `GET /api/search/query` against a simple independent model (decision 031), while writes interleave with the reads:
// recent answers are cached per access class under the search epoch, so every answer — the first, a repeated one
// (served from the cache), and one after a write — must equal what the model computes from scratch. The model takes
// only the index's own matching and bm25 order (one plain FTS5 statement over every match, no joins); visibility
// comes from the per-entity access check (`canAccess`, the JS policy, not the SQL list filter), liveness, tags,
// folders, filters, paging, totals and facets from the scenario kept in JavaScript.

const BASE = ["пляж", "закат", "волна", "маяк"];
const LETTERS = "бвгдклмнпрстфхцчшщ";

interface Entity {
  id: string;
  type: "asset" | "group";
  name: string;
  ownerId: string;
  /** asset: the folders it is listed in; group: its parent */
  folders: string[];
  tags: string[];
  trashed: boolean;
}

interface Answer {
  total: number;
  total_exact: boolean;
  hits: { id: string; type: string; name: string; score: number }[];
  facets?: Record<"type" | "tag" | "owner" | "class", { value: string; count: number }[]>;
  facets_partial?: boolean;
}

interface Query {
  words: number[];
  who: "boss" | "reader";
  filter: "none" | "asset" | "group" | "tag" | "folder";
  skip: number;
  take: number;
  facets: boolean;
}

const queryArb: fc.Arbitrary<Query> = fc.record({
  words: fc.array(fc.nat(BASE.length - 1), { minLength: 1, maxLength: 2 }),
  who: fc.constantFrom("boss" as const, "reader" as const),
  filter: fc.constantFrom("none" as const, "asset" as const, "group" as const, "tag" as const, "folder" as const),
  skip: fc.constantFrom(0, 0, 2, 5),
  take: fc.constantFrom(1, 3, 10, 50),
  facets: fc.boolean(),
});

const scenarioArb = fc.record({
  assets: fc.array(
    fc.record({
      words: fc.array(fc.nat(BASE.length - 1), { minLength: 1, maxLength: 3 }),
      folder: fc.nat(4),
      second: fc.option(fc.nat(4), { nil: undefined }),
      readerOwns: fc.boolean(),
      tags: fc.subarray([0, 1, 2]),
      trashed: fc.boolean(),
    }),
    { minLength: 3, maxLength: 18 },
  ),
  /** the reader's read rules, on folders 0–4 (0 = the top, 1 and 2 below it, 3 below 1, 4 another top) */
  reads: fc.subarray([0, 1, 3, 4], { minLength: 1 }),
  deny: fc.option(fc.constantFrom(2, 3), { nil: undefined }),
  cut: fc.boolean(),
  queries: fc.array(queryArb, { minLength: 2, maxLength: 4 }),
  /** the write between the two rounds of queries */
  write: fc.constantFrom(
    "trash" as const,
    "rename" as const,
    "tag" as const,
    "rule" as const,
    "move" as const,
    "unrule" as const,
    // what moves the index's visibility tokens (decision 039) rather than the rules it is asked with
    "switch" as const,
    "chown" as const,
    "refolder" as const,
  ),
  pick: fc.nat(100),
});

/** A word of letters only, unique to one run, so no other run's data matches its queries. */
function nonce(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(7)), (b) => LETTERS[b % LETTERS.length]).join("");
}

/** Runs of the property; each builds its own folders, files, tags and rules (two libraries). */
const RUNS = propertyRuns(40);

/** The service as the route calls it, in a request context of its own (the route adds rate limits and zod only). */
async function ask(actor: Actor, text: string, filters: SearchFilters, o: { skip: number; take: number; facets: boolean }) {
  try {
    return { status: 200, body: (await searchQuery(testContext(), actor, text, filters, o)) as Answer };
  } catch (error) {
    if (error instanceof AppError) return { status: error.status as number, body: null };
    throw error;
  }
}

/** What a query answers: its status (404 for a folder filter the caller cannot read) and, when 200, the answer. */
type Outcome = { status: 404 } | { status: 200; answer: Answer };

describe("search against an independent model", () => {
  it("answers, repeated answers and answers after writes equal the model", { timeout: 600_000 }, async () => {
    const boss = await admin();
    const reader = await ordinaryUser();
    const readerActor = actorOf({ id: reader.id, login: reader.login, name: reader.name, isAdmin: false });
    const bossActor = actorOf({ id: boss.id, login: "admin", name: "admin", isAdmin: true });

    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const n = nonce();
        const vocab = BASE.map((w) => `${n}${w}`);
        // Folders: 0 top, 1 and 2 in it, 3 in 1, 4 another top; each named with a word, so groups match too.
        const f0 = await createGroup(boss, `${vocab[0]} ${uniqueName("верх")}`);
        const f1 = await createGroup(boss, `${vocab[1]} один`, f0);
        const f2 = await createGroup(boss, `${vocab[2]} два`, f0);
        const f3 = await createGroup(boss, `${vocab[3]} три`, f1);
        const f4 = await createGroup(boss, `${vocab[0]} ${uniqueName("другой")}`);
        const folders = [f0, f1, f2, f3, f4];
        const parents: Record<string, string | null> = { [f0]: null, [f1]: f0, [f2]: f0, [f3]: f1, [f4]: null };
        const tagNames = [`${n}метка`, `${n}отметка`, `${n}ярлык`];
        const tagIds = await Promise.all(tagNames.map((t) => insertTag(t)));
        const entities = new Map<string, Entity>();
        for (const [i, id] of folders.entries()) {
          const [row] = await rows<{ name: string }>("select name from groups where id = ?", id);
          entities.set(id, { id, type: "group", name: row.name, ownerId: boss.id, folders: parents[id] ? [parents[id]] : [], tags: [], trashed: false });
          if (i === 2) {
            await tagEntity(tagIds[0], id, "group");
            entities.get(id)!.tags.push(tagNames[0]);
          }
        }
        for (const [i, a] of s.assets.entries()) {
          const listed = [...new Set([folders[a.folder], ...(a.second === undefined ? [] : [folders[a.second]])])];
          const name = `${a.words.map((w) => vocab[w]).join(" ")} ${i}.jpg`;
          const ownerId = a.readerOwns ? reader.id : boss.id;
          const made = await insertAsset({ ownerId, name, mime: "image/jpeg", groups: listed });
          for (const t of a.tags) await tagEntity(tagIds[t], made.id, "asset");
          if (a.trashed) await exec("update assets set deleted_at = ? where id = ?", Date.now(), made.id);
          entities.set(made.id, { id: made.id, type: "asset", name, ownerId, folders: listed, tags: a.tags.map((t) => tagNames[t]), trashed: a.trashed });
        }
        const rule = async (obj: string, acl: string[]) => {
          const res = await call("/api/user/acl", { method: "POST", bearer: boss.bearer, json: { subj: reader.id, obj, acl } });
          expect(res.status).toBe(201);
        };
        for (const r of s.reads) await rule(folders[r], ["read"]);
        // one rule per subject and object: a deny goes on a folder without a read rule
        if (s.deny !== undefined && !s.reads.includes(s.deny)) await rule(folders[s.deny], ["deny"]);
        if (s.cut) {
          const res = await call(`/api/auth/access-inheritance/${f1}`, { method: "POST", bearer: boss.bearer, json: { inherit: false } });
          expect(res.status).toBe(200);
        }

        /** The folders `id` lies in, itself and every ancestor. */
        const above = (id: string): string[] => (parents[id] ? [id, ...above(parents[id]!)] : [id]);
        const inFolder = (e: Entity, g: string) =>
          e.type === "asset" ? e.folders.some((f) => above(f).includes(g)) : e.folders.length > 0 && above(e.folders[0]).includes(g);

        async function model(q: Query): Promise<Outcome> {
          // a fresh context: the check remembers masks per request, and writes happen between the rounds
          const rc = testContext();
          const reads = (e: { id: string; type: "asset" | "group"; ownerId: string }) => canAccess(rc, readerActor, e, "read");
          if (q.filter === "folder" && q.who === "reader" && !(await reads({ id: f1, type: "group", ownerId: boss.id }))) return { status: 404 };
          const text = q.words.map((w) => vocab[w]).join(" ");
          let match = parseQuery(text).match!;
          if (q.filter === "tag") match = `(${match}) AND meta : "${words(tagNames[1]).join(" ")}"`;
          await indexed();
          // Every shard's matches scored by that shard (decision 042: one shard, or four in vitest.search-shards.config.ts), best first.
          const scored = (
            await searchRows<{ doc_id: number; rank: number }>(
              "select rowid as doc_id, bm25(search_index, 10.0, 4.0, 1.0) as rank from search_index where search_index match ?",
              match,
            )
          ).sort((a, b) => a.rank - b.rank || a.doc_id - b.doc_id);
          const docs = new Map(
            (await rows<{ doc_id: number; id: string; type: "asset" | "group" }>("select doc_id, entity_id as id, entity_type as type from search_docs")).map((d) => [
              d.doc_id,
              d,
            ]),
          );
          const ranked = scored.flatMap((r) => (docs.has(r.doc_id) ? [{ ...r, ...docs.get(r.doc_id)! }] : []));
          const visible: { id: string; rank: number; e: Entity }[] = [];
          for (const r of ranked) {
            const e = entities.get(r.id);
            if (!e || e.trashed) continue;
            if (q.filter === "asset" && e.type !== "asset") continue;
            if (q.filter === "group" && e.type !== "group") continue;
            if (q.filter === "tag" && !e.tags.includes(tagNames[1])) continue;
            if (q.filter === "folder" && (e.id === f1 || !inFolder(e, f1))) continue;
            if (q.who === "reader" && !(await reads({ id: e.id, type: e.type, ownerId: e.ownerId }))) continue;
            visible.push({ id: r.id, rank: r.rank, e });
          }
          const page = visible.slice(q.skip, q.skip + q.take);
          const answer: Answer = {
            total: visible.length,
            total_exact: true,
            hits: page.map((v) => ({ id: v.id, type: v.e.type, name: v.e.name, score: Math.round(-v.rank * 1000) / 1000 })),
          };
          if (q.facets) {
            const count = (values: string[]) => {
              const m = new Map<string, number>();
              for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
              return [...m].map(([value, c]) => ({ value, count: c })).sort((a, b) => a.value.localeCompare(b.value));
            };
            answer.facets = {
              type: count(visible.map((v) => v.e.type)),
              tag: count(visible.flatMap((v) => v.e.tags.map((t) => tagIds[tagNames.indexOf(t)]))),
              owner: count(visible.map((v) => v.e.ownerId)),
              class: [],
            };
            // counted every visible match
            answer.facets_partial = false;
          }
          return { status: 200, answer };
        }

        const got = async (q: Query): Promise<Outcome> => {
          const filters: SearchFilters = { fields: [] };
          if (q.filter === "asset" || q.filter === "group") filters.type = q.filter;
          if (q.filter === "tag") filters.tag = tagNames[1];
          if (q.filter === "folder") filters.group = f1;
          const text = q.words.map((w) => vocab[w]).join(" ");
          const { status, body } = await ask(q.who === "boss" ? bossActor : readerActor, text, filters, { skip: q.skip, take: q.take, facets: q.facets });
          if (status === 404) return { status: 404 };
          expect(status).toBe(200);
          if (!body) throw new Error("no answer");
          const sorted = (list: { value: string; count: number }[]) =>
            list.map(({ value, count }) => ({ value, count })).sort((a, b) => a.value.localeCompare(b.value));
          const answer: Answer = {
            total: body.total,
            total_exact: body.total_exact,
            hits: body.hits.map((h) => ({ id: h.id, type: h.type, name: h.name, score: h.score })),
            ...(body.facets
              ? {
                  facets: { type: sorted(body.facets.type), tag: sorted(body.facets.tag), owner: sorted(body.facets.owner), class: sorted(body.facets.class) },
                  facets_partial: body.facets_partial,
                }
              : {}),
          };
          return { status: 200, answer };
        };

        const round = async (label: string) => {
          for (const q of s.queries) {
            const expected = await model(q);
            // twice: the second answer comes from the cache of recent answers
            expect(await got(q), `${label}, first ${JSON.stringify(q)}`).toEqual(expected);
            expect(await got(q), `${label}, again ${JSON.stringify(q)}`).toEqual(expected);
          }
        };
        await round("before the write");

        // One write between the rounds; the cached answers must not survive it.
        const assets = [...entities.values()].filter((e) => e.type === "asset");
        const target = assets[s.pick % assets.length];
        switch (s.write) {
          case "trash":
            target.trashed = !target.trashed;
            await exec("update assets set deleted_at = ? where id = ?", target.trashed ? Date.now() : null, target.id);
            break;
          case "rename":
            target.name = `${vocab[(s.pick + 1) % vocab.length]} ${vocab[s.pick % vocab.length]} новое.jpg`;
            await exec("update assets set name = ? where id = ?", target.name, target.id);
            break;
          case "tag":
            if (!target.tags.includes(tagNames[1])) {
              target.tags.push(tagNames[1]);
              await tagEntity(tagIds[1], target.id, "asset");
            }
            break;
          case "rule":
            await rule(folders[2], ["read"]).catch(() => undefined);
            await exec("update access_rules set acl = 2 where subj_id = ? and obj_id = ?", reader.id, folders[2]);
            break;
          case "unrule":
            await exec("delete from access_rules where subj_id = ?", reader.id);
            break;
          case "move": {
            const to = folders[(s.pick + 1) % folders.length];
            await exec("delete from group_members where el_id = ?", target.id);
            await exec("insert into group_members (group_id, el_id, el_type, ctime, sort_name) values (?, ?, 'asset', ?, ?)", to, target.id, Date.now(), target.name);
            target.folders = [to];
            break;
          }
          case "switch": {
            const res = await call(`/api/auth/access-inheritance/${f1}`, { method: "POST", bearer: boss.bearer, json: { inherit: s.cut } });
            expect(res.status).toBe(200);
            break;
          }
          case "chown":
            target.ownerId = target.ownerId === reader.id ? boss.id : reader.id;
            await exec("update assets set owner_id = ? where id = ?", target.ownerId, target.id);
            break;
          case "refolder": {
            // folder 3 (with what it holds) from below 1 to below 4: other ancestors, another cut above it
            const res = await call(`/api/group/move-member/${f3}/${f1}/${f4}`, { method: "POST", bearer: boss.bearer });
            expect(res.status).toBe(204);
            parents[f3] = f4;
            entities.get(f3)!.folders = [f4];
            break;
          }
        }
        await round(`after ${s.write}`);
        // The reader's rules go, so the next run starts from none.
        await exec("delete from access_rules where subj_id = ?", reader.id);
      }),
      { numRuns: RUNS },
    );
  });
});
