import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { docsByShard, mergeSorted, shardOf, shardPositions } from "../../workers/db/repositories/search-index.repository";
import { shardGap } from "../../scripts/deploy-check.mjs";
import { searchShardsOf } from "../../scripts/search-shards-config.mjs";

// The search index's shards (decision 042): what one shard answers must be what the merge of many answers.

const byRank = (a: { doc_id: number; rank: number }, b: { doc_id: number; rank: number }) => a.rank - b.rank || a.doc_id - b.doc_id;
const docIdOf = (r: { doc_id: number }) => r.doc_id;

describe("search index shards", () => {
  it("the merge of each shard's best equals the best of one index, each document once", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ doc_id: fc.nat(10_000), rank: fc.integer({ min: -50, max: 0 }) }), {
          selector: (r) => r.doc_id,
          maxLength: 200,
        }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 250 }),
        fc.subarray([0, 1, 2, 3, 4, 5, 6, 7]),
        (docs, n, limit, copied) => {
          const lists = Array.from({ length: n }, (_, i) =>
            docs
              // a rebuild under way: some shards still hold a copy of documents another shard owns
              .filter((d) => shardOf(d.doc_id, n) === i || (copied.includes(i) && d.doc_id % 3 === 0))
              .sort(byRank)
              .slice(0, limit),
          );
          expect(mergeSorted(lists, byRank, limit, docIdOf)).toEqual([...docs].sort(byRank).slice(0, limit));
        },
      ),
    );
  });

  it("documents go to shard id mod n, each to one", () => {
    expect(docsByShard([0, 1, 2, 3, 4, 9, 12], 4)).toEqual([[0, 4, 12], [1, 9], [2], [3]]);
    expect(docsByShard([5, 7], 1)).toEqual([[5, 7]]);
  });

  it("a page's rows lie inside each shard's highlighted positions, with slack to spare", () => {
    expect(shardPositions({ skip: 20, take: 51 }, 1)).toEqual({ skip: 20, take: 51 });
    expect(shardPositions({ skip: 0, take: 51 }, 4)).toEqual({ skip: 0, take: 23 });
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 8 }), fc.nat(2000), fc.integer({ min: 1, max: 101 }), fc.nat(), (n, skip, take, seed) => {
        const w = shardPositions({ skip, take }, n);
        // never past what the whole page could need from one shard
        expect(w.skip + w.take).toBeLessThanOrEqual(skip + take);
        expect(w.take).toBeGreaterThan(0);
        // with documents spread evenly (ids in sequence), every page row falls inside its shard's window
        const shardAt = (p: number) => (p + seed) % n;
        const local = new Map<number, number>();
        for (let p = 0; p < skip + take; p++) {
          const s = shardAt(p);
          const q = local.get(s) ?? 0;
          local.set(s, q + 1);
          if (p >= skip) expect(q >= w.skip && q < w.skip + w.take, `position ${p} is ${q} in its shard`).toBe(true);
        }
      }),
    );
  });

  it("the deploy check compares the shards each Worker binds", () => {
    expect(searchShardsOf(["DB", "SEARCH_1", "SEARCH", "MEDIA", "SEARCHER"])).toEqual(["SEARCH", "SEARCH_1"]);
    // and refuses a shard the Workers would never reach
    expect(shardGap(["SEARCH", "SEARCH_1", "SEARCH_2"])).toBeNull();
    expect(shardGap(["SEARCH", "SEARCH_2"])).toBe("SEARCH_2");
    expect(shardGap(["SEARCH", "SEARCH_1", "SEARCH_3"])).toBe("SEARCH_3");
  });
});
