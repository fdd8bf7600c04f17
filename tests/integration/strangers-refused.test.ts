import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { createAsset, rows, snapshot } from "./asset-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { admin, createGroup, insertAsset, ordinaryUser, send, uniqueName } from "./library-factories";
import {
  MIB,
  complete,
  createUpload,
  expectS3Error,
  forgedQuery,
  partBytes,
  putPart,
  s3,
  sign,
  signCall,
  startMultipart,
  xmlTag,
} from "./multipart-fixtures";
import { buy, expectListed, sellableAsset } from "./shop-fixtures";
import { insertTask } from "./task-fixtures";

/**
 * The parts not tried before issue 24, tried: each case is a stranger (or a confined user) asking for what is not
 * theirs, refused with a clear 4xx, and nothing changes.
 */

describe("shop: prices come from the listing, orders belong to their buyer", () => {
  it("ignores a price, total, currency or item list the client sends with the basket and the checkout", async () => {
    const boss = await admin();
    const asset = await sellableAsset(boss);
    await expectListed(boss, asset.id, { price: 150000, currency: "RUB", licence: "Редакционное использование" });
    const buyer = await ordinaryUser();
    const add = await call("/api/shop/basket", {
      method: "POST",
      bearer: buyer.bearer,
      json: { entity_id: asset.id, price: 1, currency: "USD", total: 1 },
    });
    expect(add.status).toBe(200);
    const basket = (await add.json()) as { items: { price: number; currency: string }[] };
    expect(basket.items.map((i) => [i.price, i.currency])).toEqual([[150000, "RUB"]]);
    const checkout = await call("/api/shop/checkout", {
      method: "POST",
      bearer: buyer.bearer,
      json: { total: 1, currency: "USD", items: [{ entity_id: asset.id, price: 1 }], status: "paid", buyer_id: boss.id },
    });
    const order = (await checkout.json()) as { total: number; currency: string; status: string; buyer_id: string; items: { price: number }[] };
    expect(checkout.status, JSON.stringify(order)).toBe(201);
    expect(order).toMatchObject({ total: 150000, currency: "RUB", buyer_id: buyer.id });
    expect(order.status).not.toBe("paid");
    expect(order.items.map((i) => i.price)).toEqual([150000]);
    const [stored] = await rows<{ total: number; buyer_id: string }>(`select total, buyer_id from shop_orders where buyer_id = ?`, buyer.id);
    expect(stored).toMatchObject({ total: 150000, buyer_id: buyer.id });
    // nothing granted before an administrator approves
    expect(await rows(`select id from access_rules where subj_id = ? and obj_id = ?`, buyer.id, asset.id)).toEqual([]);
  });

  it("a listing's price changed after the basket was filled is the price ordered", async () => {
    const boss = await admin();
    const asset = await sellableAsset(boss);
    await expectListed(boss, asset.id, { price: 1000, currency: "RUB", licence: "Любое использование" });
    const buyer = await ordinaryUser();
    expect((await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: asset.id } })).status).toBe(200);
    await expectListed(boss, asset.id, { price: 99000, currency: "RUB", licence: "Любое использование" });
    const order = (await (await call("/api/shop/checkout", { method: "POST", bearer: buyer.bearer, json: {} })).json()) as { total: number };
    expect(order.total).toBe(99000);
  });

  it("another user can neither read, cancel, approve nor empty someone's order or basket", async () => {
    const boss = await admin();
    const first = await sellableAsset(boss);
    const second = await sellableAsset(boss, "Рассвет.jpg");
    await expectListed(boss, first.id);
    await expectListed(boss, second.id);
    const buyer = await ordinaryUser();
    const stranger = await ordinaryUser();
    const order = await buy(buyer, [first.id]);
    expect((await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: second.id } })).status).toBe(200);
    const before = await rows(`select * from shop_orders where buyer_id = ?`, buyer.id);
    const basketBefore = await rows(`select * from shop_basket_items where user_id = ?`, buyer.id);
    await expectError(await call(`/api/shop/order/${order.id}`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/shop/order/${order.id}/cancel`, { method: "POST", bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/shop/order/${order.id}/approve`, { method: "POST", bearer: stranger.bearer }), 403);
    await expectError(await call(`/api/shop/order/${order.id}/refund`, { method: "POST", bearer: stranger.bearer }), 403);
    await expectError(await call(`/api/shop/orders?all=true`, { bearer: stranger.bearer }), 403);
    // removing the buyer's basket item from one's own basket touches only one's own basket
    expect((await call(`/api/shop/basket/${second.id}`, { method: "DELETE", bearer: stranger.bearer })).status).toBe(200);
    const strangerBasket = (await (await call("/api/shop/basket", { bearer: stranger.bearer })).json()) as { items: unknown[] };
    expect(strangerBasket.items).toEqual([]);
    expect(await rows(`select * from shop_orders where buyer_id = ?`, buyer.id)).toEqual(before);
    expect(await rows(`select * from shop_basket_items where user_id = ?`, buyer.id)).toEqual(basketBefore);
  });
});

