import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { sendDueDigests, DIGEST_INTERVAL_MS } from "../../workers/services/comments";
import { testContext } from "./catalog-fixtures";
import { dispatch, grant, inbox, mediaAsset, postComment, recordEvent, revoke } from "./comments-fixtures";
import { call, expectError, signIn } from "./factories";
import { insertLongComments, LONG_COMMENT_CHARS } from "./library-shard-fixtures";

async function people() {
  const owner = await signIn();
  const reader = await signIn();
  const stranger = await signIn();
  return { owner, reader, stranger };
}

async function readable(mime = "image/jpeg", props: Record<string, unknown> = {}) {
  const p = await people();
  const asset = await mediaAsset(p.owner.id, mime, props);
  await grant(p.reader.id, asset.id, ["read"]);
  return { ...p, asset };
}

const countComments = async (assetId: string) =>
  (await env.DB.prepare("select count(*) as n from comments where asset_id = ?").bind(assetId).first<{ n: number }>())?.n ?? 0;

describe("POST /api/asset/{id}/comments", () => {
  it("a reader comments on a region; the answer has the issue's shape and the latest version", async () => {
    const { reader, asset } = await readable();
    const { status, body } = await postComment(reader.bearer, asset.id, {
      text: "  Логотип обрезан <b>справа</b>",
      anchor: { region: { x: 0.1, y: 0.2, w: 0.5, h: 0.3 } },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      asset_id: asset.id,
      version: 1,
      author_id: reader.id,
      author_name: reader.name,
      text: "  Логотип обрезан <b>справа</b>",
      anchor: { region: { x: 0.1, y: 0.2, w: 0.5, h: 0.3 } },
      parent_id: null,
      resolved: false,
      mentions: [],
    });
    expect(typeof body.ctime).toBe("string");
  });

  it("refuses someone without read with the same 404 as for no file, and writes nothing", async () => {
    const { stranger, asset } = await readable();
    const hidden = await expectError(
      await call(`/api/asset/${asset.id}/comments`, { method: "POST", bearer: stranger.bearer, json: { text: "привет" } }),
      404,
    );
    const missing = await expectError(
      await call(`/api/asset/${"f".repeat(32)}/comments`, { method: "POST", bearer: stranger.bearer, json: { text: "привет" } }),
      404,
    );
    expect(hidden.message).toBe(missing.message);
    expect(await countComments(asset.id)).toBe(0);
    await expectError(await call(`/api/asset/${asset.id}/comments`, { method: "POST", json: { text: "x" } }), 401);
  });

  it.each([
    ["region outside 0–1", { region: { x: -0.1, y: 0, w: 0.5, h: 0.5 } }, "anchor.region.x"],
    ["region past the right edge", { region: { x: 0.7, y: 0, w: 0.5, h: 0.5 } }, "anchor.region.w"],
    ["region past the bottom edge", { region: { x: 0, y: 0.9, w: 0.1, h: 0.2 } }, "anchor.region.h"],
    ["a zero-size region", { region: { x: 0, y: 0, w: 0, h: 0.2 } }, "anchor.region.w"],
    ["a negative time", { time: { start: -1 } }, "anchor.time.start"],
    ["an end before the start", { time: { start: 5, end: 2 } }, "anchor.time.end"],
    ["page 0", { page: 0 }, "anchor.page"],
    ["a fractional page", { page: 1.5 }, "anchor.page"],
    ["an unknown key", { spot: 1 }, "anchor"],
    ["an empty anchor", {}, "anchor"],
  ])("refuses %s (400 naming the field)", async (_label, anchor, field) => {
    const { reader, asset } = await readable();
    const error = await expectError(
      await call(`/api/asset/${asset.id}/comments`, { method: "POST", bearer: reader.bearer, json: { text: "x", anchor } }),
      400,
    );
    expect(error.message).toContain(`«${field}`);
    expect(await countComments(asset.id)).toBe(0);
  });

  it("checks times against the media's duration and pages against its page count", async () => {
    const video = await readable("video/mp4", { duration: 12.5 });
    const past = await expectError(
      await call(`/api/asset/${video.asset.id}/comments`, {
        method: "POST",
        bearer: video.reader.bearer,
        json: { text: "x", anchor: { time: { start: 13 } } },
      }),
      400,
    );
    expect(past.message).toBe(ru.errors.invalidField("anchor.time.start", ru.comments.pastEnd(12.5)));
    const end = await expectError(
      await call(`/api/asset/${video.asset.id}/comments`, {
        method: "POST",
        bearer: video.reader.bearer,
        json: { text: "x", anchor: { time: { start: 1, end: 20 } } },
      }),
      400,
    );
    expect(end.message).toContain("«anchor.time.end»");
    expect(
      (await postComment(video.reader.bearer, video.asset.id, { text: "звук пропадает", anchor: { time: { start: 12, end: 12.5 } } }))
        .status,
    ).toBe(201);

    const pdf = await readable("application/pdf", { page_count: 3 });
    const page = await expectError(
      await call(`/api/asset/${pdf.asset.id}/comments`, {
        method: "POST",
        bearer: pdf.reader.bearer,
        json: { text: "x", anchor: { page: 4 } },
      }),
      400,
    );
    expect(page.message).toBe(ru.errors.invalidField("anchor.page", ru.comments.pastLastPage(3)));
    expect(
      (await postComment(pdf.reader.bearer, pdf.asset.id, { text: "опечатка", anchor: { page: 3, region: { x: 0, y: 0, w: 1, h: 0.1 } } }))
        .status,
    ).toBe(201);

    // Unknown duration: any moment from 0 is accepted.
    const unknown = await readable("video/mp4", {});
    expect((await postComment(unknown.reader.bearer, unknown.asset.id, { text: "x", anchor: { time: { start: 99999 } } })).status).toBe(
      201,
    );
  });

  it.each([
    ["empty", ""],
    ["spaces only", "   \n "],
    ["over 10,000 characters", "я".repeat(10_001)],
    ["a control character", "bad\u0007"],
    ["a number", 5],
  ])("refuses text that is %s", async (_label, text) => {
    const { reader, asset } = await readable();
    const error = await expectError(
      await call(`/api/asset/${asset.id}/comments`, { method: "POST", bearer: reader.bearer, json: { text } }),
      400,
    );
    expect(error.message).toContain("«text»");
    expect(await countComments(asset.id)).toBe(0);
  });

  it("takes exactly 10,000 characters", async () => {
    const { reader, asset } = await readable();
    expect((await postComment(reader.bearer, asset.id, { text: "я".repeat(10_000) })).status).toBe(201);
  });

  it("limits what one person writes to 60 comments and edits a minute (429, Retry-After); others go on writing", async () => {
    const { owner, reader, asset } = await readable();
    const first = await postComment(reader.bearer, asset.id, { text: "первый" });
    let refused: Response | null = null;
    for (let i = 1; i < 70 && !refused; i++) {
      const res =
        i % 2
          ? await call(`/api/asset/${asset.id}/comments`, { method: "POST", bearer: reader.bearer, json: { text: `замечание ${i}` } })
          : await call(`/api/comments/${first.body.comment_id}`, { method: "PATCH", bearer: reader.bearer, json: { text: `правка ${i}` } });
      if (res.status === 429) refused = res;
      else expect(res.status, await res.text()).toBeLessThan(300);
    }
    expect(refused, "no 429 within 70 comments and edits").not.toBeNull();
    expect((await expectError(refused!, 429)).message).toMatch(/Слишком много запросов/);
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);
    const written = await countComments(asset.id);
    expect(written).toBeLessThanOrEqual(31);
    expect((await postComment(owner.bearer, asset.id, { text: "владелец отвечает" })).status).toBe(201);
    expect(await countComments(asset.id)).toBe(written + 1);
  });

  it("refuses a version the file does not have, and a parent_id of another file", async () => {
    const { reader, owner, asset } = await readable();
    const v = await expectError(
      await call(`/api/asset/${asset.id}/comments`, { method: "POST", bearer: reader.bearer, json: { text: "x", version: 2 } }),
      400,
    );
    expect(v.message).toContain("«version»");
    const other = await mediaAsset(owner.id);
    const foreign = await postComment(owner.bearer, other.id, { text: "там" });
    const p = await expectError(
      await call(`/api/asset/${asset.id}/comments`, {
        method: "POST",
        bearer: reader.bearer,
        json: { text: "x", parent_id: foreign.body.comment_id },
      }),
      400,
    );
    expect(p.message).toBe(ru.errors.invalidField("parent_id", ru.comments.parentOfOther));
    expect(await countComments(asset.id)).toBe(0);
  });

  it("refuses a mention of an unknown login naming the field, and keeps the text as typed for a known one", async () => {
    const { reader, owner, asset } = await readable();
    const error = await expectError(
      await call(`/api/asset/${asset.id}/comments`, { method: "POST", bearer: reader.bearer, json: { text: "смотри @nobody-here-xyz" } }),
      400,
    );
    expect(error.message).toBe(ru.errors.invalidField("text", ru.comments.unknownLogin("nobody-here-xyz")));
    expect(await countComments(asset.id)).toBe(0);
    const text = `@${owner.login.toUpperCase()}, глянь; почта a@b.c не упоминание`;
    const ok = await postComment(reader.bearer, asset.id, { text });
    expect(ok.status).toBe(201);
    expect(ok.body.text).toBe(text);
    expect(ok.body.mentions).toEqual([owner.login]);
  });
});

