import { describe, expect, it } from "vitest";
import { newId } from "../../workers/lib/ids";
import { exec } from "./catalog-fixtures";
import { call } from "./factories";
import { admin, createGroup, ordinaryUser, uniqueName, type Caller } from "./library-factories";
import { TOTAL_CAP } from "../../workers/services/search/search.service";

/**
 * Search over more matches than the count sample (decision 011): the page is ranked on the index first and joined
 * after, the total counts visible matches only, exactly up to 1,000 and "1000+" past it (issue 24; exact at the end
 * of the list), facets count the best 1,000, and paging walks every visible match exactly once, for the administrator
 * and for a user who sees a ninth of them.
 */

interface Result {
  total: number;
  total_exact: boolean;
  hits: { id: string; name: string; score: number }[];
  facets?: Record<string, { value: string; count: number }[]>;
  facets_partial?: boolean;
}

const MATCHES = 1300;

async function search(who: Caller, q: string, params: Record<string, string>): Promise<Result> {
  const res = await call(`/api/search/query/${encodeURIComponent(q)}?${new URLSearchParams(params)}`, { bearer: who.bearer });
  const body = (await res.json()) as Result;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** Every hit id, page by page. */
async function allPages(who: Caller, q: string): Promise<string[]> {
  const out: string[] = [];
  for (let skip = 0; ; skip += 200) {
    const page = await search(who, q, { skip: String(skip), take: "200" });
    out.push(...page.hits.map((h) => h.id));
    if (page.hits.length < 200) return out;
  }
}

/**
 * MATCHES assets named after one rare word, seeded in SQL (the index triggers keep the documents): every ninth in
 * a folder a reader may read, the rest in a closed one. Some carry the word twice, so ranks differ.
 */
async function corpus() {
  const boss = await admin();
  const word = `квазар${newId().slice(-6).replace(/\d/g, "ж")}`;
  const open = await createGroup(boss, uniqueName("Открытая"));
  const closed = await createGroup(boss, uniqueName("Закрытая"));
  const now = Date.now();
  // ids are a random prefix and the number n in decimal digits (valid hex), so both statements can name asset n
  const prefix = newId().slice(0, 24);
  const seq = `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${MATCHES - 1})`;
  await exec(
    `${seq} INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
     SELECT printf('%s%08d', ?1, n), ?2 || ' ' || CASE WHEN n % 5 = 0 THEN ?2 || ' ' ELSE '' END || n || '.jpg',
       'image/jpeg', ?3, ?3, 1, ?4, ?4, ?4 FROM seq`,
    prefix,
    word,
    boss.id,
    now,
  );
  await exec(
    `${seq} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name)
     SELECT CASE WHEN n % 9 = 0 THEN ?2 ELSE ?3 END, printf('%s%08d', ?1, n), 'asset', ?4, printf('%08d', n) FROM seq`,
    prefix,
    open,
    closed,
    now,
  );
  const reader = await ordinaryUser();
  const rule = await call("/api/user/acl", { method: "POST", bearer: boss.bearer, json: { subj: reader.id, obj: open, acl: ["read"] } });
  expect(rule.status).toBe(201);
  return { boss, reader, word, visibleToReader: Math.ceil(MATCHES / 9) };
}

describe("search over many matches", () => {
  it("ranks a page on the index first, caps the total at 1000+ and is exact at the end", async () => {
    const { boss, word } = await corpus();
    const first = await search(boss, word, { take: "20" });
    expect(first.hits).toHaveLength(20);
    expect(first.total_exact).toBe(false);
    expect(first.total).toBe(TOTAL_CAP);
    // bm25 over every match: the names carrying the word twice (every fifth) come first, wherever they lie in the index
    const twice = (name: string) => name.split(word).length === 3;
    expect(first.hits.every((h) => twice(h.name))).toBe(true);
    const last = await search(boss, word, { take: "20", skip: String(MATCHES - 20) });
    expect(last).toMatchObject({ total: MATCHES, total_exact: true });
    expect(last.hits.some((h) => twice(h.name))).toBe(false);

    const ids = await allPages(boss, word);
    expect(ids).toHaveLength(MATCHES);
    expect(new Set(ids).size).toBe(MATCHES);
  });

  it("counts facets over the best 1,000 and says so", async () => {
    const { boss, word } = await corpus();
    const found = await search(boss, word, { take: "5", facets: "true" });
    expect(found.facets_partial).toBe(true);
    expect(found.facets?.type).toEqual([{ value: "asset", label: expect.any(String), count: 1000 }]);
  });

  it("a user who sees a ninth of the matches gets exactly those, and an exact total of them", async () => {
    const { reader, word, visibleToReader } = await corpus();
    const first = await search(reader, word, { take: "20" });
    expect(first.hits).toHaveLength(20);
    expect(first).toMatchObject({ total: visibleToReader, total_exact: true });
    const ids = await allPages(reader, word);
    expect(ids).toHaveLength(visibleToReader);
    expect(new Set(ids).size).toBe(visibleToReader);
    const last = await search(reader, word, { take: "20", skip: String(visibleToReader - 5) });
    expect(last).toMatchObject({ total: visibleToReader, total_exact: true });
    expect(last.hits).toHaveLength(5);
  });

  it("never counts hidden matches: adding files the reader cannot see leaves his total as it was", async () => {
    const { boss, reader, word, visibleToReader } = await corpus();
    const before = await search(reader, word, { take: "20" });
    expect(before).toMatchObject({ total: visibleToReader, total_exact: true });
    // another 2,000 files with the word, all hidden from the reader (and ranked above his: the word twice)
    const hidden = await createGroup(boss, uniqueName("Скрытая"));
    const prefix = newId().slice(0, 24);
    const seq = `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < 1999)`;
    await exec(
      `${seq} INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
       SELECT printf('%s%08d', ?1, n), ?2 || ' ' || ?2 || ' скрыт ' || n || '.jpg', 'image/jpeg', ?3, ?3, 1, 0, 0, 0 FROM seq`,
      prefix,
      word,
      boss.id,
    );
    await exec(
      `${seq} INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name) SELECT ?2, printf('%s%08d', ?1, n), 'asset', 0, printf('%08d', n) FROM seq`,
      prefix,
      hidden,
    );
    for (const skip of ["0", "40", "140", "400"]) {
      const after = await search(reader, word, { take: "20", skip });
      expect(after.total, `skip ${skip}`).toBe(visibleToReader);
      expect(after.total_exact).toBe(true);
    }
    expect((await search(reader, word, { take: "20" })).hits.map((h) => h.id)).toEqual(before.hits.map((h) => h.id));
  });
});
