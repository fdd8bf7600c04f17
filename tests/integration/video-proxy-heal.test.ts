import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { VIDEO_PROXY_MAX_BYTES } from "../../workers/services/library/pure";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { exec, rows } from "./catalog-fixtures";
import { insertAsset } from "./library-factories";

/**
 * The browser-made video proxy (decision 029, «The proxy maker»): a viewer whose browser cannot play a video
 * converts it and stores the result as the version's `proxy_lowres` with `upload-proxy?heal=true` — `read`
 * suffices, the first proxy wins; a writer's plain call replaces. Commit after upload: a refused call leaves no
 * bytes and no row.
 */

/** A WebM's EBML header (doc type `webm`) followed by filler: what the route sniffs. */
function webm(bytes = 200, fill = 7): Uint8Array<ArrayBuffer> {
  const head = [
    0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0x42, 0xf2, 0x81, 0x04, 0x42, 0xf3, 0x81, 0x08, 0x42,
    0x82, 0x84, 0x77, 0x65, 0x62, 0x6d, 0x42, 0x87, 0x81, 0x04, 0x42, 0x85, 0x81, 0x02,
  ];
  const out = new Uint8Array(bytes).fill(fill);
  out.set(head);
  return out;
}

/** An MP4's first box (`ftyp isom`) followed by filler. */
function mp4(bytes = 200): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes).fill(3);
  out.set([0, 0, 0, 0x18, ...new TextEncoder().encode("ftypisom"), 0, 0, 2, 0]);
  return out;
}

async function grant(subj: string, obj: string, acl: string[]) {
  const admin = await signInAdmin();
  const res = await call("/api/user/acl", { method: "POST", bearer: admin.bearer, json: { subj, obj, acl } });
  expect(res.status, await res.clone().text()).toBe(201);
}

function upload(
  bearer: string,
  assetId: string,
  body: BodyInit,
  opts: { heal?: boolean; type?: string; version?: number; headers?: Record<string, string> } = {},
) {
  const query = new URLSearchParams();
  if (opts.heal ?? true) query.set("heal", "true");
  if (opts.version !== undefined) query.set("version", String(opts.version));
  return call(`/api/asset/upload-proxy/${assetId}?${query}`, {
    method: "POST",
    bearer,
    body,
    headers: { "content-type": opts.type ?? "video/webm", ...opts.headers },
  });
}

const proxyRows = (assetId: string) =>
  rows<{ id: string; mime_type: string; content_size: number; storage_key: string; user_id: string; status: string }>(
    `select id, mime_type, content_size, storage_key, user_id, status from variants where asset_id = ? and variant_type = 'proxy_lowres' order by ctime, id`,
    assetId,
  );

/** Every object stored under the asset's prefix (its original and any proxy). */
async function storedKeys(assetId: string): Promise<string[]> {
  return (await env.MEDIA.list({ prefix: `assets/${assetId}/` })).objects.map((o) => o.key).sort();
}

/**
 * An owner's video (version 1, a `master` with bytes in R2), a reader who may look at it and fetch it, and an editor
 * who may also change it: the shared slot's rules are those of heals by users with `update` (a reader's heal is his
 * alone until accepted: heal-visibility.test.ts).
 */
async function readerOfVideo(mime = "video/mp2t") {
  const owner = await signIn();
  const reader = await signIn();
  const editor = await signIn();
  const asset = await insertAsset({ ownerId: owner.id, name: "Съёмка.mts", mime, putBytes: true });
  await grant(reader.id, asset.id, ["read", "download"]);
  await grant(editor.id, asset.id, ["read", "download", "update"]);
  return { owner, reader, editor, asset };
}

