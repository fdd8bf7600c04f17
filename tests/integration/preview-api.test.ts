import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { PREVIEW_MAX_BYTES, previewUrl } from "../../workers/services/media/preview.service";
import {
  actorOf,
  exec,
  gifBytes,
  insertAsset,
  insertVariant,
  jpegBytes,
  pngBytes,
  rows,
  streamOf,
  testContext,
  webpBytes,
} from "./catalog-fixtures";
import { call, expectError, signIn, signInAdmin, tamperedSig } from "./factories";

interface Uploaded {
  preview_id: string;
  size: string;
  width: number;
  height: number;
  mime_type: string;
  content_size: number;
}

function upload(bearer: string, assetId: string, bytes: BodyInit, opts: { type?: string; query?: string; headers?: Record<string, string> } = {}) {
  return call(`/api/asset/upload-preview/${assetId}${opts.query ? `?${opts.query}` : ""}`, {
    method: "POST",
    bearer,
    body: bytes,
    headers: { "content-type": opts.type ?? "image/png", ...opts.headers },
  });
}

async function uploadOk(bearer: string, assetId: string, bytes: Uint8Array<ArrayBuffer>, opts: { type?: string; query?: string } = {}): Promise<Uploaded> {
  const res = await upload(bearer, assetId, bytes, opts);
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body as Uploaded;
}

const previewRows = (assetId: string) =>
  rows<{ id: string; version_id: string | null; size: string; mime_type: string; width: number; height: number; content_size: number; storage_key: string }>(
    `select id, version_id, size, mime_type, width, height, content_size, storage_key from previews where asset_id = ? order by ctime, id`,
    assetId,
  );

async function storedKeys(assetId: string): Promise<string[]> {
  return (await env.MEDIA.list({ prefix: `previews/${assetId}/` })).objects.map((o) => o.key);
}

describe("GET /api/asset/preview-size", () => {
  it("answers the preview config", async () => {
    const user = await signIn();
    const res = await call("/api/asset/preview-size", { bearer: user.bearer });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { name: "thumb", width: 320, height: 320, quality: 80 },
      { name: "medium", width: 1280, height: 1280, quality: 85 },
    ]);
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/asset/preview-size"), 401);
  });
});