describe("GET /api/asset/{id}/comments", () => {
  it("lists oldest first with replies carrying parent_id, filters by version, and hides everything from a stranger", async () => {
    const { reader, owner, stranger, asset } = await readable();
    const first = await postComment(reader.bearer, asset.id, { text: "первый" });
    await postComment(owner.bearer, asset.id, { text: "ответ", parent_id: first.body.comment_id });
    const res = await call(`/api/asset/${asset.id}/comments`, { bearer: reader.bearer });
    const list = (await res.json()) as { total: number; following: boolean; items: { text: string; parent_id: string | null }[] };
    expect(res.status).toBe(200);
    expect(list.total).toBe(2);
    expect(list.following).toBe(true);
    expect(list.items.map((c) => [c.text, c.parent_id])).toEqual([
      ["первый", null],
      ["ответ", first.body.comment_id],
    ]);
    const v2 = (await (await call(`/api/asset/${asset.id}/comments?version=2`, { bearer: reader.bearer })).json()) as { items: unknown[] };
    expect(v2.items).toEqual([]);
    const hidden = await expectError(await call(`/api/asset/${asset.id}/comments`, { bearer: stranger.bearer }), 404);
    expect(hidden.message).toBe(ru.comments.assetNotFound);
    expect(hidden.message).toBe(
      (await expectError(await call(`/api/asset/${"e".repeat(32)}/comments`, { bearer: stranger.bearer }), 404)).message,
    );
    await expectError(await call(`/api/asset/${asset.id}/comments?take=0`, { bearer: reader.bearer }), 400);
  });
});

