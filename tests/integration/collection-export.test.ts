import { env } from "cloudflare:workers";
import { unzipSync } from "fflate";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { maskOf } from "../../workers/services/access/access-policy";
import { call, expectError } from "./factories";
import { createGroup, insertAsset, ordinaryUser, send, uniqueName, type Caller } from "./library-factories";

/** From a collection: a ZIP (POST /api/zip with collection_id) and the metadata CSV (GET /api/metadata/csv?collection_id). */

async function ok<T>(method: string, path: string, who: Caller, json?: unknown, status = 200): Promise<T> {
  const res = await send<T>(method, path, who.bearer, json);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

/**
 * An owner's collection of three of his files and one of a colleague's (added while the owner could read it); a
 * member with `view` who reads only two of the owner's files.
 */
async function scene() {
  const owner = await ordinaryUser();
  const colleague = await ordinaryUser();
  const member = await ordinaryUser();
  const folder = await createGroup(owner, uniqueName("Съёмка"));
  const other = await createGroup(colleague, uniqueName("Чужая"));
  const files = [];
  for (const name of ["альфа.jpg", "бета.jpg", "гамма.jpg"]) {
    files.push(await insertAsset({ ownerId: owner.id, groups: [folder], name, mime: "image/jpeg", size: 120, putBytes: true }));
  }
  const foreign = await insertAsset({ ownerId: colleague.id, groups: [other], name: "чужой.jpg", mime: "image/jpeg", size: 50, putBytes: true });
  const c = await ok<{ collection_id: string }>("POST", "/api/collections", owner, { name: "Отбор" }, 201);
  await ok("POST", `/api/collections/${c.collection_id}/items`, owner, { asset_ids: [files[2].id, files[0].id, files[1].id] });
  await env.DB.prepare("insert into collection_items (collection_id, asset_id, pos, added_by, added_at) values (?, ?, 99, ?, ?)")
    .bind(c.collection_id, foreign.id, colleague.id, Date.now())
    .run();
  await ok("PUT", `/api/collections/${c.collection_id}/members`, owner, { subj: member.id, subj_type: "user", role: "view" });
  for (const f of [files[0], files[2]]) {
    await env.DB.prepare("INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) VALUES (?, ?, 'user', ?, 'asset', ?, ?)")
      .bind(newId(), member.id, f.id, maskOf(["read", "download"]), Date.now())
      .run();
  }
  return { owner, member, id: c.collection_id, files, foreign };
}

async function zip(who: Caller, body: Record<string, unknown>) {
  return call("/api/zip", { method: "POST", bearer: who.bearer, json: body });
}

async function zipNames(who: Caller, body: Record<string, unknown>): Promise<string[]> {
  const res = await zip(who, body);
  expect(res.status, res.status === 200 ? "" : await res.clone().text()).toBe(200);
  return Object.keys(unzipSync(new Uint8Array(await res.arrayBuffer())));
}

describe("POST /api/zip with collection_id", () => {
  it("the owner gets every item he may download; the unreadable one is never named", async () => {
    const s = await scene();
    const names = await zipNames(s.owner, { collection_id: s.id });
    expect(names.sort()).toEqual(["альфа.jpg", "бета.jpg", "гамма.jpg"]);
  });

  it("a member gets only the items he may read, and a selection narrows it", async () => {
    const s = await scene();
    const names = await zipNames(s.member, { collection_id: s.id });
    expect(names.sort()).toEqual(["альфа.jpg", "гамма.jpg"]);
    // An unreadable item in the selection is dropped unnamed, like one outside the collection.
    expect(await zipNames(s.member, { collection_id: s.id, asset_ids: [s.files[0].id, s.files[1].id, s.foreign.id] })).toEqual(["альфа.jpg"]);
    const none = await expectError(await zip(s.member, { collection_id: s.id, asset_ids: [s.files[1].id] }), 400);
    expect(none.message).toBe(ru.collectionExport.zipEmpty);
  });

  it("a stranger gets the same 404 as for no collection; folders with a collection are a 400", async () => {
    const s = await scene();
    const stranger = await ordinaryUser();
    const hidden = await expectError(await zip(stranger, { collection_id: s.id }), 404);
    const unknown = await expectError(await zip(stranger, { collection_id: newId() }), 404);
    expect(hidden.message).toBe(unknown.message);
    const mixed = await expectError(await zip(s.owner, { collection_id: s.id, group_ids: [newId()] }), 400);
    expect(mixed.message).toContain(ru.collectionExport.zipWithFolders);
  });
});

describe("GET /api/metadata/csv?collection_id", () => {
  const csv = async (who: Caller, query: string) => {
    const res = await call(`/api/metadata/csv?${query}`, { bearer: who.bearer });
    return { res, text: await res.text() };
  };

  it("lists the member's readable items in collection order, named after the collection", async () => {
    const s = await scene();
    const { res, text } = await csv(s.member, `collection_id=${s.id}`);
    expect(res.status, text).toBe(200);
    expect(res.headers.get("content-disposition")).toContain(encodeURIComponent("Отбор.csv"));
    const rows = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ""), { header: true, skipEmptyLines: true }).data;
    expect(rows.map((r) => r.name)).toEqual(["гамма.jpg", "альфа.jpg"]);
    expect(text).not.toContain("бета");
    expect(text).not.toContain("чужой");
    const mine = Papa.parse<Record<string, string>>((await csv(s.owner, `collection_id=${s.id}`)).text.replace(/^\uFEFF/, ""), { header: true, skipEmptyLines: true }).data;
    expect(mine.map((r) => r.name)).toEqual(["гамма.jpg", "альфа.jpg", "бета.jpg"]);
  });

  it("a stranger gets the same 404 as for no collection; two sources are a 400", async () => {
    const s = await scene();
    const stranger = await ordinaryUser();
    const hidden = await expectError(await call(`/api/metadata/csv?collection_id=${s.id}`, { bearer: stranger.bearer }), 404);
    const unknown = await expectError(await call(`/api/metadata/csv?collection_id=${newId()}`, { bearer: stranger.bearer }), 404);
    expect(hidden.message).toBe(unknown.message);
    const two = await expectError(await call(`/api/metadata/csv?collection_id=${s.id}&q=кадр`, { bearer: s.owner.bearer }), 400);
    expect(two.message).toContain(ru.collectionExport.csvSourceOne);
  });
});
