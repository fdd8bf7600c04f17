import { describe, expect, it, vi } from "vitest";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { createAsset, rows } from "./asset-fixtures";
import { fixture } from "./processing-fixtures";
import { getJson, postJson, uploadFile } from "./task-fixtures";

interface EventJson {
  seq: number;
  type: string;
  entity_type: string;
  entity_id: string;
  owner: string | null;
  actor: string | null;
  data: Record<string, unknown>;
}
interface Page {
  events: EventJson[];
  next_after: number;
}

/** Every event about an entity the caller may read, paging through the whole list. */
async function eventsAbout(bearer: string, entityId: string, types?: string) {
  const out: EventJson[] = [];
  let after = 0;
  for (;;) {
    const page = await getJson<Page>(`/api/global-events/list?after=${after}&take=500${types ? `&types=${types}` : ""}`, bearer);
    out.push(...page.events.filter((e) => e.entity_id === entityId));
    if (page.events.length < 500) return out;
    after = page.next_after;
  }
}

describe("global events", () => {
  it("records asset creation, upload (with the group), rename and trash in the batch of the change", async () => {
    const user = await signIn();
    const { group_id } = await postJson<{ group_id: string }>("/api/group/create", user.bearer, {
      parent: "f".repeat(32),
      group_name: `События ${Date.now()}`,
    });
    const { assetId, variantId } = await uploadFile(user.bearer, {
      name: "e.jpg",
      mime: "image/jpeg",
      bytes: fixture("tiny"),
      group: group_id,
    });
    await call(`/api/asset/update/${assetId}`, { method: "PATCH", bearer: user.bearer, json: { asset_name: "e2.jpg" } });
    await call(`/api/asset/delete/${assetId}`, { method: "DELETE", bearer: user.bearer });
    const events = await eventsAbout(user.bearer, assetId);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["asset.created", "asset.uploaded"]));
    const uploaded = events.find((e) => e.type === "asset.uploaded")!;
    expect(uploaded).toMatchObject({
      entity_type: "asset",
      owner: user.id,
      actor: user.id,
      data: { variant_id: variantId, mime_type: "image/jpeg" },
    });
    const types = events.map((e) => e.type);
    expect(types.indexOf("asset.created")).toBeLessThan(types.indexOf("asset.uploaded"));
    expect(events.every((e, i) => i === 0 || e.seq > events[i - 1].seq)).toBe(true);
    const groupEvents = await eventsAbout(user.bearer, group_id, "group.*");
    expect(groupEvents.map((e) => e.type)).toEqual(["group.created"]);
  });

  it("records a file moved between folders", async () => {
    const user = await signIn();
    const root = "f".repeat(32);
    const { group_id: from } = await postJson<{ group_id: string }>("/api/group/create", user.bearer, {
      parent: root,
      group_name: `Из ${Date.now()}`,
    });
    const { group_id: to } = await postJson<{ group_id: string }>("/api/group/create", user.bearer, {
      parent: root,
      group_name: `В ${Date.now()}`,
    });
    const assetId = await createAsset(user.bearer, { in_group: from });
    const res = await call(`/api/group/move-member/${assetId}/${from}/${to}`, { method: "POST", bearer: user.bearer });
    expect(res.status, await res.text()).toBeLessThan(300);
    const moved = await eventsAbout(user.bearer, assetId, "asset.moved");
    expect(moved.map((e) => e.data)).toEqual([{ from, to }]);
  });

  it("records tags put on and taken off, once per pair that changes", async () => {
    const user = await signIn();
    const assetId = await createAsset(user.bearer);
    const { tag_id } = await postJson<{ tag_id: string }>("/api/tags/create", user.bearer, { tag_name: `Тег ${Date.now()}` });
    const tagging = { tag_ids: [tag_id], entities: [{ id: assetId, type: "asset" }] };
    await postJson("/api/tags/attach", user.bearer, tagging);
    await postJson("/api/tags/attach", user.bearer, tagging);
    await postJson("/api/tags/detach", user.bearer, tagging);
    const events = await eventsAbout(user.bearer, assetId, "tag.attached,tag.detached");
    expect(events.map((e) => [e.type, e.data.tag_id])).toEqual([
      ["tag.attached", tag_id],
      ["tag.detached", tag_id],
    ]);
  });

  it("shows people only events about what they own; administrators see all", async () => {
    const owner = await signIn();
    const other = await signIn();
    const assetId = await createAsset(owner.bearer);
    expect(await eventsAbout(other.bearer, assetId)).toEqual([]);
    expect((await eventsAbout((await signInAdmin()).bearer, assetId)).map((e) => e.type)).toEqual(["asset.created"]);
  });

  it("pages after a seq and filters by type", async () => {
    const user = await signIn();
    for (let i = 0; i < 3; i++) await createAsset(user.bearer);
    const first = await getJson<Page>("/api/global-events/list?take=2&types=asset.created", user.bearer);
    expect(first.events).toHaveLength(2);
    expect(first.events.every((e) => e.type === "asset.created" && e.owner === user.id)).toBe(true);
    const next = await getJson<Page>(`/api/global-events/list?take=2&types=asset.created&after=${first.next_after}`, user.bearer);
    expect(next.events[0].seq).toBeGreaterThan(first.next_after);
    const empty = await getJson<Page>("/api/global-events/list?after=999999999", user.bearer);
    expect(empty).toEqual({ events: [], next_after: 999999999 });
  });

  it("refuses bad paging and types (400) and anonymous callers (401)", async () => {
    const user = await signIn();
    await expectError(await call("/api/global-events/list?take=0", { bearer: user.bearer }), 400);
    await expectError(await call("/api/global-events/list?after=-1", { bearer: user.bearer }), 400);
    await expectError(await call("/api/global-events/list?types=DROP TABLE", { bearer: user.bearer }), 400);
    await expectError(await call("/api/global-events/list"), 401);
  });

  it("keeps no event of a change that failed", async () => {
    const user = await signIn();
    const before = (await rows<{ n: number }>("select count(*) as n from global_events"))[0].n;
    const res = await call("/api/asset/create", {
      method: "POST",
      bearer: user.bearer,
      json: { asset_name: "x", asset_mime: "image/jpeg", in_group: "0".repeat(31) + "9" },
    });
    expect(res.status).toBe(404);
    await vi.waitFor(async () => expect((await rows<{ n: number }>("select count(*) as n from global_events"))[0].n).toBe(before));
  });
});
