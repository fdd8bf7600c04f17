import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { call, expectError } from "./factories";
import { json } from "./asset-fixtures";
import { admin, createGroup, insertAsset, ordinaryUser, send, uniqueName } from "./library-factories";

/**
 * The map (decision record 036 names the list calls it takes): photos' EXIF positions on search hits and on a
 * folder's locations call, and the `bbox` filter of both — with bad areas refused and unreadable files left out.
 */

/** A photo with a position, as processing stores it (exifr's decimal degrees in tech_fields.exif). */
async function photoAt(ownerId: string, group: string, name: string, lat: number, lon: number) {
  const asset = await insertAsset({ ownerId, groups: [group], name, mime: "image/jpeg", variantType: "initial" });
  await env.DB.prepare("update variants set tech_fields = ? where id = ?")
    .bind(JSON.stringify({ exif: { latitude: lat, longitude: lon, Make: "Canon" } }), asset.variantId)
    .run();
  return asset.id;
}

async function scene() {
  const owner = await ordinaryUser();
  const word = `карта${uniqueName("").replace(/\W/g, "").slice(-6)}`;
  const group = await createGroup(owner, uniqueName());
  const moscow = await photoAt(owner.id, group, `${word} Москва.jpg`, 55.7558, 37.6173);
  const paris = await photoAt(owner.id, group, `${word} Париж.jpg`, 48.8566, 2.3522);
  const fiji = await photoAt(owner.id, group, `${word} Фиджи.jpg`, -17.7, 179.5);
  const nowhere = (await insertAsset({ ownerId: owner.id, groups: [group], name: `${word} без места.jpg`, mime: "image/jpeg" })).id;
  return { owner, word, group, moscow, paris, fiji, nowhere };
}

type Hit = { id: string; lat: number | null; lon: number | null };
const search = (bearer: string, word: string, qs = "") => call(`/api/search/query/${encodeURIComponent(word)}${qs}`, { bearer });

describe("search by the visible area (bbox)", () => {
  it("hits carry lat/lon; bbox keeps those taken inside, also across the antimeridian", async () => {
    const s = await scene();
    const all = await json<{ hits: Hit[] }>(await search(s.owner.bearer, s.word));
    const byId = new Map(all.hits.map((h) => [h.id, h]));
    expect(byId.get(s.moscow)).toMatchObject({ lat: 55.7558, lon: 37.6173 });
    expect(byId.get(s.nowhere)).toMatchObject({ lat: null, lon: null });
    const europe = await json<{ hits: Hit[] }>(await search(s.owner.bearer, s.word, "?bbox=-10,35,60,70"));
    expect(europe.hits.map((h) => h.id).sort()).toEqual([s.moscow, s.paris].sort());
    const moscowOnly = await json<{ hits: Hit[] }>(await search(s.owner.bearer, s.word, "?bbox=37,55,38,56"));
    expect(moscowOnly.hits.map((h) => h.id)).toEqual([s.moscow]);
    const pacific = await json<{ hits: Hit[] }>(await search(s.owner.bearer, s.word, "?bbox=170,-30,-170,0"));
    expect(pacific.hits.map((h) => h.id)).toEqual([s.fiji]);
  });

  it("answers 400 naming bbox for latitudes past ±90, longitudes past ±180, a wrong shape, south above north", async () => {
    const s = await scene();
    const message = async (bbox: string) => (await expectError(await search(s.owner.bearer, s.word, `?bbox=${encodeURIComponent(bbox)}`), 400)).message;
    expect(await message("0,-91,10,10")).toBe(ru.errors.invalidField("bbox", ru.mapSearch.latRange));
    expect(await message("0,0,10,90.5")).toBe(ru.errors.invalidField("bbox", ru.mapSearch.latRange));
    expect(await message("-181,0,10,10")).toBe(ru.errors.invalidField("bbox", ru.mapSearch.lonRange));
    expect(await message("0,0,180.1,10")).toBe(ru.errors.invalidField("bbox", ru.mapSearch.lonRange));
    expect(await message("1,2,3")).toBe(ru.errors.invalidField("bbox", ru.mapSearch.bboxShape));
    expect(await message("a,b,c,d")).toBe(ru.errors.invalidField("bbox", ru.mapSearch.bboxShape));
    expect(await message("1,2,,4")).toBe(ru.errors.invalidField("bbox", ru.mapSearch.bboxShape));
    expect(await message("0,20,10,10")).toBe(ru.errors.invalidField("bbox", ru.mapSearch.southAboveNorth));
  });
});

