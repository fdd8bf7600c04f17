import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { downloadLink, purgeAssets } from "../../workers/services/library/asset-content.service";
import { createRequestContext, type Actor } from "../../workers/services/access/context";
import { call, expectError, signIn, signInAdmin, type Session, type TestUser } from "./factories";
import {
  bytesOf,
  createAsset,
  createGroup,
  json,
  pathOf,
  rows,
  sha256Of,
  signed,
  snapshot,
  uploadVersion,
  type Uploaded,
} from "./asset-fixtures";

/** Downloads with Range and conditional requests, signed play/download links, proxy documents and copies. */

const SIZE = 1000;

interface Fixture {
  user: TestUser & Session;
  id: string;
  up: Uploaded;
  bytes: Uint8Array<ArrayBuffer>;
}

async function uploaded(fileName = "clip.mp4", mime = "video/mp4"): Promise<Fixture> {
  const user = await signIn();
  const id = await createAsset(user.bearer, { asset_mime: mime });
  const bytes = bytesOf(SIZE, 5);
  const up = await uploadVersion(user.bearer, id, bytes, { file_name: fileName, mime_type: mime });
  return { user, id, up, bytes };
}

const body = async (res: Response) => new Uint8Array(await res.arrayBuffer());

function rc() {
  return createRequestContext(env, () => undefined, newId());
}

function actorOf(user: TestUser): Actor {
  return { id: user.id, name: user.name, login: user.login, isAdmin: false, isRobot: false, sessionFamily: null };
}