describe("POST /api/asset/upload-preview/{id}", () => {
  it("stores a preview of the latest version in R2 with one row, reading its size from the header", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 2 });
    const bytes = pngBytes(320, 180, 100);
    const body = await uploadOk(user.bearer, asset.id, bytes);
    expect(body).toEqual({ preview_id: expect.stringMatching(/^[0-9a-f]{32}$/), size: "thumb", width: 320, height: 180, mime_type: "image/png", content_size: bytes.length, pending: false });
    const [row] = await previewRows(asset.id);
    expect(row).toEqual({
      id: body.preview_id,
      version_id: asset.versionIds[1],
      size: "thumb",
      mime_type: "image/png",
      width: 320,
      height: 180,
      content_size: bytes.length,
      storage_key: `previews/${asset.id}/${body.preview_id}`,
    });
    const object = await env.MEDIA.get(row.storage_key);
    expect(object?.httpMetadata?.contentType).toBe("image/png");
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(bytes);
  });

  it("refuses at once (413) a preview whose header claims more than 4,096² pixels or a GIF of 10,000 frames, storing nothing", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    // Signature + IHDR claiming 60,000 × 60,000 + IEND: a decoding bomb for every browser that shows it.
    const png = new Uint8Array(45);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    new DataView(png.buffer).setUint32(16, 60_000);
    new DataView(png.buffer).setUint32(20, 60_000);
    png.set([8, 6], 24);
    const started = Date.now();
    const res = await upload(user.bearer, asset.id, png);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { message: string }).message).toMatch(/^Файл слишком сложно распаковать: изображение объявляет 60000 × 60000 пикселей/);
    expect(Date.now() - started).toBeLessThan(2_000);
    const frame = [0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0x00, 0x02, 0x02, 0x4c, 0x01, 0x00];
    const gif = new Uint8Array(13 + frame.length * 10_000 + 1);
    gif.set([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0]);
    for (let i = 0; i < 10_000; i++) gif.set(frame, 13 + i * frame.length);
    gif[gif.length - 1] = 0x3b;
    const many = await upload(user.bearer, asset.id, gif, { type: "image/gif" });
    expect(many.status).toBe(413);
    expect(((await many.json()) as { message: string }).message).toMatch(/кадров/);
    expect(await previewRows(asset.id)).toEqual([]);
    expect(await storedKeys(asset.id)).toEqual([]);
  });

  it("accepts JPEG, WebP and GIF, a given version and the medium size", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 3 });
    expect(await uploadOk(user.bearer, asset.id, jpegBytes(1280, 720), { type: "image/jpeg", query: "version=1&size=medium" })).toMatchObject({
      size: "medium",
      width: 1280,
      height: 720,
    });
    expect(await uploadOk(user.bearer, asset.id, webpBytes(100, 50, "VP8X"), { type: "image/webp", query: "version=2" })).toMatchObject({ width: 100 });
    expect(await uploadOk(user.bearer, asset.id, gifBytes(8, 8), { type: "image/gif; charset=binary" })).toMatchObject({ mime_type: "image/gif" });
    const got = await previewRows(asset.id);
    expect(got.map((r) => [r.version_id, r.size, r.mime_type])).toEqual([
      [asset.versionIds[0], "medium", "image/jpeg"],
      [asset.versionIds[1], "thumb", "image/webp"],
      [asset.versionIds[2], "thumb", "image/gif"],
    ]);
  });

  it("attaches to the asset itself while it has no version", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id });
    await uploadOk(user.bearer, asset.id, pngBytes(10, 10));
    expect((await previewRows(asset.id))[0].version_id).toBeNull();
  });

  it("replaces the previous preview of the same version and size, and removes its bytes", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    const first = await uploadOk(user.bearer, asset.id, pngBytes(10, 10));
    const medium = await uploadOk(user.bearer, asset.id, pngBytes(30, 30), { query: "size=medium" });
    const second = await uploadOk(user.bearer, asset.id, pngBytes(20, 20));
    expect((await previewRows(asset.id)).map((r) => r.id).sort()).toEqual([medium.preview_id, second.preview_id].sort());
    expect((await storedKeys(asset.id)).sort()).toEqual([`previews/${asset.id}/${medium.preview_id}`, `previews/${asset.id}/${second.preview_id}`].sort());
    expect(first.preview_id).not.toBe(second.preview_id);
  });

  it("keeps a single row and a single object when uploads of the same preview race", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    const results = await Promise.all([1, 2, 3, 4].map((n) => upload(user.bearer, asset.id, pngBytes(n, n))));
    for (const res of results) expect(res.status).toBe(200);
    const left = await previewRows(asset.id);
    expect(left).toHaveLength(1);
    expect(await storedKeys(asset.id)).toEqual([left[0].storage_key]);
  });

  it("accepts exactly 5 MiB and a streamed body of unknown length", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    const max = pngBytes(4000, 3000, PREVIEW_MAX_BYTES - 33);
    expect(max.length).toBe(PREVIEW_MAX_BYTES);
    expect((await uploadOk(user.bearer, asset.id, max)).content_size).toBe(PREVIEW_MAX_BYTES);
    const streamed = await upload(user.bearer, asset.id, streamOf(pngBytes(64, 48, 500), 64));
    expect(streamed.status).toBe(200);
    expect(await streamed.json()).toMatchObject({ width: 64, height: 48, content_size: 533 });
  });

  it("refuses more than 5 MiB (413), declared or streamed, storing nothing", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    const big = pngBytes(10, 10, PREVIEW_MAX_BYTES - 32);
    const error = await expectError(await upload(user.bearer, asset.id, big), 413);
    expect(error.message).toBe(ru.catalog.previewTooLarge(5));
    await expectError(await upload(user.bearer, asset.id, streamOf(big, 65_536)), 413);
    await expectError(await upload(user.bearer, asset.id, pngBytes(1, 1), { headers: { "content-length": String(PREVIEW_MAX_BYTES + 1) } }), 413);
    expect(await previewRows(asset.id)).toEqual([]);
    expect(await storedKeys(asset.id)).toEqual([]);
  });

  it.each(["text/plain", "image/svg+xml", "application/json", "application/octet-stream", "image/bmp"])("refuses Content-Type %s (415)", async (type) => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    const error = await expectError(await upload(user.bearer, asset.id, pngBytes(1, 1), { type }), 415);
    expect(error.message).toBe(ru.catalog.previewType);
    expect(await previewRows(asset.id)).toEqual([]);
  });

  it("refuses a body without Content-Type (415)", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    const res = await call(`/api/asset/upload-preview/${asset.id}`, { method: "POST", bearer: user.bearer, body: pngBytes(1, 1) });
    await expectError(res, 415);
  });

  it("refuses bytes that are not the declared image, and an empty body (400)", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    const mismatch = await expectError(await upload(user.bearer, asset.id, jpegBytes(5, 5), { type: "image/png" }), 400);
    expect(mismatch.message).toBe(ru.catalog.previewCorrupt("image/png"));
    await expectError(await upload(user.bearer, asset.id, new TextEncoder().encode("<html>"), { type: "image/gif" }), 400);
    expect((await expectError(await upload(user.bearer, asset.id, new Uint8Array(0)), 400)).message).toBe(ru.catalog.previewEmpty);
    expect(await previewRows(asset.id)).toEqual([]);
    expect(await storedKeys(asset.id)).toEqual([]);
  });

  it("refuses a version the asset does not have (404) and bad query or id (400)", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    const error = await expectError(await upload(user.bearer, asset.id, pngBytes(1, 1), { query: "version=2" }), 404);
    expect(error.message).toBe(ru.catalog.previewVersionNotFound(2));
    for (const query of ["version=0", "version=abc", "size=huge", "size="]) {
      await expectError(await upload(user.bearer, asset.id, pngBytes(1, 1), { query }), 400);
    }
    await expectError(await upload(user.bearer, "not-an-id", pngBytes(1, 1)), 400);
    await expectError(await upload(user.bearer, newId(), pngBytes(1, 1)), 404);
  });

  it("security: another user's asset is not found (404) and nothing is stored; assets in the trash neither", async () => {
    const owner = await signIn();
    const intruder = await signIn();
    const asset = await insertAsset({ ownerId: owner.id, versions: 1 });
    const original = await uploadOk(owner.bearer, asset.id, pngBytes(10, 10));
    const error = await expectError(await upload(intruder.bearer, asset.id, pngBytes(66, 66)), 404);
    expect(error.message).toBe(ru.assets.notFound);
    expect((await previewRows(asset.id)).map((r) => r.id)).toEqual([original.preview_id]);
    expect(await storedKeys(asset.id)).toEqual([`previews/${asset.id}/${original.preview_id}`]);

    const trashed = await insertAsset({ ownerId: owner.id, versions: 1, deletedAt: Date.now() });
    await expectError(await upload(owner.bearer, trashed.id, pngBytes(1, 1)), 404);
  });

  it("lets an administrator upload for any asset", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    await uploadOk(admin.bearer, asset.id, pngBytes(1, 1));
  });

  it("requires sign-in", async () => {
    await expectError(await call(`/api/asset/upload-preview/${newId()}`, { method: "POST", body: pngBytes(1, 1), headers: { "content-type": "image/png" } }), 401);
  });
});

