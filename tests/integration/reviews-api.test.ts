import { describe, expect, it } from "vitest";
import { deliverEvents } from "../../workers/services/automations/event-outbox.service";
import { testContext } from "./catalog-fixtures";
import { ru } from "../../app/i18n/ru";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { bytesOf, createAsset, createGroup, json, rows, uploadVersion } from "./asset-fixtures";
import { send, uniqueName } from "./library-factories";

/**
 * Review decisions (decision record 036): PUT/GET /api/asset/{id}/review and POST …/review-requests — the trail of
 * decisions, the events they record, `review_status` on the asset and in folder listings, the automation trigger,
 * and every refusal (rights, unknown status, missing version, reviewer who cannot read).
 */

async function grant(subj: string, obj: string, acl: string[]) {
  const admin = await signInAdmin();
  const res = await call("/api/user/acl", { method: "POST", bearer: admin.bearer, json: { subj, obj, acl } });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** An owner with a folder holding an image with two versions, a reader of it and a stranger. */
async function scene() {
  const owner = await signIn();
  const reader = await signIn();
  const stranger = await signIn();
  const group = await createGroup(owner.id);
  const assetId = await createAsset(owner.bearer, { asset_name: "Обложка.png", asset_mime: "image/png", in_group: group });
  await uploadVersion(owner.bearer, assetId, bytesOf(300, 1), { file_name: "Обложка.png", mime_type: "image/png" });
  await uploadVersion(owner.bearer, assetId, bytesOf(500, 2), { file_name: "Обложка.png", mime_type: "image/png" });
  await grant(reader.id, assetId, ["read"]);
  return { owner, reader, stranger, group, assetId };
}

const put = (bearer: string, id: string, body: unknown) => call(`/api/asset/${id}/review`, { method: "PUT", bearer, json: body });
const ask = (bearer: string, id: string, body: unknown) => call(`/api/asset/${id}/review-requests`, { method: "POST", bearer, json: body });

interface State {
  current: { status: string; version: number; by_id: string; by_name: string | null; at: string; note: string | null } | null;
  history: { status: string; version: number; by_id: string; note: string | null }[];
  requests: { reviewer_id: string; due: string | null; version: number }[];
}

describe("PUT /api/asset/{id}/review", () => {
  it("keeps every decision, newest first; the current one is the latest version's; the event rides in the same batch", async () => {
    const { owner, assetId } = await scene();
    expect((await json<State>(await call(`/api/asset/${assetId}/review`, { bearer: owner.bearer }))).current).toBeNull();
    await json(await put(owner.bearer, assetId, { status: "rejected", version: 1, note: "Не тот цвет" }));
    await json(await put(owner.bearer, assetId, { status: "in_review" }));
    const state = await json<State>(await put(owner.bearer, assetId, { status: "approved", version: 2, note: "  Готово  " }));
    expect(state.current).toMatchObject({ status: "approved", version: 2, by_id: owner.id, by_name: owner.name, note: "Готово" });
    expect(state.history.map((d) => [d.status, d.version])).toEqual([
      ["approved", 2],
      ["in_review", 2],
      ["rejected", 1],
    ]);
    const events = await rows<{ type: string; actor_id: string; data: string }>(
      "select type, actor_id, data from global_events where entity_id = ? and type = 'review.decided' order by seq",
      assetId,
    );
    expect(events).toHaveLength(3);
    expect(events[2].actor_id).toBe(owner.id);
    expect(JSON.parse(events[2].data)).toEqual({ version: 2, status: "approved", note: "Готово" });
    // The asset call carries the badge; a decision on an older version does not change it.
    const info = await json<{ review_status: string | null }>(await call(`/api/asset/${assetId}`, { bearer: owner.bearer }));
    expect(info.review_status).toBe("approved");
    await json(await put(owner.bearer, assetId, { status: "rejected", version: 1 }));
    expect((await json<{ review_status: string | null }>(await call(`/api/asset/${assetId}`, { bearer: owner.bearer }))).review_status).toBe("approved");
  });

  it("refuses a reader with 403 and someone without read with the same 404 as a missing file; nothing is written", async () => {
    const { reader, stranger, assetId } = await scene();
    expect((await expectError(await put(reader.bearer, assetId, { status: "approved" }), 403)).message).toBe(ru.reviews.decideForbidden);
    const hidden = await expectError(await put(stranger.bearer, assetId, { status: "approved" }), 404);
    const missing = await expectError(await put(stranger.bearer, "0".repeat(31) + "1", { status: "approved" }), 404);
    expect(hidden.message).toBe(missing.message);
    await expectError(await call(`/api/asset/${assetId}/review`, { bearer: stranger.bearer }), 404);
    expect(await rows("select 1 from review_decisions where asset_id = ?", assetId)).toHaveLength(0);
    // The reader still sees the status.
    const state = await json<State>(await call(`/api/asset/${assetId}/review`, { bearer: reader.bearer }));
    expect(state.current).toBeNull();
  });

  it("answers 400 naming the field for an unknown status, a missing version, a long note and unknown fields", async () => {
    const { owner, assetId } = await scene();
    expect((await expectError(await put(owner.bearer, assetId, { status: "done" }), 400)).message).toContain("«status»");
    expect((await expectError(await put(owner.bearer, assetId, { status: "approved", version: 9 }), 400)).message).toBe(
      ru.errors.invalidField("version", ru.reviews.versionMissing(9)),
    );
    expect((await expectError(await put(owner.bearer, assetId, { status: "approved", version: 0 }), 400)).message).toContain("«version»");
    expect((await expectError(await put(owner.bearer, assetId, { status: "approved", note: "я".repeat(2001) }), 400)).message).toContain("«note»");
    expect((await expectError(await put(owner.bearer, assetId, { status: "approved", by: "x" }), 400)).statusCode).toBe(400);
    expect((await expectError(await put(owner.bearer, assetId, {}), 400)).message).toContain("«status»");
    expect(await rows("select 1 from review_decisions where asset_id = ?", assetId)).toHaveLength(0);
  });

  it("a file without versions has nothing to review: 400", async () => {
    const owner = await signIn();
    const group = await createGroup(owner.id);
    const assetId = await createAsset(owner.bearer, { asset_name: "Пусто.png", asset_mime: "image/png", in_group: group });
    expect((await expectError(await put(owner.bearer, assetId, { status: "approved" }), 400)).message).toBe(ru.reviews.noVersions);
  });
});

describe("POST /api/asset/{id}/review-requests", () => {
  it("asks a reader by login with a due date; the event names him; he may then decide on that version only", async () => {
    const { owner, reader, assetId } = await scene();
    const due = new Date(Date.now() + 86_400_000).toISOString();
    const made = await json<{ reviewer_id: string; due: string; version: number }>(
      await ask(owner.bearer, assetId, { reviewer: reader.login, due, note: "Посмотрите обложку" }),
      201,
    );
    expect(made).toMatchObject({ reviewer_id: reader.id, version: 2, due });
    const [event] = await rows<{ actor_id: string; data: string }>(
      "select actor_id, data from global_events where entity_id = ? and type = 'review.requested'",
      assetId,
    );
    expect(event.actor_id).toBe(owner.id);
    expect(JSON.parse(event.data)).toEqual({ version: 2, reviewer_id: reader.id, due, note: "Посмотрите обложку" });
    // asked for version 2: he decides on it, not on version 1
    await json(await put(reader.bearer, assetId, { status: "changes_requested", note: "Логотип обрезан" }));
    await expectError(await put(reader.bearer, assetId, { status: "approved", version: 1 }), 403);
    const state = await json<State>(await call(`/api/asset/${assetId}/review`, { bearer: reader.bearer }));
    expect(state.current).toMatchObject({ status: "changes_requested", by_id: reader.id });
    expect(state.requests).toMatchObject([{ reviewer_id: reader.id, version: 2 }]);
  });

  it("takes the reviewer's id too", async () => {
    const { owner, reader, assetId } = await scene();
    await json(await ask(owner.bearer, assetId, { reviewer: reader.id, version: 1 }), 201);
  });

  it("refuses an unknown user and one who cannot read the file with the same 400; a reader may not ask (403)", async () => {
    const { owner, reader, stranger, assetId } = await scene();
    const cannotRead = await expectError(await ask(owner.bearer, assetId, { reviewer: stranger.login }), 400);
    const unknown = await expectError(await ask(owner.bearer, assetId, { reviewer: `nobody-${uniqueName()}` }), 400);
    expect(cannotRead.message).toBe(unknown.message);
    expect(cannotRead.message).toBe(ru.errors.invalidField("reviewer", ru.reviews.reviewerRefused));
    await expectError(await ask(reader.bearer, assetId, { reviewer: owner.login }), 403);
    await expectError(await ask(stranger.bearer, assetId, { reviewer: owner.login }), 404);
    expect(await rows("select 1 from review_requests where asset_id = ?", assetId)).toHaveLength(0);
  });

  it("answers 400 for a due date in the past or not a date, a missing version, an empty reviewer, asking oneself", async () => {
    const { owner, reader, assetId } = await scene();
    const past = new Date(Date.now() - 86_400_000).toISOString();
    expect((await expectError(await ask(owner.bearer, assetId, { reviewer: reader.login, due: past }), 400)).message).toBe(
      ru.errors.invalidField("due", ru.reviews.duePast),
    );
    expect((await expectError(await ask(owner.bearer, assetId, { reviewer: reader.login, due: "завтра" }), 400)).message).toContain("«due»");
    expect((await expectError(await ask(owner.bearer, assetId, { reviewer: reader.login, version: 7 }), 400)).message).toContain("«version»");
    expect((await expectError(await ask(owner.bearer, assetId, { reviewer: "  " }), 400)).message).toContain("«reviewer»");
    expect((await expectError(await ask(owner.bearer, assetId, { reviewer: owner.login }), 400)).message).toBe(
      ru.errors.invalidField("reviewer", ru.reviews.selfRequest),
    );
    expect(await rows("select 1 from review_requests where asset_id = ?", assetId)).toHaveLength(0);
  });
});

describe("review status in listings", () => {
  it("folder members carry review_status and filter by it (none: no decision yet)", async () => {
    const { owner, group, assetId } = await scene();
    const other = await createAsset(owner.bearer, { asset_name: "Другой.png", asset_mime: "image/png", in_group: group });
    await json(await put(owner.bearer, assetId, { status: "approved" }));
    type Member = { el_id: string; el_info: { review_status: string | null } };
    const all = await json<Member[]>(await call(`/api/group/members/${group}`, { bearer: owner.bearer }));
    expect(Object.fromEntries(all.map((m) => [m.el_id, m.el_info.review_status]))).toEqual({ [assetId]: "approved", [other]: null });
    const approved = await json<Member[]>(await call(`/api/group/members/${group}?review=approved`, { bearer: owner.bearer }));
    expect(approved.map((m) => m.el_id)).toEqual([assetId]);
    const none = await json<Member[]>(await call(`/api/group/members/${group}?review=none`, { bearer: owner.bearer }));
    expect(none.map((m) => m.el_id)).toEqual([other]);
    expect((await expectError(await call(`/api/group/members/${group}?review=ok`, { bearer: owner.bearer }), 400)).message).toContain("«review»");
  });
});

describe("automation trigger «статус согласования изменился»", () => {
  it("fires on review.decided with the status it names, not on another status", async () => {
    const { assetId } = await scene();
    const admin = await signInAdmin();
    const make = async (status?: string) => {
      const res = await send<{ id: string }>("POST", "/api/tasklist/udwf/workflow", admin.bearer, {
        name: uniqueName("Согласование"),
        enabled: true,
        trigger: { type: "review.decided", ...(status ? { status } : {}) },
        actions: [{ type: "wait", seconds: 1 }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.id;
    };
    const onApproved = await make("approved");
    const onRejected = await make("rejected");
    const onAny = await make();
    await json(await put(admin.bearer, assetId, { status: "approved" }));
    // The dispatcher, run here rather than waited for (the queue's wake-up is covered by event-outbox.test.ts).
    await deliverEvents(testContext());
    // Only this file's decision: earlier tests' decisions are in the outbox too, and fire these automations as well.
    const delivered = (wf: string) =>
      rows("select 1 from event_deliveries d join global_events e on e.event_id = d.event_id where d.workflow_id = ? and e.entity_id = ?", wf, assetId);
    expect(await delivered(onApproved)).toHaveLength(1);
    expect(await delivered(onAny)).toHaveLength(1);
    expect(await delivered(onRejected)).toHaveLength(0);
    const bad = await send("POST", "/api/tasklist/udwf/workflow", admin.bearer, {
      name: uniqueName("Согласование"),
      trigger: { type: "review.decided", status: "done" },
      actions: [{ type: "wait", seconds: 1 }],
    });
    expect(bad.status).toBe(400);
  }, 60_000);
});