describe("GET /api/group/locations/{id}", () => {
  it("lists the folder's placed photos, inside bbox when given, bounded by take; someone who cannot read the folder gets 404", async () => {
    const s = await scene();
    const all = await json<{ items: { asset_id: string; lat: number; lon: number }[]; truncated: boolean }>(
      await call(`/api/group/locations/${s.group}`, { bearer: s.owner.bearer }),
    );
    expect(all.items.map((i) => i.asset_id).sort()).toEqual([s.moscow, s.paris, s.fiji].sort());
    expect(all.truncated).toBe(false);
    const inside = await json<{ items: { asset_id: string }[] }>(await call(`/api/group/locations/${s.group}?bbox=0,40,10,50`, { bearer: s.owner.bearer }));
    expect(inside.items.map((i) => i.asset_id)).toEqual([s.paris]);
    const limited = await json<{ items: unknown[]; truncated: boolean }>(await call(`/api/group/locations/${s.group}?take=1`, { bearer: s.owner.bearer }));
    expect(limited).toMatchObject({ truncated: true });
    expect(limited.items).toHaveLength(1);

    // A reader of one photo only, through a rule on it: the folder stays unknown to him.
    const reader = await ordinaryUser();
    await expectError(await call(`/api/group/locations/${s.group}`, { bearer: reader.bearer }), 404);
    await expectError(await call(`/api/group/locations/${s.group}?bbox=0,95,1,1`, { bearer: s.owner.bearer }), 400);
    await expectError(await call(`/api/group/locations/${s.group}?take=5000`, { bearer: s.owner.bearer }), 400);
  });
});

describe("GET /api/collections/{id}/locations", () => {
  type Located = { items: { asset_id: string; lat: number; lon: number }[]; truncated: boolean };
  async function okCall<T>(method: string, path: string, bearer: string, json?: unknown, status = 200): Promise<T> {
    const res = await send<T>(method, path, bearer, json);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    return res.body;
  }

  it("lists the placed items the caller may read, inside bbox when given; unreadable items leave no trace", async () => {
    const s = await scene();
    // A photo of someone else's, in a folder only the collection's owner may read: a viewer of the collection
    // must not see it on the map, nor learn of it.
    const other = await ordinaryUser();
    const otherFolder = await createGroup(other, uniqueName());
    const secret = await photoAt(other.id, otherFolder, `${s.word} тайное.jpg`, 55.75, 37.62);
    const boss = await admin();
    await okCall("POST", "/api/user/acl", boss.bearer, { subj: s.owner.id, obj: otherFolder, acl: ["read"] }, 201);
    const { collection_id: id } = await okCall<{ collection_id: string }>("POST", "/api/collections", s.owner.bearer, { name: uniqueName("Коллекция") }, 201);
    await okCall("POST", `/api/collections/${id}/items`, s.owner.bearer, { asset_ids: [s.paris, s.moscow, s.nowhere, secret, s.fiji] });

    const all = await json<Located>(await call(`/api/collections/${id}/locations`, { bearer: s.owner.bearer }));
    // collection order, the file without a position left out
    expect(all.items.map((i) => i.asset_id)).toEqual([s.paris, s.moscow, secret, s.fiji]);
    expect(all.items[1]).toMatchObject({ lat: 55.7558, lon: 37.6173 });
    const pacific = await json<Located>(await call(`/api/collections/${id}/locations?bbox=170,-30,-170,0`, { bearer: s.owner.bearer }));
    expect(pacific.items.map((i) => i.asset_id)).toEqual([s.fiji]);
    const limited = await json<Located>(await call(`/api/collections/${id}/locations?take=2`, { bearer: s.owner.bearer }));
    expect(limited).toMatchObject({ truncated: true });
    expect(limited.items).toHaveLength(2);

    // A viewer the collection is shared with, who reads the owner's folder but not the other folder.
    const viewer = await ordinaryUser();
    await okCall("POST", "/api/user/acl", boss.bearer, { subj: viewer.id, obj: s.group, acl: ["read"] }, 201);
    await okCall("PUT", `/api/collections/${id}/members`, s.owner.bearer, { subj: viewer.id, subj_type: "user", role: "view" });
    const seen = await call(`/api/collections/${id}/locations?bbox=37,55,38,56`, { bearer: viewer.bearer });
    const body = await seen.text();
    expect((JSON.parse(body) as Located).items.map((i) => i.asset_id)).toEqual([s.moscow]);
    expect(body).not.toContain(secret);
    expect(body).not.toContain("тайное");
  });

  it("someone the collection is not shared with gets the same 404 as for no collection; bad areas are a 400 naming bbox", async () => {
    const s = await scene();
    const { collection_id: id } = await okCall<{ collection_id: string }>("POST", "/api/collections", s.owner.bearer, { name: uniqueName("Коллекция") }, 201);
    await okCall("POST", `/api/collections/${id}/items`, s.owner.bearer, { asset_ids: [s.moscow] });
    const stranger = await ordinaryUser();
    const refused = await expectError(await call(`/api/collections/${id}/locations`, { bearer: stranger.bearer }), 404);
    const missing = await expectError(await call(`/api/collections/${"0".repeat(32)}/locations`, { bearer: stranger.bearer }), 404);
    expect(refused.message).toBe(missing.message);
    await expectError(await call(`/api/collections/${id}/locations`), 401);
    const bad = await expectError(await call(`/api/collections/${id}/locations?bbox=0,95,1,1`, { bearer: s.owner.bearer }), 400);
    expect(bad.message).toBe(ru.errors.invalidField("bbox", ru.mapSearch.latRange));
    await expectError(await call(`/api/collections/${id}/locations?take=5000`, { bearer: s.owner.bearer }), 400);
    await expectError(await call(`/api/collections/${id}/locations?zoom=3`, { bearer: s.owner.bearer }), 400);
  });
});