/** Inserts a ready variant of another type into an existing version, with its bytes in R2. */
async function addVariant(assetId: string, version: number, type: string, bytes: Uint8Array<ArrayBuffer>, mime = "video/mp4"): Promise<string> {
  const id = newId();
  const key = `assets/${assetId}/${id}`;
  await env.MEDIA.put(key, bytes);
  const [v] = await rows<{ id: string; user_id: string }>("select id, user_id from asset_versions where asset_id = ? and version = ?", assetId, version);
  await env.DB.prepare(
    `insert into variants (id, asset_id, version_id, variant_type, status, name, mime_type, file_name, content_size, sha256, storage_id, storage_key, user_id, ctime)
     values (?, ?, ?, ?, 'ready', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(id, assetId, v.id, type, type, mime, `${type}.mp4`, bytes.byteLength, await sha256Of(bytes), "0".repeat(32), key, v.user_id, Date.now())
    .run();
  return id;
}

describe("GET /api/asset/content/download/{id}/{version}/{variant}", () => {
  it("streams the bytes with their headers, by variant type or id, by version number or latest", async () => {
    const { user, id, up, bytes } = await uploaded();
    for (const path of [`${id}/1/initial`, `${id}/latest/initial`, `${id}/1/${up.asset_variant_id}`, `${id}/latest/${up.asset_variant_id}`]) {
      const res = await call(`/api/asset/content/download/${path}`, { bearer: user.bearer });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("video/mp4");
      expect(res.headers.get("content-length")).toBe(String(SIZE));
      expect(res.headers.get("etag")).toBe(`"${up.checksum}"`);
      expect(res.headers.get("accept-ranges")).toBe("bytes");
      expect(Date.parse(res.headers.get("last-modified")!)).toBeGreaterThan(0);
      expect(res.headers.get("content-disposition")).toBe('attachment; filename="clip.mp4"');
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("content-security-policy")).toBe("sandbox");
      expect(await body(res)).toEqual(bytes);
    }
  });

  it("answers the ranges asked for: first bytes, suffix, open-ended, clamped end", async () => {
    const { user, id, bytes } = await uploaded();
    const get = (range: string) => call(`/api/asset/content/download/${id}/1/initial`, { bearer: user.bearer, headers: { range } });
    const cases: [string, number, number][] = [
      ["bytes=0-99", 0, 99],
      ["bytes=-100", 900, 999],
      ["bytes=990-", 990, 999],
      ["bytes=900-5000", 900, 999],
      ["bytes=0-0", 0, 0],
    ];
    for (const [range, from, to] of cases) {
      const res = await get(range);
      expect(res.status, range).toBe(206);
      expect(res.headers.get("content-range")).toBe(`bytes ${from}-${to}/${SIZE}`);
      expect(res.headers.get("content-length")).toBe(String(to - from + 1));
      expect(await body(res)).toEqual(bytes.slice(from, to + 1));
    }
  });

  it("answers 416 with Content-Range */size for malformed and unsatisfiable ranges", async () => {
    const { user, id } = await uploaded();
    for (const range of ["bytes=1000-", "bytes=5000-6000", "bytes=-0", "bytes=abc", "bytes=5-1", "lines=1-2", "bytes=0-1,x"]) {
      const res = await call(`/api/asset/content/download/${id}/1/initial`, { bearer: user.bearer, headers: { range } });
      expect(res.headers.get("content-range"), range).toBe(`bytes */${SIZE}`);
      expect((await expectError(res, 416)).message).toBe(ru.assets.rangeNotSatisfiable);
    }
  });

  it("answers 304 for a matching If-None-Match, and the whole object for a stale If-Range", async () => {
    const { user, id, up, bytes } = await uploaded();
    const path = `/api/asset/content/download/${id}/1/initial`;
    const notModified = await call(path, { bearer: user.bearer, headers: { "if-none-match": `"${up.checksum}"` } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(`"${up.checksum}"`);
    expect(await notModified.text()).toBe("");
    expect((await call(path, { bearer: user.bearer, headers: { "if-none-match": '"other"' } })).status).toBe(200);
    const stale = await call(path, { bearer: user.bearer, headers: { range: "bytes=0-9", "if-range": '"stale"' } });
    expect(stale.status).toBe(200);
    expect(await body(stale)).toEqual(bytes);
    const fresh = await call(path, { bearer: user.bearer, headers: { range: "bytes=0-9", "if-range": `"${up.checksum}"` } });
    expect(fresh.status).toBe(206);
    await fresh.body?.cancel();
  });

  it("offers Cyrillic, emoji and quoted file names safely (RFC 6266 / 8187)", async () => {
    const name = 'Отчёт "финал" 🎬.mp4';
    const { user, id } = await uploaded(name);
    const res = await call(`/api/asset/content/download/${id}/1/initial`, { bearer: user.bearer });
    const header = res.headers.get("content-disposition")!;
    await res.body?.cancel();
    expect(header).toBe(`attachment; filename="_____ \\"_____\\" _.mp4"; filename*=UTF-8''${encodeURIComponent(name)}`);
    expect(decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(header)![1])).toBe(name);
  });

  it("answers 404 for unknown versions, variant types, variants of other assets; 400 for bad selectors", async () => {
    const { user, id } = await uploaded();
    const other = await uploaded();
    const get = (path: string) => call(`/api/asset/content/download/${path}`, { bearer: user.bearer });
    expect((await expectError(await get(`${id}/2/initial`), 404)).message).toBe(ru.assets.variantNotFound);
    await expectError(await get(`${id}/1/master`), 404);
    await expectError(await get(`${id}/1/${other.up.asset_variant_id}`), 404);
    await expectError(await get(`${newId()}/1/initial`), 404);
    await expectError(await get(`${id}/0/initial`), 400);
    await expectError(await get(`${id}/1/thumbnail`), 400);
    await expectError(await get(`${id}/first/initial`), 400);
  });

  it("refuses other users (404), anonymous callers (401) and invalid bearers (401)", async () => {
    const { id } = await uploaded();
    const stranger = await signIn();
    const path = `/api/asset/content/download/${id}/1/initial`;
    expect((await expectError(await call(path, { bearer: stranger.bearer }), 404)).message).toBe(ru.assets.notFound);
    await expectError(await call(path), 401);
    await expectError(await call(path, { headers: { authorization: "Bearer a.b.c" } }), 401);
  });

  it("accepts a signed download link instead of a bearer, and refuses any other link (403)", async () => {
    const { user, id, up, bytes } = await uploaded();
    const other = await uploaded();
    const path = `/api/asset/content/download/${id}/1/initial`;
    const good = await signed("download", up.asset_variant_id, user.id);
    const res = await call(`${path}?${good}`);
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual(bytes);
    const tampered = new URLSearchParams(good);
    tampered.set("u", other.user.id);
    for (const params of [
      tampered,
      await signed("download", up.asset_variant_id, user.id, -5),
      await signed("download", other.up.asset_variant_id, user.id),
      await signed("play", up.asset_variant_id, user.id),
      await signed("upload", up.asset_variant_id, user.id),
      await signed("download", up.asset_variant_id, other.user.id),
      new URLSearchParams({ sig: "x" }),
    ]) {
      expect((await expectError(await call(`${path}?${params}`), 403)).message, String(params)).toBe(ru.assets.linkInvalid);
    }
    await expectError(await call(`/api/asset/content/download/${id}/1/master?${good}`), 403);
  });
});

describe("GET /api/asset/content/download-variant/{variantId}", () => {
  it("streams a variant by id with a bearer or a signed download link, honouring Range", async () => {
    const { user, up, bytes } = await uploaded();
    const res = await call(`/api/asset/content/download-variant/${up.asset_variant_id}`, { bearer: user.bearer, headers: { range: "bytes=10-19" } });
    expect(res.status).toBe(206);
    expect(await body(res)).toEqual(bytes.slice(10, 20));
    const { link, expire } = await downloadLink(rc(), actorOf(user), up.asset_variant_id);
    expect(Date.parse(expire) - Date.now()).toBeGreaterThan(3500_000);
    const viaLink = await call(link);
    expect(viaLink.status).toBe(200);
    expect(await body(viaLink)).toEqual(bytes);
  });

  it("answers HEAD with the headers and no body", async () => {
    const { user, up } = await uploaded();
    const res = await call(`/api/asset/content/download-variant/${up.asset_variant_id}`, { method: "HEAD", bearer: user.bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(SIZE));
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(await res.text()).toBe("");
  });

  it("answers 404 to other users and for unknown or pending variants, 403 for bad links, 401 anonymously", async () => {
    const { user, id, up } = await uploaded();
    const stranger = await signIn();
    const path = `/api/asset/content/download-variant/${up.asset_variant_id}`;
    expect((await expectError(await call(path, { bearer: stranger.bearer }), 404)).message).toBe(ru.assets.variantNotFound);
    await expectError(await call(`/api/asset/content/download-variant/${newId()}`, { bearer: user.bearer }), 404);
    const pending = await json<{ variant_id: string }>(
      await call(`/api/asset/create-version/${id}`, { method: "POST", bearer: user.bearer, json: { file_name: "p", mime_type: "a/b", size: 5 } }),
    );
    await expectError(await call(`/api/asset/content/download-variant/${pending.variant_id}`, { bearer: user.bearer }), 404);
    await expectError(await call(`${path}?${await signed("play", up.asset_variant_id, user.id)}`), 403);
    await expectError(await call(path), 401);
  });

  it("stops serving once the asset is trashed or the link's user is disabled", async () => {
    const { user, id, up } = await uploaded();
    const link = await signed("download", up.asset_variant_id, user.id);
    const path = `/api/asset/content/download-variant/${up.asset_variant_id}?${link}`;
    await env.DB.prepare("update users set enabled = 0 where id = ?").bind(user.id).run();
    await expectError(await call(path), 403);
    await env.DB.prepare("update users set enabled = 1 where id = ?").bind(user.id).run();
    await json(await call(`/api/asset/${id}`, { method: "DELETE", bearer: user.bearer }), 204);
    await expectError(await call(path), 403);
    await expectError(await call(`/api/asset/content/download-variant/${up.asset_variant_id}`, { bearer: user.bearer }), 404);
  });
});

describe("play links and GET /api/asset/content/stream/{variantId}", () => {
  it("POST /content/play/{id}: a 6-hour signed link that streams inline with Range", async () => {
    const { user, id, up, bytes } = await uploaded();
    const before = Date.now();
    const play = await json<{ link: string; expire: string; range: boolean }>(await call(`/api/asset/content/play/${id}`, { method: "POST", bearer: user.bearer }));
    expect(play.range).toBe(true);
    expect(play.link).toMatch(new RegExp(`^https://mam\\.test/api/asset/content/stream/${up.asset_variant_id}\\?u=`));
    expect(Date.parse(play.expire) - before).toBeGreaterThan(6 * 3600_000 - 5000);
    expect(Date.parse(play.expire) - before).toBeLessThanOrEqual(6 * 3600_000 + 1000);
    const full = await call(pathOf(play.link));
    expect(full.status).toBe(200);
    expect(full.headers.get("content-disposition")).toBe('inline; filename="clip.mp4"');
    expect(await body(full)).toEqual(bytes);
    const part = await call(pathOf(play.link), { headers: { range: "bytes=-10" } });
    expect(part.status).toBe(206);
    expect(await body(part)).toEqual(bytes.slice(-10));
  });

  it("POST and GET /content/play-variant/{variant}, with disposition=attachment for download buttons", async () => {
    const { user, up } = await uploaded("Фильм.mp4");
    const post = await json<{ link: string }>(
      await call(`/api/asset/content/play-variant/${up.asset_variant_id}`, { method: "POST", bearer: user.bearer, json: { disposition: "attachment" } }),
    );
    expect(new URL(post.link).searchParams.get("disposition")).toBe("attachment");
    const res = await call(pathOf(post.link));
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="_____.mp4"; filename\*=UTF-8''/);
    await res.body?.cancel();
    const get = await json<{ link: string }>(await call(`/api/asset/content/play-variant/${up.asset_variant_id}`, { bearer: user.bearer }));
    expect(new URL(get.link).searchParams.has("disposition")).toBe(false);
    const bare = await json<{ link: string }>(await call(`/api/asset/content/play-variant/${up.asset_variant_id}`, { method: "POST", bearer: user.bearer }));
    expect(bare.link).toContain("/content/stream/");
    await expectError(await call(`/api/asset/content/play-variant/${up.asset_variant_id}?disposition=evil`, { bearer: user.bearer }), 400);
  });

  it("picks the version and variant type asked for, and the most viewable variant by default", async () => {
    const { user, id, up } = await uploaded();
    const v2 = await uploadVersion(user.bearer, id, bytesOf(50));
    const proxy = await addVariant(id, 1, "proxy_lowres", bytesOf(20));
    const play = (json_: unknown) =>
      call(`/api/asset/content/play/${id}`, { method: "POST", bearer: user.bearer, json: json_ }).then((r) => json<{ link: string }>(r));
    expect((await play({})).link).toContain(v2.asset_variant_id);
    expect((await play({ version: 1 })).link).toContain(proxy);
    expect((await play({ version: 1, variant_type: "initial" })).link).toContain(up.asset_variant_id);
    await expectError(await call(`/api/asset/content/play/${id}`, { method: "POST", bearer: user.bearer, json: { version: 1, variant_type: "master" } }), 404);
    await expectError(await call(`/api/asset/content/play/${id}`, { method: "POST", bearer: user.bearer, json: { version: 7 } }), 404);
    await expectError(await call(`/api/asset/content/play/${id}`, { method: "POST", bearer: user.bearer, json: { version: 0 } }), 400);
  });

  it("answers 404 for assets without bytes and to other users, 401 anonymously", async () => {
    const { id, up } = await uploaded();
    const user = await signIn();
    const empty = await createAsset(user.bearer);
    expect((await expectError(await call(`/api/asset/content/play/${empty}`, { method: "POST", bearer: user.bearer }), 404)).message).toBe(ru.assets.noContent);
    await expectError(await call(`/api/asset/content/play/${id}`, { method: "POST", bearer: user.bearer }), 404);
    await expectError(await call(`/api/asset/content/play-variant/${up.asset_variant_id}`, { method: "POST", bearer: user.bearer }), 404);
    await expectError(await call(`/api/asset/content/play-variant/${up.asset_variant_id}`, { bearer: user.bearer }), 404);
    await expectError(await call(`/api/asset/content/play/${id}`, { method: "POST" }), 401);
  });

  it("refuses expired, tampered, other-variant and other-purpose stream links (403) and no link (401)", async () => {
    const { user, up } = await uploaded();
    const other = await uploaded();
    const base = `/api/asset/content/stream/${up.asset_variant_id}`;
    const good = await signed("play", up.asset_variant_id, user.id);
    expect((await call(`${base}?${good}`)).status).toBe(200);
    const tampered = new URLSearchParams(good);
    tampered.set("exp", String(Number(good.get("exp")) + 1));
    for (const params of [
      tampered,
      await signed("play", up.asset_variant_id, user.id, -1),
      await signed("play", other.up.asset_variant_id, user.id),
      await signed("download", up.asset_variant_id, user.id),
      await signed("upload", up.asset_variant_id, user.id),
      await signed("play", up.asset_variant_id, other.user.id),
    ]) {
      await expectError(await call(`${base}?${params}`), 403);
    }
    await expectError(await call(base), 401);
    // A bearer does not replace the link on the stream endpoint.
    await expectError(await call(base, { bearer: user.bearer }), 401);
  });

  it("never serves active content (HTML, SVG) inline", async () => {
    const { user, up } = await uploaded("page.html", "text/html");
    const play = await json<{ link: string }>(await call(`/api/asset/content/play-variant/${up.asset_variant_id}`, { method: "POST", bearer: user.bearer }));
    const res = await call(pathOf(play.link));
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="page.html"');
    expect(res.headers.get("content-security-policy")).toBe("sandbox");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    await res.body?.cancel();
  });
});

