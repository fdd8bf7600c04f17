import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createUser, expectError, signIn, signInAdmin } from "./factories";

/** Every POST from its own address, so the per-IP limit of the `pqi` bucket never mixes the cases of this file. */
let ip = 0;
function answer(bearer: string, json: unknown) {
  ip += 1;
  return call("/api/pqi", { method: "POST", bearer, json, headers: { "cf-connecting-ip": `203.0.113.${ip}` } });
}

async function rowsOf(userId: string) {
  return (
    await env.DB.prepare("select rating, comment, ctime from pqi_answers where user_id = ? order by ctime")
      .bind(userId)
      .all<{ rating: number; comment: string | null; ctime: number }>()
  ).results;
}

interface Summary {
  answered: number;
  refused: number;
  average: number | null;
  nps: number | null;
  promoters: number;
  passives: number;
  detractors: number;
  distribution: { rating: number; count: number }[];
  series: { period: string; answered: number; nps: number | null }[];
}

describe("POST /api/pqi", () => {
  it("stores the rating, the trimmed comment, the user and the time", async () => {
    const user = await signIn();
    const before = Date.now();
    const res = await answer(user.bearer, { rating: 8, comment: "  Удобный поиск  " });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: string; ctime: string };
    expect(body.id).toMatch(/^[0-9a-f]{32}$/);
    const [row] = await rowsOf(user.id);
    expect(row).toMatchObject({ rating: 8, comment: "Удобный поиск" });
    expect(row.ctime).toBeGreaterThanOrEqual(before);
    expect(new Date(body.ctime).getTime()).toBe(row.ctime);
  });

  it("takes 0 as a refusal without a comment", async () => {
    const user = await signIn();
    expect((await answer(user.bearer, { rating: 0 })).status).toBe(201);
    expect(await rowsOf(user.id)).toMatchObject([{ rating: 0, comment: null }]);
  });

  it.each([
    [{ rating: 11 }, "rating"],
    [{ rating: -1 }, "rating"],
    [{ rating: 7.5 }, "rating"],
    [{ rating: "9" }, "rating"],
    [{}, "rating"],
    [{ rating: 5, comment: "я".repeat(2001) }, "comment"],
    [{ rating: 5, comment: 42 }, "comment"],
  ])("refuses %j with 400 naming «%s» and stores nothing", async (json, field) => {
    const user = await signIn();
    const error = await expectError(await answer(user.bearer, json), 400);
    expect(error.message).toContain(`«${field}»`);
    expect(await rowsOf(user.id)).toEqual([]);
  });

  it("accepts a comment of exactly 2000 characters", async () => {
    const user = await signIn();
    expect((await answer(user.bearer, { rating: 10, comment: "ё".repeat(2000) })).status).toBe(201);
  });

  it("answers 401 without a bearer and 403 for a robot token", async () => {
    await expectError(await call("/api/pqi", { method: "POST", json: { rating: 5 } }), 401);
    const admin = await signInAdmin();
    const robot = await createUser({ isRobot: true });
    const created = await call(`/api/user/${robot.id}/tokens`, { method: "POST", bearer: admin.bearer, json: { name: "Опрос" } });
    const { token } = (await created.json()) as { token: string };
    await expectError(await answer(token, { rating: 9 }), 403);
    expect(await rowsOf(robot.id)).toEqual([]);
  });

  it("takes one answer per person per 30 days: a second one is 429 with Retry-After, another person is not held", async () => {
    const user = await signIn();
    const other = await signIn();
    expect((await answer(user.bearer, { rating: 9 })).status).toBe(201);
    const second = await answer(user.bearer, { rating: 1, comment: "ещё раз" });
    const error = await expectError(second, 429);
    expect(error.message).toMatch(/уже ответили/);
    const retry = Number(second.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(29 * 86_400);
    expect(retry).toBeLessThanOrEqual(30 * 86_400);
    expect(await rowsOf(user.id)).toMatchObject([{ rating: 9 }]);
    expect((await answer(other.bearer, { rating: 3 })).status).toBe(201);
  });

  it("lets a person answer again once 30 days have passed", async () => {
    const user = await signIn();
    const old = Date.now() - 31 * 86_400_000;
    await env.DB.prepare("insert into pqi_answers (id, user_id, ctime, rating) values (?, ?, ?, 6)")
      .bind("f".repeat(31) + "1", user.id, old)
      .run();
    expect((await answer(user.bearer, { rating: 7 })).status).toBe(201);
    expect((await rowsOf(user.id)).map((r) => r.rating)).toEqual([6, 7]);
  });

  it("two answers sent at once store one", async () => {
    const user = await signIn();
    const results = await Promise.all([answer(user.bearer, { rating: 4 }), answer(user.bearer, { rating: 5 })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 429]);
    expect(await rowsOf(user.id)).toHaveLength(1);
  });
});