describe("GET /api/asset/content/preview/{id}/{version}/{variant}", () => {
  it("answers the image with its type, an ETag and private caching; If-None-Match gets 304", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    const bytes = pngBytes(32, 32, 64);
    const { preview_id } = await uploadOk(user.bearer, asset.id, bytes);
    const res = await call(`/api/asset/content/preview/${asset.id}/1/thumb`, { bearer: user.bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("etag")).toBe(`"${preview_id}"`);
    expect(res.headers.get("cache-control")).toBe("private, max-age=60");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);

    const again = await call(`/api/asset/content/preview/${asset.id}/1/thumb`, { bearer: user.bearer, headers: { "if-none-match": `W/"x", "${preview_id}"` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });

  it("serves each version's own preview and falls back to the version-less one", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id });
    await uploadOk(user.bearer, asset.id, gifBytes(1, 1), { type: "image/gif" });
    await exec(`update assets set latest_version = 2 where id = ?`, asset.id);
    for (const v of [1, 2]) await exec(`insert into asset_versions (id, asset_id, version, user_id, ctime) values (?, ?, ?, ?, 0)`, newId(), asset.id, v, user.id);
    await uploadOk(user.bearer, asset.id, pngBytes(2, 2), { query: "version=2" });

    const type = async (path: string) => (await call(path, { bearer: user.bearer })).headers.get("content-type");
    expect(await type(`/api/asset/content/preview/${asset.id}/2/thumb`)).toBe("image/png");
    expect(await type(`/api/asset/content/preview/${asset.id}/1/thumb`)).toBe("image/gif");
    expect(await type(`/api/asset/content/preview/${asset.id}/0/thumb`)).toBe("image/gif");
  });

  it("answers 404 when there is no such preview, 400 for bad paths", async () => {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    await uploadOk(user.bearer, asset.id, pngBytes(1, 1));
    // SPEC's {variant} as a variant type means the default size: the thumb uploaded above.
    const byType = await call(`/api/asset/content/preview/${asset.id}/1/initial`, { bearer: user.bearer });
    expect(byType.status).toBe(200);
    expect(new Uint8Array(await byType.arrayBuffer())).toEqual(pngBytes(1, 1));
    const none = await expectError(await call(`/api/asset/content/preview/${asset.id}/1/medium`, { bearer: user.bearer }), 404);
    expect(none.message).toBe(ru.catalog.previewNotFound);
    await expectError(await call(`/api/asset/content/preview/${newId()}/1/thumb`, { bearer: user.bearer }), 404);
    for (const path of [`${asset.id}/x/thumb`, `${asset.id}/-1/thumb`, `${asset.id}/1/huge`, `nope/1/thumb`, `${asset.id}/1234567890/thumb`]) {
      await expectError(await call(`/api/asset/content/preview/${path}`, { bearer: user.bearer }), 400);
    }
  });

  it("security: another user's preview is not found (404); without sign-in 401", async () => {
    const owner = await signIn();
    const other = await signIn();
    const asset = await insertAsset({ ownerId: owner.id, versions: 1 });
    await uploadOk(owner.bearer, asset.id, pngBytes(1, 1));
    await expectError(await call(`/api/asset/content/preview/${asset.id}/1/thumb`, { bearer: other.bearer }), 404);
    await expectError(await call(`/api/asset/content/preview/${asset.id}/1/thumb`), 401);
  });
});

