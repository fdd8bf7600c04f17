import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { purgeAssets } from "../../workers/services/library/asset-content.service";
import { exec, pngBytes, rows, testContext } from "./catalog-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { insertAsset } from "./library-factories";

/**
 * Who sees a heal (decision 029, «Who sees a heal»; docs/security.md «Heal-on-view»): a preview, proxy or waveform
 * made by someone without `update` on the file is visible to him alone until someone with `update` accepts it; its
 * maker is recorded and shown. Everyone else — other readers, the owner, anonymous visitors of a shared link — sees
 * the version as it was before the heal.
 */

const LINK_URL = /^https:\/\/mam\.test\/sl\/([A-Za-z0-9_-]{22})$/;
let ipCounter = 0;
const freshIp = () => `203.0.113.${++ipCounter}`;

async function grant(subj: string, obj: string, acl: string[]) {
  const admin = await signInAdmin();
  const res = await call("/api/user/acl", { method: "POST", bearer: admin.bearer, json: { subj, obj, acl } });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** A WebM's EBML header (doc type `webm`) followed by filler. */
function webm(bytes = 200, fill = 7): Uint8Array<ArrayBuffer> {
  const head = [
    0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0x42, 0xf2, 0x81, 0x04, 0x42, 0xf3, 0x81, 0x08, 0x42,
    0x82, 0x84, 0x77, 0x65, 0x62, 0x6d, 0x42, 0x87, 0x81, 0x04, 0x42, 0x85, 0x81, 0x02,
  ];
  const out = new Uint8Array(bytes).fill(fill);
  out.set(head);
  return out;
}

const healProxy = (bearer: string, assetId: string, body: Uint8Array<ArrayBuffer>) =>
  call(`/api/asset/upload-proxy/${assetId}?heal=true`, { method: "POST", bearer, body, headers: { "content-type": "video/webm" } });

const healThumb = (bearer: string, assetId: string, body: Uint8Array<ArrayBuffer>) =>
  call(`/api/asset/upload-preview/${assetId}?heal=true&size=thumb`, { method: "POST", bearer, body, headers: { "content-type": "image/png" } });

const accept = (bearer: string, assetId: string, kind: string, maker: string) =>
  call(`/api/asset/heal/${assetId}/1/accept`, { method: "POST", bearer, json: { kind, maker } });

/** The bytes a signed-in user's player gets for the version (play picks the most viewable rendition). */
async function played(bearer: string, assetId: string): Promise<Uint8Array> {
  const play = await call(`/api/asset/content/play/${assetId}`, { method: "POST", bearer, json: {} });
  expect(play.status, await play.clone().text()).toBe(200);
  const { link } = (await play.json()) as { link: string };
  const streamed = await call(link.replace(/^https?:\/\/[^/]+/, ""));
  expect(streamed.status).toBe(200);
  return new Uint8Array(await streamed.arrayBuffer());
}

async function variantTypes(bearer: string, assetId: string): Promise<string[]> {
  const res = await call(`/api/asset/variants/${assetId}/1`, { bearer });
  expect(res.status).toBe(200);
  return ((await res.json()) as { variant_type: string }[]).map((v) => v.variant_type).sort();
}

/** The thumb link preview-by-list answers this user for the file (null: none to show him). */
async function thumbLink(bearer: string, assetId: string): Promise<string | null> {
  const res = await call("/api/asset/content/preview-by-list", { method: "POST", bearer, json: { ids: [assetId] } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { list: { asset_id: string; preview: string | null }[] }).list[0]?.preview ?? null;
}

/** A view-only shared link to the file, opened by an anonymous visitor: what he is shown. */
async function sharedLink(ownerBearer: string, assetId: string): Promise<string> {
  const res = await call(`/api/sl/create/${assetId}`, { method: "POST", bearer: ownerBearer, json: {}, headers: { "cf-connecting-ip": freshIp() } });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return LINK_URL.exec(text)![1];
}
async function anonymousView(linkId: string): Promise<{ bytes: Uint8Array; thumb: string | null }> {
  const info = await call(`/api/sl/info/${linkId}`, { headers: { "cf-connecting-ip": freshIp() } });
  expect(info.status).toBe(200);
  const body = (await info.json()) as { asset: { media_url: string; thumb_url: string | null } };
  const media = await call(body.asset.media_url.replace(/^https?:\/\/[^/]+/, ""), { headers: { "cf-connecting-ip": freshIp() } });
  expect(media.status).toBe(200);
  return { bytes: new Uint8Array(await media.arrayBuffer()), thumb: body.asset.thumb_url };
}

const ORIGINAL = new TextEncoder().encode("bytes");

/** An owner's video (bytes «bytes»), a reader who heals (read + download), and a second reader who only watches. */
async function videoWithReaders() {
  const owner = await signIn();
  const maker = await signIn();
  const other = await signIn();
  const asset = await insertAsset({ ownerId: owner.id, name: "Съёмка.mts", mime: "video/mp2t", putBytes: true });
  await grant(maker.id, asset.id, ["read", "download"]);
  await grant(other.id, asset.id, ["read", "download"]);
  return { owner, maker, other, asset };
}

describe("heal on view by a user without update", () => {
  it("a reader's proxy plays for him alone until the owner accepts it; then for everyone, with its maker recorded", async () => {
    const { owner, maker, other, asset } = await videoWithReaders();
    const linkId = await sharedLink(owner.bearer, asset.id);
    const proxy = webm(4096);

    const stored = await healProxy(maker.bearer, asset.id, proxy);
    const body = (await stored.json()) as { variant_id: string; pending: boolean; link?: string };
    expect(stored.status, JSON.stringify(body)).toBe(201);
    expect(body.pending).toBe(true);
    // No shared row: nothing a listing, WOPI, search or a shared link reads has changed.
    expect(await rows(`select id from variants where asset_id = ? and variant_type = 'proxy_lowres'`, asset.id)).toEqual([]);

    // The maker plays his proxy (by play and by the link the upload answered).
    expect(await played(maker.bearer, asset.id)).toEqual(proxy);
    const own = await call(body.link!.replace(/^https?:\/\/[^/]+/, ""));
    expect(new Uint8Array(await own.arrayBuffer())).toEqual(proxy);
    // Another reader, the owner and an anonymous visitor of a shared link still get the original.
    expect(await played(other.bearer, asset.id)).toEqual(ORIGINAL);
    expect(await played(owner.bearer, asset.id)).toEqual(ORIGINAL);
    expect((await anonymousView(linkId)).bytes).toEqual(ORIGINAL);
    expect(await variantTypes(other.bearer, asset.id)).toEqual(["master"]);
    expect(await variantTypes(owner.bearer, asset.id)).toEqual(["master"]);
    // The maker's signed link is his: with another user's signature it is refused.
    const forged = body.link!.replace(/u=[^&]+/, `u=${other.id}`);
    expect((await call(forged.replace(/^https?:\/\/[^/]+/, ""))).status).toBe(403);

    // Readers cannot accept (403); the other reader sees no pending heal of someone else, the owner does.
    await expectError(await accept(maker.bearer, asset.id, "proxy", maker.id), 403);
    await expectError(await accept(other.bearer, asset.id, "proxy", maker.id), 403);
    const otherState = (await (await call(`/api/asset/heal/${asset.id}/1`, { bearer: other.bearer })).json()) as { pending: unknown[]; can_accept: boolean };
    expect(otherState).toMatchObject({ pending: [], can_accept: false });
    const makerState = (await (await call(`/api/asset/heal/${asset.id}/1`, { bearer: maker.bearer })).json()) as { pending: unknown[] };
    expect(makerState.pending).toEqual([expect.objectContaining({ kind: "proxy", mine: true, made_by: { id: maker.id, name: expect.any(String) } })]);
    const ownerState = (await (await call(`/api/asset/heal/${asset.id}/1`, { bearer: owner.bearer })).json()) as { pending: unknown[]; can_accept: boolean };
    expect(ownerState).toMatchObject({ can_accept: true, pending: [expect.objectContaining({ kind: "proxy", mine: false })] });

    // The owner accepts: everyone plays it now, and who made and who accepted it are recorded and shown.
    const accepted = await accept(owner.bearer, asset.id, "proxy", maker.id);
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    expect(await played(other.bearer, asset.id)).toEqual(proxy);
    expect(await played(owner.bearer, asset.id)).toEqual(proxy);
    expect(await played(maker.bearer, asset.id)).toEqual(proxy);
    expect((await anonymousView(linkId)).bytes).toEqual(proxy);
    expect(await rows(`select made_by, accepted_by from variants where asset_id = ? and variant_type = 'proxy_lowres'`, asset.id)).toEqual([
      { made_by: maker.id, accepted_by: owner.id },
    ]);
    expect(await rows(`select id from heal_candidates where asset_id = ?`, asset.id)).toEqual([]);
    const [entry] = await rows<{ actor_id: string; details: string }>(
      `select actor_id, details from audit_log where action = 'asset.heal_accept' and object_id = ?`,
      asset.id,
    );
    expect(entry.actor_id).toBe(owner.id);
    expect(JSON.parse(entry.details)).toMatchObject({ kind: "proxy", made_by: maker.id });
    const after = (await (await call(`/api/asset/heal/${asset.id}/1`, { bearer: other.bearer })).json()) as { made: unknown[] };
    expect(after.made).toEqual([expect.objectContaining({ kind: "proxy", made_by: expect.objectContaining({ id: maker.id }) })]);
  });

  it("a reader's thumb is shown to him alone until accepted; the grid, shared link and other users see none", async () => {
    const { owner, maker, other, asset } = await videoWithReaders();
    const linkId = await sharedLink(owner.bearer, asset.id);
    const healed = await healThumb(maker.bearer, asset.id, pngBytes(320, 180));
    expect(healed.status, await healed.clone().text()).toBe(200);
    expect(((await healed.json()) as { pending: boolean }).pending).toBe(true);

    const mine = await thumbLink(maker.bearer, asset.id);
    expect(mine).not.toBeNull();
    const picture = await call(mine!.replace(/^https?:\/\/[^/]+/, ""));
    expect(picture.status).toBe(200);
    expect(picture.headers.get("x-preview-pending")).toBe("1");
    expect(await thumbLink(other.bearer, asset.id)).toBeNull();
    expect(await thumbLink(owner.bearer, asset.id)).toBeNull();
    await expectError(await call(`/api/asset/content/preview/${asset.id}/1/thumb`, { bearer: other.bearer }), 404);
    await expectError(await call(`/api/asset/content/preview/${asset.id}/1/thumb`, { bearer: owner.bearer }), 404);
    expect((await anonymousView(linkId)).thumb).toBeNull();

    await expectError(await accept(other.bearer, asset.id, "thumb", maker.id), 403);
    expect((await accept(owner.bearer, asset.id, "thumb", maker.id)).status).toBe(200);
    expect(await thumbLink(other.bearer, asset.id)).not.toBeNull();
    expect((await call(`/api/asset/content/preview/${asset.id}/1/thumb`, { bearer: owner.bearer })).status).toBe(200);
    expect((await anonymousView(linkId)).thumb).not.toBeNull();
    expect(await rows(`select made_by, accepted_by from previews where asset_id = ?`, asset.id)).toEqual([{ made_by: maker.id, accepted_by: owner.id }]);
  });

  it("a reader's waveform is his until accepted", async () => {
    const { owner, maker, other, asset } = await videoWithReaders();
    await exec(`update assets set mime = 'audio/mpeg' where id = ?`, asset.id);
    const peaks = { version: 1, sampleRate: 44100, durationSec: 3, peaks: [0.1, 0.8, 0.4] };
    const posted = await call(`/api/asset/waveform/${asset.id}?heal=true`, { method: "POST", bearer: maker.bearer, json: peaks });
    expect(posted.status, await posted.clone().text()).toBe(200);
    expect(((await posted.json()) as { pending: boolean }).pending).toBe(true);
    expect((await call(`/api/asset/waveform/${asset.id}/0`, { bearer: maker.bearer })).status).toBe(200);
    await expectError(await call(`/api/asset/waveform/${asset.id}/0`, { bearer: other.bearer }), 404);
    await expectError(await call(`/api/asset/waveform/${asset.id}/0`, { bearer: owner.bearer }), 404);
    expect(await thumbLink(owner.bearer, asset.id)).toBeNull();

    expect((await accept(owner.bearer, asset.id, "waveform", maker.id)).status).toBe(200);
    const shared = await call(`/api/asset/waveform/${asset.id}/0`, { bearer: other.bearer });
    expect(shared.status).toBe(200);
    expect(((await shared.json()) as { peaks: number[] }).peaks).toEqual(peaks.peaks);
    // Its pictures were accepted with it by the same call for each kind.
    expect((await accept(owner.bearer, asset.id, "thumb", maker.id)).status).toBe(200);
    expect(await thumbLink(other.bearer, asset.id)).not.toBeNull();
  });

  it("keeps one pending heal per maker and kind; accepting one removes the others and their bytes", async () => {
    const { owner, maker, other, asset } = await videoWithReaders();
    expect((await healProxy(maker.bearer, asset.id, webm(300, 1))).status).toBe(201);
    expect((await healProxy(maker.bearer, asset.id, webm(400, 2))).status).toBe(201);
    expect((await healProxy(other.bearer, asset.id, webm(500, 3))).status).toBe(201);
    const pending = await rows<{ made_by: string; storage_key: string; content_size: number }>(
      `select made_by, storage_key, content_size from heal_candidates where asset_id = ? order by content_size`,
      asset.id,
    );
    expect(pending.map((p) => [p.made_by, p.content_size])).toEqual([
      [maker.id, 400],
      [other.id, 500],
    ]);
    // The replaced pending proxy's bytes are gone: only the original and the two pending copies are stored.
    expect((await env.MEDIA.list({ prefix: `assets/${asset.id}/` })).objects).toHaveLength(3);

    expect((await accept(owner.bearer, asset.id, "proxy", other.id)).status).toBe(200);
    expect(await rows(`select id from heal_candidates where asset_id = ?`, asset.id)).toEqual([]);
    expect(await env.MEDIA.head(pending[0].storage_key)).toBeNull();
    expect(await played(maker.bearer, asset.id)).toEqual(webm(500, 3));
    // Once shared, a further heal of that kind is refused as before.
    await expectError(await healProxy(maker.bearer, asset.id, webm(300)), 409);
    // Nothing left to accept: 404.
    await expectError(await accept(owner.bearer, asset.id, "proxy", maker.id), 404);
  });

  it("a heal by a user with update is shared at once, recorded as made and accepted by him", async () => {
    const { owner, other, asset } = await videoWithReaders();
    const stored = await healProxy(owner.bearer, asset.id, webm(600));
    expect(stored.status).toBe(201);
    expect(((await stored.json()) as { pending: boolean }).pending).toBe(false);
    expect(await played(other.bearer, asset.id)).toEqual(webm(600));
    expect(await rows(`select made_by, accepted_by from variants where asset_id = ? and variant_type = 'proxy_lowres'`, asset.id)).toEqual([
      { made_by: owner.id, accepted_by: owner.id },
    ]);
  });

  it("validates the accept call (400) and hides files the caller cannot read (404)", async () => {
    const { owner, maker, asset } = await videoWithReaders();
    const stranger = await signIn();
    expect((await healThumb(maker.bearer, asset.id, pngBytes(100, 100))).status).toBe(200);
    await expectError(await accept(owner.bearer, asset.id, "poster", maker.id), 400);
    await expectError(await call(`/api/asset/heal/${asset.id}/1/accept`, { method: "POST", bearer: owner.bearer, json: { kind: "thumb" } }), 400);
    await expectError(await accept(owner.bearer, asset.id, "thumb", "не-id"), 400);
    const hidden = await expectError(await accept(stranger.bearer, asset.id, "thumb", maker.id), 404);
    expect(hidden.message).toBe(ru.assets.notFound);
    await expectError(await call(`/api/asset/heal/${asset.id}/1`, { bearer: stranger.bearer }), 404);
    expect(await rows(`select made_by from heal_candidates where asset_id = ?`, asset.id)).toEqual([{ made_by: maker.id }]);
  });

  it("purging the file removes its pending heals and their bytes", async () => {
    const { maker, asset } = await videoWithReaders();
    expect((await healProxy(maker.bearer, asset.id, webm(300))).status).toBe(201);
    expect((await healThumb(maker.bearer, asset.id, pngBytes(100, 100))).status).toBe(200);
    const keys = (await rows<{ storage_key: string }>(`select storage_key from heal_candidates where asset_id = ?`, asset.id)).map((r) => r.storage_key);
    expect(keys).toHaveLength(2);
    await purgeAssets(testContext(), [asset.id]);
    expect(await rows(`select id from heal_candidates where asset_id = ?`, asset.id)).toEqual([]);
    for (const key of keys) expect(await env.MEDIA.head(key)).toBeNull();
  });

  it("a reader's page render of a PDF is his until accepted: the others keep the text card", async () => {
    const { owner, maker, other, asset } = await videoWithReaders();
    await exec(`update assets set mime = 'application/pdf' where id = ?`, asset.id);
    await exec(
      `insert into previews (id, asset_id, version_id, size, mime_type, width, height, content_size, storage_key, maker, ctime)
       values (?, ?, ?, 'thumb', 'image/png', 240, 320, 33, ?, 'card', 1)`,
      asset.id.slice(0, 31) + "c",
      asset.id,
      asset.versionId,
      `previews/${asset.id}/card`,
    );
    await env.MEDIA.put(`previews/${asset.id}/card`, pngBytes(240, 320));
    expect((await healThumb(maker.bearer, asset.id, pngBytes(226, 320))).status).toBe(200);
    const makerOf = async (bearer: string) => {
      const res = await call(`/api/asset/content/preview/${asset.id}/1/thumb`, { bearer });
      await res.arrayBuffer();
      return `${res.status} ${res.headers.get("x-preview-maker")} ${res.headers.get("x-preview-pending")}`;
    };
    expect(await makerOf(maker.bearer)).toBe("200 page 1");
    expect(await makerOf(other.bearer)).toBe("200 card null");
    expect(await makerOf(owner.bearer)).toBe("200 card null");
    expect((await accept(owner.bearer, asset.id, "thumb", maker.id)).status).toBe(200);
    expect(await makerOf(other.bearer)).toBe("200 page null");
    expect(await env.MEDIA.head(`previews/${asset.id}/card`)).toBeNull();
  });
});