describe("S3 multipart: part numbers and upload ids", () => {
  async function openUpload() {
    const owner = await signIn();
    const id = await createAsset(owner.bearer);
    const info = await startMultipart(owner.bearer, id, 12 * MIB);
    const uploadId = await createUpload(owner.bearer, info.variant_id);
    return { owner, id, info, uploadId };
  }

  const parts = async (bearer: string, variantId: string, uploadId: string) => {
    const signed = await sign(bearer, variantId, "list", { upload_id: uploadId });
    const res = await s3(signed.url, { method: "GET" });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    return [...body.matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) => Number(m[1]));
  };

  it("refuses negative, fractional, exponent and oversized part numbers in the URL and when signing (400), storing nothing", async () => {
    const { owner, info, uploadId } = await openUpload();
    const signed = await sign(owner.bearer, info.variant_id, "part", { upload_id: uploadId, part_number: 1 });
    for (const n of ["-1", "1.5", "1e3", "+2", " 3", "0x10", "99999999999999999999", "10000000000"]) {
      const url = new URL(signed.url);
      url.searchParams.set("partNumber", n);
      await expectS3Error(await s3(url.href, { method: "PUT", body: "abc" }), 400, "InvalidArgument");
    }
    for (const n of [-1, 1.5, 10_001, 2 ** 53]) {
      await expectError(await signCall(owner.bearer, { variant_id: info.variant_id, op: "part", method: "PUT", upload_id: uploadId, part_number: n }), 400);
    }
    expect(await parts(owner.bearer, info.variant_id, uploadId)).toEqual([]);
  });

  it("a part uploaded twice keeps one entry (the last), and duplicates in the complete list are refused", async () => {
    const { owner, id, info, uploadId } = await openUpload();
    await putPart(owner.bearer, info.variant_id, uploadId, 1, partBytes(5 * MIB, 1));
    const again = await putPart(owner.bearer, info.variant_id, uploadId, 1, partBytes(5 * MIB, 9));
    expect(await parts(owner.bearer, info.variant_id, uploadId)).toEqual([1]);
    const last = await putPart(owner.bearer, info.variant_id, uploadId, 2, partBytes(1000, 2));
    const before = await snapshot(id);
    const dup = await complete(owner.bearer, info.variant_id, uploadId, [
      { partNumber: 1, etag: again },
      { partNumber: 1, etag: again },
      { partNumber: 2, etag: last },
    ]);
    expect(dup.status).toBe(400);
    await dup.body?.cancel();
    expect(await snapshot(id)).toEqual(before);
  });

  it("another user's upload id is refused for one's own variant, and parts of another upload never complete this one", async () => {
    const a = await openUpload();
    const b = await openUpload();
    const aPart = await putPart(a.owner.bearer, a.info.variant_id, a.uploadId, 1, partBytes(1000, 3));
    const before = { a: await snapshot(a.id), b: await snapshot(b.id) };
    // B asks to sign a part of A's upload for B's own variant
    await expectError(
      await signCall(b.owner.bearer, { variant_id: b.info.variant_id, op: "part", method: "PUT", upload_id: a.uploadId, part_number: 2 }),
      404,
    );
    await expectError(await signCall(b.owner.bearer, { variant_id: b.info.variant_id, op: "abort", method: "DELETE", upload_id: a.uploadId }), 404);
    // and A's variant with A's upload id (B holds no right on it)
    await expectError(await signCall(b.owner.bearer, { variant_id: a.info.variant_id, op: "abort", method: "DELETE", upload_id: a.uploadId }), 404);
    // a signature made for B's variant but naming A's upload id (as a forger with B's identity would) finds no upload
    const forged = `/api/s3/media/${b.info.key}?uploadId=${a.uploadId}&partNumber=2&${await forgedQuery("part", b.owner.id, b.info.variant_id, a.uploadId, 2)}`;
    const res = await call(forged, { method: "PUT", body: partBytes(100, 4) });
    expect([403, 404]).toContain(res.status);
    await res.body?.cancel();
    const abort = `/api/s3/media/${b.info.key}?uploadId=${a.uploadId}&${await forgedQuery("abort", b.owner.id, b.info.variant_id, a.uploadId)}`;
    const aborted = await call(abort, { method: "DELETE" });
    expect([403, 404]).toContain(aborted.status);
    await aborted.body?.cancel();
    // B completes its own upload with A's part: refused, nothing committed
    const foreign = await complete(b.owner.bearer, b.info.variant_id, b.uploadId, [{ partNumber: 1, etag: aPart }]);
    expect(foreign.status).toBe(400);
    await foreign.body?.cancel();
    expect({ a: await snapshot(a.id), b: await snapshot(b.id) }).toEqual(before);
    expect(await parts(a.owner.bearer, a.info.variant_id, a.uploadId)).toEqual([1]);
    void xmlTag;
  });
});