describe("signed preview links", () => {
  async function withPreview() {
    const user = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 1 });
    const uploaded = await uploadOk(user.bearer, asset.id, pngBytes(5, 5));
    const {
      list: [item],
    } = (await (await call("/api/asset/content/preview-by-list", { method: "POST", bearer: user.bearer, json: { ids: [asset.id] } })).json()) as {
      list: { preview: string }[];
    };
    return { user, asset, uploaded, link: item.preview };
  }

  it("work without a bearer, cache longer, and carry the preview id", async () => {
    const { asset, uploaded, link } = await withPreview();
    expect(link).toMatch(new RegExp(`^/api/asset/content/preview/${asset.id}/1/thumb\\?u=[0-9a-f]{32}&exp=\\d+&sig=[\\w-]+&p=${uploaded.preview_id}$`));
    const res = await call(link);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, max-age=3600, immutable");
    expect(res.headers.get("etag")).toBe(`"${uploaded.preview_id}"`);
    await res.arrayBuffer();
  });

  it("are refused when altered, moved to another asset, expired, or their user is disabled (401)", async () => {
    const { user, asset, link } = await withPreview();
    const url = new URL(link, "https://x.test");
    const tampered = new URL(url);
    tampered.searchParams.set("sig", tamperedSig(url.searchParams.get("sig")!));
    await expectError(await call(`${tampered.pathname}${tampered.search}`), 401);
    const otherExp = new URL(url);
    otherExp.searchParams.set("exp", String(Number(url.searchParams.get("exp")) + 3600));
    await expectError(await call(`${otherExp.pathname}${otherExp.search}`), 401);

    const other = await insertAsset({ ownerId: user.id, versions: 1 });
    await uploadOk(user.bearer, other.id, pngBytes(1, 1));
    await expectError(await call(`${url.pathname.replace(asset.id, other.id)}${url.search}`), 401);

    const expired = await previewUrl(testContext(), actorOf(user), { assetId: asset.id, version: 1 }, Date.now() - 3 * 3600 * 1000);
    await expectError(await call(expired), 401);

    await exec(`update users set enabled = 0 where id = ?`, user.id);
    await expectError(await call(link), 401);
  });

  it("still check access: a link issued to a user who may not read the asset gets 404", async () => {
    const { asset } = await withPreview();
    const stranger = await signIn();
    const forged = await previewUrl(testContext(), actorOf(stranger), { assetId: asset.id, version: 1 });
    await expectError(await call(forged), 404);
  });
});