describe("GET /api/pqi/summary and /api/pqi/comments", () => {
  it("summarises answers of a window by month: distribution, bands, NPS and refusals", async () => {
    const admin = await signInAdmin();
    // A window of its own in the past (2001), so the answers of the other cases do not count.
    const users = await Promise.all([1, 2, 3, 4, 5, 6].map(() => createUser()));
    const rows: [number, string, number, string | null][] = [
      [Date.UTC(2001, 0, 10), users[0].id, 10, "Отлично"],
      [Date.UTC(2001, 0, 11), users[1].id, 9, null],
      [Date.UTC(2001, 0, 12), users[2].id, 3, "Медленно открываются видео"],
      [Date.UTC(2001, 1, 3), users[3].id, 7, null],
      [Date.UTC(2001, 1, 4), users[4].id, 2, null],
      [Date.UTC(2001, 1, 5), users[5].id, 0, null],
    ];
    await env.DB.batch(
      rows.map(([ctime, userId, rating, comment], i) =>
        env.DB.prepare("insert into pqi_answers (id, user_id, ctime, rating, comment) values (?, ?, ?, ?, ?)").bind(
          `${"e".repeat(31)}${i}`,
          userId,
          ctime,
          rating,
          comment,
        ),
      ),
    );
    const res = await call("/api/pqi/summary?from=2001-01-01&to=2001-12-31", { bearer: admin.bearer });
    expect(res.status).toBe(200);
    const s = (await res.json()) as Summary;
    // 5 ratings: promoters 10, 9; passive 7; detractors 3, 2 → (2 − 2) / 5 = 0
    expect(s).toMatchObject({ answered: 5, refused: 1, promoters: 2, passives: 1, detractors: 2, nps: 0, average: 6.2 });
    expect(s.distribution).toHaveLength(11);
    expect(s.distribution.filter((d) => d.count > 0)).toEqual([
      { rating: 0, count: 1 },
      { rating: 2, count: 1 },
      { rating: 3, count: 1 },
      { rating: 7, count: 1 },
      { rating: 9, count: 1 },
      { rating: 10, count: 1 },
    ]);
    // January: 10, 9, 3 → (2 − 1) / 3 = 33; February: 7, 2 (and a refusal) → (0 − 1) / 2 = −50
    expect(s.series.map((p) => [p.period, p.answered, p.nps])).toEqual([
      ["2001-01", 3, 33],
      ["2001-02", 2, -50],
    ]);

    const weekly = (await (
      await call("/api/pqi/summary?from=2001-01-01&to=2001-01-31&period=week", { bearer: admin.bearer })
    ).json()) as Summary;
    expect(weekly.series.map((p) => p.period)).toEqual(["2001-W02"]);

    const page = await call("/api/pqi/comments?from=2001-01-01&to=2001-12-31&take=1", { bearer: admin.bearer });
    expect(page.headers.get("x-total-count")).toBe("2");
    const comments = (await page.json()) as { rating: number; comment: string; user_name: string }[];
    expect(comments).toEqual([expect.objectContaining({ rating: 3, comment: "Медленно открываются видео", user_name: users[2].name })]);
    const next = (await (await call("/api/pqi/comments?from=2001-01-01&to=2001-12-31&take=1&skip=1", { bearer: admin.bearer })).json()) as {
      comment: string;
    }[];
    expect(next.map((c) => c.comment)).toEqual(["Отлично"]);
  });

  it("an empty window has no score", async () => {
    const admin = await signInAdmin();
    const s = (await (await call("/api/pqi/summary?from=1990-01-01&to=1990-12-31", { bearer: admin.bearer })).json()) as Summary;
    expect(s).toMatchObject({ answered: 0, refused: 0, nps: null, average: null, series: [] });
  });

  it("refuses a user who is not an administrator (403) and bad queries (400)", async () => {
    const user = await signIn();
    await expectError(await call("/api/pqi/summary", { bearer: user.bearer }), 403);
    await expectError(await call("/api/pqi/comments", { bearer: user.bearer }), 403);
    await expectError(await call("/api/pqi/summary"), 401);
    const admin = await signInAdmin();
    expect((await expectError(await call("/api/pqi/summary?period=year", { bearer: admin.bearer }), 400)).message).toContain("«period»");
    expect((await expectError(await call("/api/pqi/comments?take=100000", { bearer: admin.bearer }), 400)).message).toContain("«take»");
    expect((await expectError(await call("/api/pqi/comments?from=вчера", { bearer: admin.bearer }), 400)).message).toContain("«from»");
  });

  it("keeps the answers of a deleted account in the summary, without its name", async () => {
    const admin = await signInAdmin();
    const gone = await createUser();
    await env.DB.prepare("insert into pqi_answers (id, user_id, ctime, rating, comment) values (?, ?, ?, 10, 'Было хорошо')")
      .bind(`${"d".repeat(31)}1`, gone.id, Date.UTC(1999, 5, 1))
      .run();
    await env.DB.prepare("delete from users where id = ?").bind(gone.id).run();
    const [c] = (await (await call("/api/pqi/comments?from=1999-01-01&to=1999-12-31", { bearer: admin.bearer })).json()) as {
      user_id: string | null;
      user_name: string | null;
    }[];
    expect(c).toMatchObject({ user_id: null, user_name: null });
  });
});