describe("a user confined to a home folder (users.chroot_groups)", () => {
  it("reaches nothing outside it through any list, get or search, even holding rules there", async () => {
    const boss = await admin();
    const marker = `заграница${newId().slice(-8).replace(/\d/g, "ж")}`;
    const home = await createGroup(boss, uniqueName("Дом"));
    const outside = await createGroup(boss, `${marker} папка`);
    const inside = await insertAsset({ ownerId: boss.id, name: `дома ${marker.slice(0, 4)}.mp4`, groups: [home] });
    const away = await insertAsset({ ownerId: boss.id, name: `${marker} файл.mp4`, groups: [outside], preview: true });
    const user = await ordinaryUser();
    for (const obj of [home, outside, away.id]) {
      const rule = await send("POST", "/api/user/acl", boss.bearer, { subj: user.id, obj, acl: ["read", "download", "update", "create"] });
      expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    }
    const chroot = await send("PATCH", `/api/user/${user.id}`, boss.bearer, { chroot_groups: [home] });
    expect(chroot.status, JSON.stringify(chroot.body)).toBe(200);
    // the search index knows the outside entities
    expect(JSON.stringify(await rows(`select entity_id from search_docs where entity_id in (?, ?)`, outside, away.id))).toContain(away.id);

    const secrets = [outside, away.id, marker];
    const leaks: string[] = [];
    const check = async (label: string, res: Response) => {
      const text = await res.text();
      if (res.status === 404 && text.includes("Маршрут")) leaks.push(`${label}: no such route (fix the test)`);
      if (res.status >= 500) leaks.push(`${label}: ${res.status}`);
      for (const s of secrets) if (text.includes(s)) leaks.push(`${label}: answers ${s === marker ? "the outside name" : s} (${res.status}) ${text.slice(0, 300)}`);
    };
    const get = (path: string) => call(path, { bearer: user.bearer });
    const post = (path: string, json: unknown) => call(path, { method: "POST", bearer: user.bearer, json });
    const q = encodeURIComponent(marker);
    for (const path of [
      `/api/group/members/${ROOT_GROUP_ID}`,
      `/api/group/members/${outside}`,
      `/api/group/get/${outside}`,
      `/api/group/get/${ROOT_GROUP_ID}`,
      `/api/group/subtree/${ROOT_GROUP_ID}`,
      `/api/group/subtree/${outside}`,
      `/api/group/dir/${outside}`,
      `/api/group/preview-list/${outside}`,
      `/api/group/storage/${outside}`,
      `/api/group/roots`,
      `/api/group/acl-roots`,
      `/api/group/trash`,
      `/api/group/search?q=${q}`,
      `/api/asset/${away.id}?versions=true&groups=true&tags=true`,
      `/api/asset/content/preview/${away.id}/1/thumb`,
      `/api/search/query/${q}`,
      `/api/search/query/${q}?facets=true`,
      `/api/search/autocomplete/${q}`,
      `/api/fields/for-entity/${away.id}`,
      `/api/storage/for-entity/${away.id}`,
      `/api/sl/for-entity/${away.id}`,
      `/api/auth/entity-access/${away.id}`,
      `/api/auth/entity-access/${outside}`,
      `/api/wopi/lock/${away.id}`,
      `/api/global-events/list`,
    ]) {
      await check(`GET ${path}`, await get(path));
    }
    await check("POST existing-names", await post(`/api/group/existing-names/${outside}`, { names: [`${marker} файл.mp4`] }));
    await check("POST play", await post(`/api/asset/content/play/${away.id}`, {}));
    await check("POST rag", await post("/api/search/rag", { question: marker }));
    await check("POST group-size", await post("/api/group/group-size", { ids: [outside] }));
    await check("POST entity-by-path", await post(`/api/group/entity-by-path/${ROOT_GROUP_ID}`, { path: `${marker} папка/${marker} файл.mp4` }));
    await check("POST preview-by-list", await post("/api/asset/content/preview-by-list", { ids: [away.id] }));
    await check("POST wopi token", await post("/api/wopi/token", { asset_id: away.id }));
    await check("POST shortlink", await post(`/api/sl/create/${away.id}`, {}));
    await check("POST insert into home", await post(`/api/group/insert-members/${home}`, { members: [{ el_id: away.id, el_type: "asset" }] }));
    expect(leaks).toEqual([]);
    // inside the home folder everything works
    expect((await get(`/api/asset/${inside.id}`)).status).toBe(200);
    expect(await rows(`select group_id from group_members where el_id = ? and trashed_at is null`, away.id)).toEqual([{ group_id: outside }]);
  });
});

