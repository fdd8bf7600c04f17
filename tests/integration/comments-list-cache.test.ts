import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { roundTripsOf } from "../../workers/db/round-trips";
import { ROUND_TRIP_BUDGETS } from "../../workers/lib/round-trip-budget";
import { TIMING_KEY_HEADER } from "../../workers/lib/server-timing";
import { grant, mediaAsset, postComment, revoke } from "./comments-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";

/**
 * A file's comment list kept per comment revision (decision 035, migration 0052): a repeated list is answered from
 * memory, never after a change it shows, never to a caller who may not read the file, and never with another
 * caller's own fields.
 */

interface Listed {
  status: number;
  text: string;
  encoding: string | null;
  trips: number | null;
  queries: number;
  timing: string;
}

async function list(bearer: string, query = "", headers: Record<string, string> = {}): Promise<Listed> {
  const res = await call(`/api/asset/${query}`, { bearer, headers: { [TIMING_KEY_HEADER]: env.METRICS_TOKEN, ...headers } });
  const timing = res.headers.get("server-timing") ?? "";
  const queries = Number(/(\d+) quer/.exec(timing)?.[1] ?? NaN);
  return {
    status: res.status,
    text: await res.text(),
    encoding: res.headers.get("content-encoding"),
    trips: roundTripsOf(timing),
    queries,
    timing,
  };
}

const listOf = (bearer: string, assetId: string, headers: Record<string, string> = {}) => list(bearer, `${assetId}/comments`, headers);

// A `take` this isolate was never asked before names a question it holds no answer to: the list is read afresh.
let fresh = 1000;
const afresh = async (bearer: string, assetId: string) => {
  const res = await list(bearer, `${assetId}/comments?take=${fresh++}`);
  expect(res.status, res.text).toBe(200);
  return res.text;
};

async function readable() {
  const owner = await signIn();
  const reader = await signIn();
  const stranger = await signIn();
  const asset = await mediaAsset(owner.id, "video/mp4", { duration: 60 });
  const rule = await grant(reader.id, asset.id, ["read"]);
  return { owner, reader, stranger, asset, rule };
}