describe("GET /api/asset/{id}/comments items", () => {
  it("ends a page once its texts reach 2 MB, the next beginning after it: long comments never make one huge answer", async () => {
    const { owner, reader, asset } = await readable();
    await insertLongComments(asset.id, owner.id, 120);
    const page = async (skip: number) => {
      const res = await call(`/api/asset/${asset.id}/comments?skip=${skip}`, { bearer: reader.bearer });
      expect(res.status).toBe(200);
      return (await res.json()) as { total: number; items: { comment_id: string; text: string }[] };
    };
    const first = await page(0);
    expect(first.total).toBe(120);
    // 20,000 bytes each: the 105th begins within 2 MB, the 106th past it.
    expect(first.items).toHaveLength(105);
    const second = await page(first.items.length);
    expect(second.items).toHaveLength(15);
    const all = await env.DB.prepare("select id from comments where asset_id = ? order by ctime, id").bind(asset.id).all<{ id: string }>();
    expect([...first.items, ...second.items].map((c) => c.comment_id)).toEqual(all.results.map((r) => r.id));
    expect(second.items.every((c) => c.text.length === LONG_COMMENT_CHARS)).toBe(true);
  });

  it("answers every comment exactly as the create, edit and resolve calls answer it, pages included", async () => {
    const { reader, owner, asset } = await readable("video/mp4", { duration: 120 });
    // Quotes, a backslash, line breaks, a tab, Cyrillic and an emoji must come out as JSON.stringify writes them.
    const tricky = `кавычки "так" и \\ обратная\nвторая строка\tтаб 🎬 @${owner.login}`;
    const first = await postComment(reader.bearer, asset.id, { text: tricky, anchor: { region: { x: 0.1, y: 0.2, w: 0.3, h: 0.4 } } });
    const reply = await postComment(owner.bearer, asset.id, {
      text: "ответ",
      parent_id: first.body.comment_id,
      anchor: { time: { start: 1.5, end: 3 } },
    });
    const plain = await postComment(reader.bearer, asset.id, { text: "без метки" });
    expect([first.status, reply.status, plain.status]).toEqual([201, 201, 201]);
    const edited = await call(`/api/comments/${reply.body.comment_id}`, {
      method: "PATCH",
      bearer: owner.bearer,
      json: { text: `правка для @${reader.login}` },
    });
    expect(edited.status).toBe(200);
    const resolved = await call(`/api/comments/${plain.body.comment_id}/resolve`, {
      method: "POST",
      bearer: reader.bearer,
      json: { resolved: true },
    });
    expect(resolved.status).toBe(200);
    // A time whose milliseconds need zero padding (005), as toISOString writes it.
    await env.DB.prepare("UPDATE comments SET mtime = ctime - ctime % 1000 + 5 WHERE id = ?").bind(first.body.comment_id).run();
    const mtime = (await env.DB.prepare("SELECT mtime FROM comments WHERE id = ?").bind(first.body.comment_id).first<{ mtime: number }>())!
      .mtime;

    const res = await call(`/api/asset/${asset.id}/comments`, { bearer: reader.bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const list = (await res.json()) as { total: number; following: boolean; latest_version: number; items: Record<string, unknown>[] };
    expect(Object.keys(list)).toEqual(["total", "following", "latest_version", "items"]);
    expect(list).toMatchObject({ total: 3, following: true, latest_version: 1 });
    expect(list.items).toEqual([{ ...first.body, mtime: new Date(mtime).toISOString() }, await edited.json(), await resolved.json()]);
    expect(list.items[0].text).toBe(tricky);
    expect(list.items[0].mentions).toEqual([owner.login]);
    expect(list.items.map((c) => Object.keys(c))).toEqual(list.items.map(() => Object.keys(first.body)));

    const second = (await (await call(`/api/asset/${asset.id}/comments?skip=1&take=1`, { bearer: reader.bearer })).json()) as typeof list;
    expect(second.total).toBe(3);
    expect(second.items.map((c) => c.comment_id)).toEqual([reply.body.comment_id]);
    const past = (await (await call(`/api/asset/${asset.id}/comments?skip=10`, { bearer: reader.bearer })).json()) as typeof list;
    expect(past).toEqual({ total: 3, following: true, latest_version: 1, items: [] });
  });
});

describe("PATCH, DELETE, resolve /api/comments/{id}", () => {
  it("lets only the author edit (403 for another reader, 404 for a stranger)", async () => {
    const { reader, owner, stranger, asset } = await readable();
    const c = await postComment(reader.bearer, asset.id, { text: "было" });
    await expectError(
      await call(`/api/comments/${c.body.comment_id}`, { method: "PATCH", bearer: owner.bearer, json: { text: "нет" } }),
      403,
    );
    await expectError(
      await call(`/api/comments/${c.body.comment_id}`, { method: "PATCH", bearer: stranger.bearer, json: { text: "нет" } }),
      404,
    );
    await expectError(
      await call(`/api/comments/${c.body.comment_id}`, { method: "PATCH", bearer: reader.bearer, json: { text: "" } }),
      400,
    );
    const res = await call(`/api/comments/${c.body.comment_id}`, { method: "PATCH", bearer: reader.bearer, json: { text: "стало" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { text: string }).text).toBe("стало");
  });

  it("deletes by the author or by acl on the file, with the replies; a plain reader gets 403", async () => {
    const { reader, owner, asset } = await readable();
    const other = await signIn();
    await grant(other.id, asset.id, ["read"]);
    const c = await postComment(reader.bearer, asset.id, { text: "корень" });
    await postComment(other.bearer, asset.id, { text: "ответ", parent_id: c.body.comment_id });
    const refused = await expectError(await call(`/api/comments/${c.body.comment_id}`, { method: "DELETE", bearer: other.bearer }), 403);
    expect(refused.message).toBe(ru.comments.deleteDenied);
    expect(await countComments(asset.id)).toBe(2);
    // The owner holds acl on his own file.
    expect((await call(`/api/comments/${c.body.comment_id}`, { method: "DELETE", bearer: owner.bearer })).status).toBe(200);
    expect(await countComments(asset.id)).toBe(0);
    const mine = await postComment(other.bearer, asset.id, { text: "моё" });
    expect((await call(`/api/comments/${mine.body.comment_id}`, { method: "DELETE", bearer: other.bearer })).status).toBe(200);
    await expectError(await call(`/api/comments/${mine.body.comment_id}`, { method: "DELETE", bearer: other.bearer }), 404);
  });

  it("resolves and reopens with read on the file; a stranger gets 404", async () => {
    const { reader, owner, stranger, asset } = await readable();
    const c = await postComment(owner.bearer, asset.id, { text: "поправить" });
    const r = await call(`/api/comments/${c.body.comment_id}/resolve`, { method: "POST", bearer: reader.bearer, json: { resolved: true } });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { resolved: boolean }).resolved).toBe(true);
    await expectError(
      await call(`/api/comments/${c.body.comment_id}/resolve`, { method: "POST", bearer: stranger.bearer, json: { resolved: false } }),
      404,
    );
    await expectError(
      await call(`/api/comments/${c.body.comment_id}/resolve`, { method: "POST", bearer: reader.bearer, json: { resolved: "yes" } }),
      400,
    );
    const back = await call(`/api/comments/${c.body.comment_id}/resolve`, {
      method: "POST",
      bearer: reader.bearer,
      json: { resolved: false },
    });
    expect(((await back.json()) as { resolved: boolean }).resolved).toBe(false);
  });
});

describe("notifications", () => {
  it("mention, reply and followed-file comments reach the right people, never the author", async () => {
    const { reader, owner, asset } = await readable();
    const c = await postComment(reader.bearer, asset.id, {
      text: `@${owner.login} логотип`,
      anchor: { region: { x: 0, y: 0, w: 0.5, h: 0.5 } },
    });
    await dispatch();
    const ownerBox = await inbox(owner.bearer, "?unread=1");
    const mention = ownerBox.items.find((n) => n.comment_id === c.body.comment_id);
    expect(mention).toMatchObject({ kind: "mention", asset_id: asset.id, by_id: reader.id, text: `@${owner.login} логотип`, read: false });
    expect(mention?.link).toMatchObject({ comment_id: c.body.comment_id, version: 1, anchor: { region: { x: 0, y: 0, w: 0.5, h: 0.5 } } });
    expect((await inbox(reader.bearer)).items).toEqual([]);

    const reply = await postComment(owner.bearer, asset.id, { text: "исправлю", parent_id: c.body.comment_id });
    await dispatch();
    const readerBox = await inbox(reader.bearer);
    expect(readerBox.items.map((n) => [n.kind, n.comment_id])).toEqual([["reply", reply.body.comment_id]]);
    expect(readerBox.unread).toBe(1);
    // A third reader's comment reaches both followers (the uploader, the commenter) as a comment on a followed file.
    const third = await signIn();
    await grant(third.id, asset.id, ["read"]);
    await postComment(third.bearer, asset.id, { text: "согласен" });
    await dispatch();
    expect((await inbox(reader.bearer)).items[0].kind).toBe("comment");
    expect((await inbox(owner.bearer)).items[0].kind).toBe("comment");
  });

  it("never notifies a mentioned user who cannot read the file at delivery, nor after he lost read", async () => {
    const { reader, owner, stranger, asset } = await readable();
    await postComment(reader.bearer, asset.id, { text: `@${stranger.login} посмотри` });
    await dispatch();
    expect((await inbox(stranger.bearer)).items).toEqual([]);
    // Read granted, then taken away after delivery: the inbox stops showing the notification.
    const rule = await grant(stranger.id, asset.id, ["read"]);
    await postComment(owner.bearer, asset.id, { text: `@${stranger.login} теперь видно?` });
    await dispatch();
    expect((await inbox(stranger.bearer)).items.map((n) => n.kind)).toEqual(["mention"]);
    await revoke(rule);
    expect(await inbox(stranger.bearer)).toEqual({ unread: 0, items: [] });
  });

  it("a repeated or overlapping dispatch makes each notification once", async () => {
    const { reader, owner, asset } = await readable();
    await postComment(reader.bearer, asset.id, { text: `@${owner.login} раз` });
    await Promise.all([dispatch(), dispatch()]);
    await env.DB.prepare("update notification_cursor set seq = seq - 5").run();
    await dispatch();
    expect((await inbox(owner.bearer)).items.filter((n) => n.kind === "mention")).toHaveLength(1);
  });

  it("review requested, review decided (to the requester and followers) and collection shared, from the event log", async () => {
    const { reader, owner, stranger, asset } = await readable();
    await recordEvent({
      type: "review.requested",
      entityType: "asset",
      entityId: asset.id,
      ownerId: owner.id,
      actorId: owner.id,
      data: { version: 1, reviewer_id: reader.id, due: null, note: "до пятницы" },
    });
    await recordEvent({
      type: "review.requested",
      entityType: "asset",
      entityId: asset.id,
      ownerId: owner.id,
      actorId: owner.id,
      data: { version: 1, reviewer_id: stranger.id, due: null, note: "тайно" },
    });
    await dispatch();
    expect((await inbox(reader.bearer)).items.map((n) => [n.kind, n.text])).toEqual([["review_requested", "до пятницы"]]);
    expect((await inbox(stranger.bearer)).items).toEqual([]);
    await recordEvent({
      type: "review.decided",
      entityType: "asset",
      entityId: asset.id,
      ownerId: owner.id,
      actorId: reader.id,
      data: { version: 1, status: "approved", note: "ок" },
    });
    await dispatch();
    expect((await inbox(owner.bearer)).items.map((n) => [n.kind, n.text])).toEqual([["review_decided", "согласовано: ок"]]);

    await recordEvent({
      type: "collection.shared",
      entityType: "collection",
      entityId: "c".repeat(32),
      ownerId: owner.id,
      actorId: owner.id,
      data: { collection_id: "c".repeat(32), name: "Лучшие кадры", subj: stranger.id, subj_type: "user", role: "comment" },
    });
    await dispatch();
    const box = await inbox(stranger.bearer);
    expect(box.items.map((n) => [n.kind, n.text, n.link.collection_id])).toEqual([["collection_shared", "Лучшие кадры", "c".repeat(32)]]);
  });

  it("POST /api/notifications/read marks the listed ones or all, only the caller's own", async () => {
    const { reader, owner, asset } = await readable();
    await postComment(reader.bearer, asset.id, { text: `@${owner.login} 1` });
    await postComment(reader.bearer, asset.id, { text: `@${owner.login} 2` });
    await dispatch();
    const box = await inbox(owner.bearer);
    expect(box.unread).toBe(2);
    const foreign = await call("/api/notifications/read", { method: "POST", bearer: reader.bearer, json: { ids: [box.items[0].id] } });
    expect(((await foreign.json()) as { unread: number }).unread).toBe(0);
    expect((await inbox(owner.bearer)).unread).toBe(2);
    const one = await call("/api/notifications/read", { method: "POST", bearer: owner.bearer, json: { ids: [box.items[0].id] } });
    expect(await one.json()).toEqual({ unread: 1 });
    expect((await inbox(owner.bearer, "?unread=1")).items.map((n) => n.id)).toEqual([box.items[1].id]);
    const all = await call("/api/notifications/read", { method: "POST", bearer: owner.bearer, json: { all: true } });
    expect(await all.json()).toEqual({ unread: 0 });
    await expectError(
      await call("/api/notifications/read", {
        method: "POST",
        bearer: owner.bearer,
        json: { ids: Array.from({ length: 501 }, () => "a".repeat(32)) },
      }),
      400,
    );
    await expectError(await call("/api/notifications/read", { method: "POST", bearer: owner.bearer, json: { all: false } }), 400);
    await expectError(await call("/api/notifications?take=1000", { bearer: owner.bearer }), 400);
    await expectError(await call("/api/notifications"), 401);
  });

  it("follow and unfollow need read; unfollowing the uploaded file stops its comment notifications", async () => {
    const { reader, owner, stranger, asset } = await readable();
    await expectError(await call(`/api/asset/${asset.id}/follow`, { method: "PUT", bearer: stranger.bearer }), 404);
    expect(await (await call(`/api/asset/${asset.id}/follow`, { method: "DELETE", bearer: owner.bearer })).json()).toEqual({
      asset_id: asset.id,
      following: false,
    });
    await postComment(reader.bearer, asset.id, { text: "тихо" });
    await dispatch();
    expect((await inbox(owner.bearer)).items).toEqual([]);
    const third = await signIn();
    await grant(third.id, asset.id, ["read"]);
    expect((await call(`/api/asset/${asset.id}/follow`, { method: "PUT", bearer: third.bearer })).status).toBe(200);
    await postComment(reader.bearer, asset.id, { text: "громко" });
    await dispatch();
    expect((await inbox(third.bearer)).items.map((n) => n.kind)).toEqual(["comment"]);
  });

  it("mails a digest where allowed, at most one a quarter hour, through outgoing_emails", async () => {
    const { reader, owner, asset } = await readable();
    await expectError(
      await call("/api/notifications/settings", { method: "PUT", bearer: owner.bearer, json: { email: "not-an-address", digest: true } }),
      400,
    );
    const put = await call("/api/notifications/settings", {
      method: "PUT",
      bearer: owner.bearer,
      json: { email: "owner@example.test", digest: true },
    });
    expect(await put.json()).toEqual({ email: "owner@example.test", digest: true });
    await postComment(reader.bearer, asset.id, { text: `@${owner.login} раз` });
    await dispatch();
    const now = Date.now();
    await sendDueDigests(testContext(), now);
    await postComment(reader.bearer, asset.id, { text: `@${owner.login} два` });
    await dispatch();
    await sendDueDigests(testContext(), now + 60_000);
    const mails = async () =>
      (
        await env.DB.prepare("select subject, body from outgoing_emails where object_id = ? order by ctime")
          .bind(owner.id)
          .all<{ subject: string; body: string }>()
      ).results;
    expect(await mails()).toHaveLength(1);
    await sendDueDigests(testContext(), now + DIGEST_INTERVAL_MS + 1);
    const sent = await mails();
    expect(sent).toHaveLength(2);
    expect(sent[0].subject).toBe(ru.comments.digestSubject(1));
    expect(sent[0].body).toContain(asset.name);
  });

  it("the live stream needs sign-in and answers text/event-stream", async () => {
    const { owner } = await readable();
    await expectError(await call("/api/notifications/stream"), 401);
    const res = await call("/api/notifications/stream", { bearer: owner.bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain(": open");
    await reader.cancel();
  });
});