describe("POST /api/asset/upload-proxy/{id}", () => {
  it("lets an editor's heal store a missing proxy once; it is listed, played, and the original stays downloadable", async () => {
    const { owner, reader: viewer, editor: reader, asset } = await readerOfVideo();
    const first = await upload(reader.bearer, asset.id, webm(4096));
    const stored = (await first.json()) as {
      variant_id: string;
      version: number;
      variant_type: string;
      mime_type: string;
      content_size: number;
    };
    expect(first.status, JSON.stringify(stored)).toBe(201);
    expect(stored).toMatchObject({
      version: 1,
      variant_type: "proxy_lowres",
      mime_type: "video/webm",
      content_size: 4096,
      replaced: false,
      pending: false,
    });
    const [row] = await proxyRows(asset.id);
    expect(row).toMatchObject({ id: stored.variant_id, mime_type: "video/webm", content_size: 4096, user_id: reader.id, status: "ready" });
    expect(await storedKeys(asset.id)).toEqual([...asset.storageKeys, row.storage_key].sort());

    // Second heal: 409 for the editor, a reader and the owner alike, nothing more stored.
    expect((await expectError(await upload(reader.bearer, asset.id, webm(100)), 409)).message).toBe(ru.videoProxy.exists);
    await expectError(await upload(viewer.bearer, asset.id, webm(100)), 409);
    await expectError(await upload(owner.bearer, asset.id, webm(100)), 409);
    expect((await proxyRows(asset.id)).map((r) => r.id)).toEqual([row.id]);
    expect(await storedKeys(asset.id)).toHaveLength(2);

    // Listed with the version's variants.
    const listed = await call(`/api/asset/variants/${asset.id}/1`, { bearer: reader.bearer });
    const variants = (await listed.json()) as { variant_id: string; variant_type: string; mime_type?: string }[];
    expect(listed.status).toBe(200);
    expect(variants.map((v) => v.variant_type).sort()).toEqual(["master", "proxy_lowres"]);

    // The play call picks the proxy (VIEWABLE_ORDER), and its bytes are the stored ones.
    const play = await call(`/api/asset/content/play/${asset.id}`, { method: "POST", bearer: reader.bearer, json: {} });
    const { link } = (await play.json()) as { link: string };
    expect(play.status).toBe(200);
    expect(link).toContain(`/api/asset/content/stream/${stored.variant_id}?`);
    const streamed = await call(link.replace(/^https?:\/\/[^/]+/, ""));
    expect(streamed.status).toBe(200);
    expect(new Uint8Array(await streamed.arrayBuffer())).toEqual(webm(4096));

    // The original stays downloadable by those who may download.
    const original = await call(`/api/asset/content/play/${asset.id}`, {
      method: "POST",
      bearer: owner.bearer,
      json: { variant_type: "master" },
    });
    const originalLink = ((await original.json()) as { link: string }).link;
    expect(originalLink).toContain(`/api/asset/content/stream/${asset.variantId}?`);
    const bytes = await call(originalLink.replace(/^https?:\/\/[^/]+/, ""));
    expect(new TextDecoder().decode(await bytes.arrayBuffer())).toBe("bytes");
  });

  it("stores exactly one of two heals racing for the same version", async () => {
    const { editor: reader, asset } = await readerOfVideo();
    const answers = await Promise.all([
      upload(reader.bearer, asset.id, webm(300, 1)),
      upload(reader.bearer, asset.id, mp4(300), { type: "video/mp4" }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    await Promise.all(answers.map((r) => r.text()));
    expect(await proxyRows(asset.id)).toHaveLength(1);
    expect(await storedKeys(asset.id)).toHaveLength(2);
  });

  it("refuses a user who may not read the file (404), a reader without heal (403), and stores nothing", async () => {
    const { reader, asset } = await readerOfVideo();
    const stranger = await signIn();
    expect((await expectError(await upload(stranger.bearer, asset.id, webm()), 404)).message).toBe(ru.assets.notFound);
    await expectError(await upload(reader.bearer, asset.id, webm(), { heal: false }), 403);
    expect(await proxyRows(asset.id)).toEqual([]);
    expect(await storedKeys(asset.id)).toEqual(asset.storageKeys);
  });

  it("refuses wrong types (415), bad bytes (400), oversize (413), a missing version (404) and non-videos (400), storing nothing", async () => {
    const { reader, asset } = await readerOfVideo();
    expect((await expectError(await upload(reader.bearer, asset.id, webm(), { type: "video/quicktime" }), 415)).message).toBe(
      ru.videoProxy.type,
    );
    await expectError(await upload(reader.bearer, asset.id, webm(), { type: "image/png" }), 415);
    // Bytes that are not of the declared container: written, sniffed, deleted.
    expect((await expectError(await upload(reader.bearer, asset.id, mp4()), 400)).message).toBe(ru.videoProxy.corrupt("video/webm"));
    await expectError(
      await upload(reader.bearer, asset.id, new TextEncoder().encode("<html>").buffer as ArrayBuffer, { type: "video/mp4" }),
      400,
    );
    await expectError(await upload(reader.bearer, asset.id, new Uint8Array(0)), 400);
    // A declared length past the cap is refused before a byte is read.
    const big = new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(new Uint8Array(64 * 1024)) });
    const tooLarge = await upload(reader.bearer, asset.id, big, { headers: { "content-length": String(VIDEO_PROXY_MAX_BYTES + 1) } });
    expect((await expectError(tooLarge, 413)).message).toBe(ru.videoProxy.tooLarge(VIDEO_PROXY_MAX_BYTES / 1024 / 1024));
    await expectError(await upload(reader.bearer, asset.id, webm(), { version: 2 }), 404);
    await expectError(
      await call(`/api/asset/upload-proxy/${asset.id}?heal=maybe`, {
        method: "POST",
        bearer: reader.bearer,
        body: webm(),
        headers: { "content-type": "video/webm" },
      }),
      400,
    );
    expect(await proxyRows(asset.id)).toEqual([]);
    expect(await storedKeys(asset.id)).toEqual(asset.storageKeys);

    const picture = await readerOfVideo();
    await exec(`update assets set mime = 'image/png' where id = ?`, picture.asset.id);
    await exec(`update variants set mime_type = 'image/png' where asset_id = ?`, picture.asset.id);
    expect((await expectError(await upload(picture.reader.bearer, picture.asset.id, webm()), 400)).message).toBe(ru.videoProxy.notVideo);
    expect(await storedKeys(picture.asset.id)).toEqual(picture.asset.storageKeys);
  });

  it("lets the owner (update) replace the proxy; the replaced bytes are deleted", async () => {
    const { owner, editor: reader, asset } = await readerOfVideo();
    const healed = (await (await upload(reader.bearer, asset.id, webm(500))).json()) as { variant_id: string };
    const [before] = await proxyRows(asset.id);
    expect(before.id).toBe(healed.variant_id);

    const replaced = await upload(owner.bearer, asset.id, mp4(800), { heal: false, type: "video/mp4", version: 1 });
    const body = (await replaced.json()) as { variant_id: string; replaced: boolean; mime_type: string };
    expect(replaced.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ replaced: true, mime_type: "video/mp4" });
    const after = await proxyRows(asset.id);
    expect(after).toEqual([expect.objectContaining({ id: body.variant_id, mime_type: "video/mp4", content_size: 800, user_id: owner.id })]);
    expect(await env.MEDIA.head(before.storage_key)).toBeNull();
    expect(await storedKeys(asset.id)).toEqual([...asset.storageKeys, after[0].storage_key].sort());
  });
});