describe("POST /api/asset/content/preview-by-list", () => {
  it("answers links for readable assets, null where there is no preview, and leaves others out (one query)", async () => {
    const user = await signIn();
    const other = await signIn();
    const withPreview = await insertAsset({ ownerId: user.id, versions: 1 });
    const without = await insertAsset({ ownerId: user.id, versions: 1 });
    const foreign = await insertAsset({ ownerId: other.id, versions: 1 });
    const trashed = await insertAsset({ ownerId: user.id, versions: 1, deletedAt: Date.now() });
    await uploadOk(user.bearer, withPreview.id, pngBytes(1, 1));
    await uploadOk(other.bearer, foreign.id, pngBytes(1, 1));
    await uploadOk(user.bearer, withPreview.id, pngBytes(9, 9), { query: "size=medium" });

    const res = await call("/api/asset/content/preview-by-list", {
      method: "POST",
      bearer: user.bearer,
      json: { ids: [without.id, foreign.id, withPreview.id, newId(), trashed.id, without.id] },
    });
    expect(res.status).toBe(200);
    const { base_url, list } = (await res.json()) as { base_url: string; list: { asset_id: string; preview: string | null }[] };
    expect(base_url).toBe("https://mam.test");
    expect(list).toEqual([
      { asset_id: without.id, preview: null },
      { asset_id: withPreview.id, preview: expect.stringContaining(`/api/asset/content/preview/${withPreview.id}/1/thumb?`) },
    ]);
    const medium = (await (
      await call("/api/asset/content/preview-by-list", { method: "POST", bearer: user.bearer, json: { ids: [withPreview.id], size: "medium" } })
    ).json()) as { list: { preview: string }[] };
    const image = await call(medium.list[0].preview);
    expect(image.status).toBe(200);
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(pngBytes(9, 9));

    const admin = await signInAdmin();
    const all = (await (await call("/api/asset/content/preview-by-list", { method: "POST", bearer: admin.bearer, json: { ids: [foreign.id] } })).json()) as {
      list: { preview: string | null }[];
    };
    expect(all.list[0].preview).toEqual(expect.stringContaining(foreign.id));
  });

  it("refuses bad ids or size (400), and answers an empty list for none", async () => {
    const user = await signIn();
    await expectError(await call("/api/asset/content/preview-by-list", { method: "POST", bearer: user.bearer, json: { ids: ["x"] } }), 400);
    await expectError(await call("/api/asset/content/preview-by-list", { method: "POST", bearer: user.bearer, json: { ids: [], size: "big" } }), 400);
    const many = Array.from({ length: 501 }, () => newId());
    await expectError(await call("/api/asset/content/preview-by-list", { method: "POST", bearer: user.bearer, json: { ids: many } }), 400);
    expect(await (await call("/api/asset/content/preview-by-list", { method: "POST", bearer: user.bearer, json: { ids: [] } })).json()).toEqual({ base_url: "https://mam.test", list: [] });
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/asset/content/preview-by-list", { method: "POST", json: { ids: [] } }), 401);
  });
});

describe("POST /api/asset/content/preview-by-varlist", () => {
  it("answers links for ready variants of readable assets, by the variant's version", async () => {
    const user = await signIn();
    const other = await signIn();
    const asset = await insertAsset({ ownerId: user.id, versions: 2 });
    await uploadOk(user.bearer, asset.id, pngBytes(1, 1), { query: "version=1" });
    const v1 = await insertVariant({ assetId: asset.id, versionId: asset.versionIds[0], ownerId: user.id });
    const v2 = await insertVariant({ assetId: asset.id, versionId: asset.versionIds[1], ownerId: user.id });
    const pending = await insertVariant({ assetId: asset.id, versionId: null, ownerId: user.id, status: "pending" });
    const foreignAsset = await insertAsset({ ownerId: other.id, versions: 1 });
    const foreign = await insertVariant({ assetId: foreignAsset.id, versionId: foreignAsset.versionIds[0], ownerId: other.id });

    const res = await call("/api/asset/content/preview-by-varlist", { method: "POST", bearer: user.bearer, json: { ids: [v1, v2, pending, foreign, newId()] } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { list: unknown[] }).list).toEqual([
      { variant_id: v1, preview: expect.stringContaining(`/api/asset/content/preview/${asset.id}/1/thumb?`) },
      { variant_id: v2, preview: null },
    ]);
  });

  it("refuses bad ids (400)", async () => {
    const user = await signIn();
    await expectError(await call("/api/asset/content/preview-by-varlist", { method: "POST", bearer: user.bearer, json: { ids: [1] } }), 400);
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/asset/content/preview-by-varlist", { method: "POST", json: { ids: [] } }), 401);
  });
});