describe("GET /api/asset/asset-proxy-doc/{id}/{version}", () => {
  it("answers the best viewable rendition: proxy_lowres, else proxy_highres, else master, else initial", async () => {
    const { user, id, up } = await uploaded();
    const get = (version: string) => call(`/api/asset/asset-proxy-doc/${id}/${version}`, { bearer: user.bearer }).then((r) => json<Record<string, string>>(r));
    expect(await get("1")).toMatchObject({ variant_id: up.asset_variant_id, variant_type: "initial", mime_type: "video/mp4" });
    const master = await addVariant(id, 1, "master", bytesOf(30));
    expect((await get("1")).variant_id).toBe(master);
    const high = await addVariant(id, 1, "proxy_highres", bytesOf(30));
    expect((await get("latest")).variant_id).toBe(high);
    const low = await addVariant(id, 1, "proxy_lowres", bytesOf(30), "video/webm");
    const doc = await get("1");
    expect(doc).toMatchObject({ variant_id: low, variant_type: "proxy_lowres", mime_type: "video/webm" });
    const stream = await call(pathOf(doc.link));
    expect(await body(stream)).toEqual(bytesOf(30));
  });

  it("answers 404 for unknown versions and other users, 400 for bad versions", async () => {
    const { user, id } = await uploaded();
    const stranger = await signIn();
    expect((await expectError(await call(`/api/asset/asset-proxy-doc/${id}/3`, { bearer: user.bearer }), 404)).message).toBe(ru.assets.versionNotFound);
    await expectError(await call(`/api/asset/asset-proxy-doc/${id}/1`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/asset/asset-proxy-doc/${id}/-1`, { bearer: user.bearer }), 400);
  });
});

describe("POST /api/asset/copy/{a}/{b}", () => {
  it("copies an asset into a group: same name, MIME type, class, tags, versions and variants sharing the stored objects", async () => {
    const { user, id, up, bytes } = await uploaded();
    const v2 = await uploadVersion(user.bearer, id, bytesOf(77), { variant_type: "master" });
    const pending = await json<{ variant_id: string }>(
      await call(`/api/asset/create-version/${id}`, { method: "POST", bearer: user.bearer, json: { file_name: "p", mime_type: "a/b", size: 5 } }),
    );
    const tag = newId();
    await env.DB.batch([
      env.DB.prepare("insert into tags (id, name, ctime) values (?, 'Копия', 0)").bind(tag),
      env.DB.prepare("insert into entity_tags (tag_id, entity_id, entity_type) values (?, ?, 'asset')").bind(tag, id),
    ]);
    const target = await createGroup(user.id);
    const copy = (await json<{ asset_id: string }>(await call(`/api/asset/copy/${id}/${target}`, { method: "POST", bearer: user.bearer }))).asset_id;
    expect(copy).not.toBe(id);
    const [src, dst] = await Promise.all([
      json(await call(`/api/asset/${id}?versions`, { bearer: user.bearer })),
      json(await call(`/api/asset/${copy}?versions`, { bearer: user.bearer })),
    ]);
    expect(dst).toMatchObject({ name: src.name, mimetype: src.mimetype, class: src.class, tags: [{ tag_id: tag, tag_name: "Копия" }], ver: 2, var_size: 77, owner: user.id });
    expect((dst.versions as { version: number }[]).map((v) => v.version)).toEqual([2, 1]);
    const keys = (asset: string) => rows<{ storage_key: string; sha256: string }>("select storage_key, sha256 from variants where asset_id = ? and status = 'ready' order by storage_key", asset);
    expect(await keys(copy)).toEqual(await keys(id));
    expect(await rows("select id from variants where asset_id = ? and id = ?", copy, pending.variant_id)).toEqual([]);
    expect(await rows("select group_id, el_size from group_members where el_id = ?", copy)).toEqual([{ group_id: target, el_size: 77 }]);
    const res = await call(`/api/asset/content/download/${copy}/1/initial`, { bearer: user.bearer });
    expect(await body(res)).toEqual(bytes);
    expect((await keys(copy)).map((k) => k.storage_key).sort()).toEqual([up.storage_path, v2.storage_path].sort());
  });

  it("purges an object only when no variant references its key any more (copy-on-write)", async () => {
    const { user, id, up, bytes } = await uploaded();
    const target = await createGroup(user.id);
    const copy = (await json<{ asset_id: string }>(await call(`/api/asset/copy/${id}/${target}`, { method: "POST", bearer: user.bearer }))).asset_id;
    expect(await purgeAssets(rc(), [id])).toEqual({ assets: 1, objects: 0 });
    expect(await snapshot(id)).toEqual({ asset: [], versions: [], variants: [], members: [], tags: [] });
    expect(await env.MEDIA.head(up.storage_path)).not.toBeNull();
    expect(await body(await call(`/api/asset/content/download/${copy}/1/initial`, { bearer: user.bearer }))).toEqual(bytes);
    expect(await purgeAssets(rc(), [copy])).toEqual({ assets: 1, objects: 1 });
    expect(await env.MEDIA.head(up.storage_path)).toBeNull();
  });

  it("needs read+download on the asset and create on the group (404 otherwise), changing nothing", async () => {
    const { user, id } = await uploaded();
    const stranger = await signIn();
    const admin = await signInAdmin();
    const strangersGroup = await createGroup(stranger.id);
    const mine = await createGroup(user.id);
    const before = await rows<{ n: number }>("select count(*) as n from assets");
    await expectError(await call(`/api/asset/copy/${id}/${strangersGroup}`, { method: "POST", bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/asset/copy/${id}/${strangersGroup}`, { method: "POST", bearer: user.bearer }), 404);
    expect((await expectError(await call(`/api/asset/copy/${id}/${newId()}`, { method: "POST", bearer: user.bearer }), 404)).message).toBe(ru.groups.notFound);
    await expectError(await call(`/api/asset/copy/${newId()}/${mine}`, { method: "POST", bearer: user.bearer }), 404);
    await expectError(await call(`/api/asset/copy/${id}/${"f".repeat(32)}`, { method: "POST", bearer: user.bearer }), 400);
    await expectError(await call(`/api/asset/copy/${id}/bad`, { method: "POST", bearer: user.bearer }), 400);
    expect(await rows<{ n: number }>("select count(*) as n from assets")).toEqual(before);
    // An administrator may copy anyone's asset anywhere.
    expect((await json<{ asset_id: string }>(await call(`/api/asset/copy/${id}/${strangersGroup}`, { method: "POST", bearer: admin.bearer }))).asset_id).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("streaming large objects", () => {
  it("serves a multi-megabyte object and a range deep inside it without buffering the whole", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const bytes = bytesOf(8 * 1024 * 1024, 1);
    await uploadVersion(user.bearer, id, bytes);
    const res = await call(`/api/asset/content/download/${id}/1/initial`, { bearer: user.bearer, headers: { range: "bytes=8000000-8000099" } });
    expect(res.status).toBe(206);
    expect(await body(res)).toEqual(bytes.slice(8_000_000, 8_000_100));
    const whole = await call(`/api/asset/content/download/${id}/1/initial`, { bearer: user.bearer });
    expect(whole.body).toBeInstanceOf(ReadableStream);
    let received = 0;
    const reader = whole.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
    }
    expect(received).toBe(bytes.byteLength);
  });
});