describe("GET /api/asset/{id}/comments from memory", () => {
  it("a repeated list reads only the revisions beside the access check, answers the same bytes, and gzips them for a client that accepts it", async () => {
    const { owner, reader, asset } = await readable();
    for (const text of ["первый", "второй", `третий для @${owner.login}`])
      expect((await postComment(reader.bearer, asset.id, { text })).status).toBe(201);
    // The file's place learnt by this isolate (a read of it asks the library directory once), so both lists below
    // are read over the catalog alike.
    expect((await call(`/api/asset/${asset.id}`, { bearer: reader.bearer })).status).toBe(200);
    const first = await listOf(reader.bearer, asset.id);
    const again = await listOf(reader.bearer, asset.id);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.text).toBe(first.text);
    // The first read the page and its total (with the revisions and the follow flag) beside the check; the second
    // only the revisions and the flag.
    expect(again.queries, `${first.timing} / ${again.timing}`).toBe(first.queries - 2);
    for (const r of [first, again]) expect(r.trips!, r.timing).toBeLessThanOrEqual(ROUND_TRIP_BUDGETS.comments.budget);
    const zipped = await listOf(reader.bearer, asset.id, { "accept-encoding": "gzip, deflate, br" });
    expect(zipped.encoding).toBe("gzip");
    // fetch decodes the body as a browser does: what arrives is the same answer.
    expect(zipped.text).toBe(first.text);
    const plain = await listOf(reader.bearer, asset.id, { "accept-encoding": "br;q=1, gzip;q=0" });
    expect(plain.encoding).toBeNull();
    expect(plain.text).toBe(first.text);
    expect(JSON.parse(first.text)).toMatchObject({ total: 3, following: true, latest_version: 1 });
  });

  it("follows every kind of change to what the list shows, whichever way it is made", async () => {
    const { owner, reader, asset } = await readable();
    const admin = await signInAdmin();
    const author = await signIn();
    await grant(author.id, asset.id, ["read"]);
    const root = await postComment(owner.bearer, asset.id, { text: `начало для @${reader.login}`, anchor: { time: { start: 3 } } });
    const byAuthor = await postComment(author.bearer, asset.id, { text: "от автора" });
    expect([root.status, byAuthor.status]).toEqual([201, 201]);
    let reply = "";
    const resolveRoot = async (resolved: boolean) =>
      ok(await call(`/api/comments/${root.body.comment_id}/resolve`, { method: "POST", bearer: reader.bearer, json: { resolved } }));
    const ok = (res: Response) => expect(res.status).toBeLessThan(300);
    const changes: [string, () => Promise<void>][] = [
      ["a comment", async () => expect((await postComment(reader.bearer, asset.id, { text: "новый" })).status).toBe(201)],
      [
        "a reply",
        async () => {
          const r = await postComment(reader.bearer, asset.id, { text: "ответ", parent_id: root.body.comment_id });
          expect(r.status).toBe(201);
          reply = r.body.comment_id;
        },
      ],
      [
        "an edit naming someone",
        async () =>
          ok(
            await call(`/api/comments/${reply}`, { method: "PATCH", bearer: reader.bearer, json: { text: `правка для @${owner.login}` } }),
          ),
      ],
      ["resolving", () => resolveRoot(true)],
      ["reopening", () => resolveRoot(false)],
      [
        "an author renaming himself",
        async () => ok(await call(`/api/user/${author.id}`, { method: "PATCH", bearer: author.bearer, json: { user_name: "Новое Имя" } })),
      ],
      [
        "a mentioned user's new login",
        async () =>
          ok(await call(`/api/user/${reader.id}`, { method: "PATCH", bearer: admin.bearer, json: { user_login: `${reader.login}-new` } })),
      ],
      [
        "a new latest version of the file",
        async () => {
          await env.DB.prepare("UPDATE assets SET latest_version = 2 WHERE id = ?").bind(asset.id).run();
        },
      ],
      ["the caller's unfollow", async () => ok(await call(`/api/asset/${asset.id}/follow`, { method: "DELETE", bearer: reader.bearer }))],
      [
        "a comment changed straight in the database",
        async () => {
          await env.DB.prepare("UPDATE comments SET text = 'из базы' WHERE id = ?").bind(byAuthor.body.comment_id).run();
        },
      ],
      [
        "deleting a thread",
        async () => ok(await call(`/api/comments/${root.body.comment_id}`, { method: "DELETE", bearer: owner.bearer })),
      ],
      [
        "an author's removal",
        async () => {
          ok(await call(`/api/user/${author.id}`, { method: "PATCH", bearer: admin.bearer, json: { enabled: false } }));
          ok(await call(`/api/user/${author.id}`, { method: "DELETE", bearer: admin.bearer }));
        },
      ],
    ];
    for (const [label, change] of changes) {
      const before = await listOf(reader.bearer, asset.id);
      const kept = await listOf(reader.bearer, asset.id);
      expect(kept.text, label).toBe(before.text);
      await change();
      const after = await listOf(reader.bearer, asset.id);
      expect(after.status, `${label}: ${after.text}`).toBe(200);
      // An answer kept from before the change costs one round trip more: the list, read once the revisions said so.
      expect(after.trips!, `${label}: ${after.timing}`).toBeLessThanOrEqual(ROUND_TRIP_BUDGETS.comments.budget + 1);
      expect(after.text, label).not.toBe(before.text);
      expect(after.text, label).toBe(await afresh(reader.bearer, asset.id));
      const zipped = await listOf(reader.bearer, asset.id, { "accept-encoding": "gzip" });
      expect(zipped.encoding, label).toBe("gzip");
      expect(zipped.text, label).toBe(after.text);
    }
    const last = JSON.parse((await listOf(reader.bearer, asset.id)).text) as {
      following: boolean;
      latest_version: number;
      items: { author_name: string; text: string }[];
    };
    expect(last).toMatchObject({ following: false, latest_version: 2 });
    expect(last.items.map((c) => [c.author_name, c.text])).toEqual([
      ["", "из базы"],
      [reader.name, "новый"],
    ]);
  });

  it("refuses a caller who lost read, a stranger and a trashed file with the same 404, though the answer is kept", async () => {
    const { owner, reader, stranger, asset, rule } = await readable();
    expect((await postComment(owner.bearer, asset.id, { text: "секрет" })).status).toBe(201);
    for (const encoding of ["identity", "gzip"]) {
      expect((await listOf(reader.bearer, asset.id, { "accept-encoding": encoding })).status).toBe(200);
      expect((await listOf(reader.bearer, asset.id, { "accept-encoding": encoding })).status).toBe(200);
    }
    const missing = await expectError(await call(`/api/asset/${"e".repeat(32)}/comments`, { bearer: stranger.bearer }), 404);
    for (const encoding of ["identity", "gzip"]) {
      const hidden = await expectError(
        await call(`/api/asset/${asset.id}/comments`, { bearer: stranger.bearer, headers: { "accept-encoding": encoding } }),
        404,
      );
      expect(hidden.message).toBe(ru.comments.assetNotFound);
      expect(hidden.message).toBe(missing.message);
    }
    await revoke(rule);
    for (const encoding of ["identity", "gzip"]) {
      const lost = await expectError(
        await call(`/api/asset/${asset.id}/comments`, { bearer: reader.bearer, headers: { "accept-encoding": encoding } }),
        404,
      );
      expect(lost.message).toBe(missing.message);
    }
    expect((await listOf(owner.bearer, asset.id)).status).toBe(200);
    expect((await call(`/api/asset/${asset.id}`, { method: "DELETE", bearer: owner.bearer })).status).toBeLessThan(300);
    const trashed = await expectError(await call(`/api/asset/${asset.id}/comments`, { bearer: owner.bearer }), 404);
    expect(trashed.message).toBe(missing.message);
  });

  it("gives two callers their own follow flag over the same kept comments, plain and gzipped, in any order", async () => {
    const { owner, reader, asset } = await readable();
    expect((await postComment(owner.bearer, asset.id, { text: "общий" })).status).toBe(201);
    expect((await call(`/api/asset/${asset.id}/follow`, { method: "DELETE", bearer: reader.bearer })).status).toBe(200);
    const order: [string, boolean, string][] = [
      [owner.bearer, true, "gzip"],
      [reader.bearer, false, "gzip"],
      [reader.bearer, false, "identity"],
      [owner.bearer, true, "identity"],
      [reader.bearer, false, "gzip"],
      [owner.bearer, true, "gzip"],
    ];
    const items = new Set<string>();
    for (const [bearer, following, encoding] of order) {
      const res = await listOf(bearer, asset.id, { "accept-encoding": encoding });
      const body = JSON.parse(res.text) as { following: boolean; items: unknown[] };
      expect(body.following).toBe(following);
      items.add(JSON.stringify(body.items));
    }
    expect(items.size).toBe(1);
    // Another question about the same file (another version) is kept apart from the whole list.
    const other = JSON.parse((await list(reader.bearer, `${asset.id}/comments?version=2`)).text) as { total: number; items: unknown[] };
    expect(other).toMatchObject({ total: 0, items: [] });
    expect(JSON.parse((await listOf(reader.bearer, asset.id)).text)).toMatchObject({ total: 1 });
  });
});