describe("tasks of other users", () => {
  it("are refused as unknown (404) for reading, the log, the result, the export, commands and priority; nothing changes", async () => {
    const owner = await signIn();
    const stranger = await signIn();
    const task = await insertTask({ status: "paused", ownerId: owner.id, name: `Чужая задача ${owner.id}` });
    const done = await insertTask({ status: "done", ownerId: owner.id, op: "export" });
    const before = await rows(`select * from tasks where id in (?, ?) order by id`, task, done);
    const as = (path: string, init: { method?: string; json?: unknown } = {}) => call(path, { ...init, bearer: stranger.bearer });
    await expectError(await as(`/api/tasklist/task/${task}`), 404);
    await expectError(await as(`/api/tasklist/log/${task}`), 404);
    await expectError(await as(`/api/tasklist/task-result/${done}`), 404);
    await expectError(await as(`/api/tasklist/export/${done}`), 404);
    for (const command of ["cancel", "pause", "resume", "restart"]) {
      await expectError(await as(`/api/tasklist/command/${task}`, { method: "POST", json: { command } }), 404);
    }
    await expectError(await as(`/api/tasklist/priority/${task}`, { method: "POST", json: { priority: 10 } }), 404);
    const list = (await (await as(`/api/tasklist/current?name=${owner.id}`)).json()) as unknown[];
    expect(list).toEqual([]);
    const status = (await (await as("/api/tasklist/task-status", { method: "POST", json: { ids: [task, done] } })).json()) as unknown[];
    expect(status).toEqual([]);
    expect(await rows(`select * from tasks where id in (?, ?) order by id`, task, done)).toEqual(before);
    // the owner and an administrator may
    expect((await call(`/api/tasklist/task/${task}`, { bearer: owner.bearer })).status).toBe(200);
    expect((await call(`/api/tasklist/task/${task}`, { bearer: (await signInAdmin()).bearer })).status).toBe(200);
  });
});

describe("pqi (the satisfaction survey)", () => {
  it("records an answer only as the caller: a user id in the body is ignored or refused; others' answers are not readable", async () => {
    const user = await signIn();
    const other = await signIn();
    const res = await call("/api/pqi", { method: "POST", bearer: user.bearer, json: { rating: 9, comment: "хорошо", user_id: other.id } });
    expect([200, 201, 204, 400]).toContain(res.status);
    await res.body?.cancel();
    expect(await rows(`select user_id from pqi_answers where user_id = ?`, other.id)).toEqual([]);
    for (const path of ["/api/pqi/summary", "/api/pqi/comments"]) await expectError(await call(path, { bearer: user.bearer }), 403);
    await expectError(await call("/api/pqi", { method: "POST", json: { rating: 9 } }), 401);
    void env;
  });
});
