import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { exec, insertAsset, insertVariant, pngBytes, rows } from "./catalog-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";

/**
 * Heal-on-view (decision 029): the next browser with the right to see a file without a preview makes one and stores
 * it with `heal=true` — `read` suffices, the first preview wins, a PDF's text card gives way once to a page render.
 * What a user without `update` heals is his alone until accepted (heal-visibility.test.ts); the shared slot's rules
 * below are those of heals by users with `update` (an editor).
 */

async function grant(subj: string, obj: string, acl: string[]) {
  const admin = await signInAdmin();
  const res = await call("/api/user/acl", { method: "POST", bearer: admin.bearer, json: { subj, obj, acl } });
  expect(res.status, await res.clone().text()).toBe(201);
}

function heal(bearer: string, assetId: string, bytes: Uint8Array<ArrayBuffer>, size = "thumb", type = "image/png") {
  return call(`/api/asset/upload-preview/${assetId}?heal=true&size=${size}`, {
    method: "POST",
    bearer,
    body: bytes,
    headers: { "content-type": type },
  });
}

const previewRows = (assetId: string) =>
  rows<{ id: string; size: string; width: number; maker: string | null; storage_key: string }>(
    `select id, size, width, maker, storage_key from previews where asset_id = ? order by ctime, id`,
    assetId,
  );

/** An owner's file with one version, a reader who may only look at it, and an editor who may change it. */
async function readerOfFile(mime = "video/mp4") {
  const owner = await signIn();
  const reader = await signIn();
  const editor = await signIn();
  const asset = await insertAsset({ ownerId: owner.id, versions: 1 });
  await exec(`update assets set mime = ? where id = ?`, mime, asset.id);
  await grant(reader.id, asset.id, ["read"]);
  await grant(editor.id, asset.id, ["read", "update"]);
  return { owner, reader, editor, asset };
}

describe("POST /api/asset/upload-preview/{id}?heal=true", () => {
  it("lets an editor's heal store a missing preview once, and never overwrite it", async () => {
    const { reader, editor, owner, asset } = await readerOfFile();
    // Without heal a reader may not store a preview at all.
    await expectError(
      await call(`/api/asset/upload-preview/${asset.id}`, {
        method: "POST",
        bearer: reader.bearer,
        body: pngBytes(8, 8),
        headers: { "content-type": "image/png" },
      }),
      403,
    );

    const first = await heal(editor.bearer, asset.id, pngBytes(320, 180));
    expect(first.status, await first.clone().text()).toBe(200);
    const [row] = await previewRows(asset.id);
    expect(row).toMatchObject({ size: "thumb", width: 320, maker: "browser" });

    const second = await expectError(await heal(editor.bearer, asset.id, pngBytes(100, 100)), 409);
    expect(second.message).toBe(ru.catalog.previewExists);
    // Healing is first-writer-wins for writers too; the replacing upload stays theirs. A reader is refused alike.
    await expectError(await heal(owner.bearer, asset.id, pngBytes(100, 100)), 409);
    await expectError(await heal(reader.bearer, asset.id, pngBytes(100, 100)), 409);
    expect((await previewRows(asset.id)).map((r) => r.id)).toEqual([row.id]);

    // Another size of the same version is still missing, so it may be healed.
    const strip = await heal(editor.bearer, asset.id, pngBytes(1600, 90), "strip");
    expect(strip.status, await strip.clone().text()).toBe(200);
    expect((await previewRows(asset.id)).map((r) => r.size).sort()).toEqual(["strip", "thumb"]);
  });

  it("stores exactly one of two heals racing for the same slot", async () => {
    const { editor, asset } = await readerOfFile();
    const answers = await Promise.all([
      heal(editor.bearer, asset.id, pngBytes(300, 200)),
      heal(editor.bearer, asset.id, pngBytes(200, 300)),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    await Promise.all(answers.map((r) => r.text()));
    expect(await previewRows(asset.id)).toHaveLength(1);
  });

  it("lets a PDF's page render replace its text card once, and nothing replace the render", async () => {
    const { editor: reader, asset } = await readerOfFile("application/pdf");
    const [{ id: versionId }] = await rows<{ id: string }>(`select id from asset_versions where asset_id = ?`, asset.id);
    await exec(
      `insert into previews (id, asset_id, version_id, size, mime_type, width, height, content_size, storage_key, maker, ctime)
       values ('00000000000000000000000000000c01', ?, ?, 'thumb', 'image/png', 240, 320, 10, 'previews/x/card', 'card', 1)`,
      asset.id,
      versionId,
    );
    const page = await heal(reader.bearer, asset.id, pngBytes(226, 320));
    expect(page.status, await page.clone().text()).toBe(200);
    expect(await previewRows(asset.id)).toEqual([expect.objectContaining({ width: 226, maker: "page" })]);
    await expectError(await heal(reader.bearer, asset.id, pngBytes(240, 320)), 409);
    expect(await previewRows(asset.id)).toEqual([expect.objectContaining({ width: 226, maker: "page" })]);
  });

  it("answers 404 to a user who may not read the file, and stores nothing", async () => {
    const { asset } = await readerOfFile();
    const stranger = await signIn();
    const error = await expectError(await heal(stranger.bearer, asset.id, pngBytes(10, 10)), 404);
    expect(error.message).toBe(ru.assets.notFound);
    expect(await previewRows(asset.id)).toEqual([]);
  });

  it("refuses bad bytes and pictures larger than the size's box (400), storing nothing", async () => {
    const { reader, asset } = await readerOfFile();
    const junk = new TextEncoder().encode("<svg onload=alert(1)>") as Uint8Array<ArrayBuffer>;
    expect((await expectError(await heal(reader.bearer, asset.id, junk), 400)).message).toBe(ru.catalog.previewCorrupt("image/png"));
    expect((await expectError(await heal(reader.bearer, asset.id, pngBytes(321, 10)), 400)).message).toBe(
      ru.catalog.previewOutOfBounds(321, 10, 320, 320),
    );
    await expectError(await heal(reader.bearer, asset.id, pngBytes(1601, 10), "strip"), 400);
    await expectError(await heal(reader.bearer, asset.id, pngBytes(1281, 10), "medium"), 400);
    await expectError(
      await call(`/api/asset/upload-preview/${asset.id}?heal=maybe`, {
        method: "POST",
        bearer: reader.bearer,
        body: pngBytes(1, 1),
        headers: { "content-type": "image/png" },
      }),
      400,
    );
    expect(await previewRows(asset.id)).toEqual([]);
  });

  it("tells who made a preview in X-Preview-Maker, and serves the strip", async () => {
    const { reader, asset } = await readerOfFile();
    await heal(reader.bearer, asset.id, pngBytes(1600, 90), "strip").then((r) => r.text());
    const res = await call(`/api/asset/content/preview/${asset.id}/1/strip`, { bearer: reader.bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-preview-maker")).toBe("browser");
    await res.arrayBuffer();
  });
});

describe("a healed thumb", () => {
  it("marks the version's preview stage done, dropping the earlier reason", async () => {
    const { editor: reader, owner, asset } = await readerOfFile();
    const variant = await insertVariant({ assetId: asset.id, versionId: asset.versionIds[0], ownerId: owner.id });
    const before = { processing: { preview: { state: "not_applicable", reason: "нет постера" }, text: { state: "done", reason: null } } };
    await exec(`update variants set tech_fields = ? where id = ?`, JSON.stringify(before), variant);
    const res = await heal(reader.bearer, asset.id, pngBytes(320, 180));
    expect(res.status, await res.clone().text()).toBe(200);
    const [row] = await rows<{ t: string }>(`select tech_fields as t from variants where id = ?`, variant);
    expect(JSON.parse(row.t).processing).toEqual({ preview: { state: "done" }, text: { state: "done", reason: null } });
  });
});

describe("POST /api/asset/waveform/{id}?heal=true", () => {
  const peaksBody = (n: number) => ({ version: 1, sampleRate: 44100, durationSec: 12.5, peaks: Array.from({ length: n }, (_, i) => (i % 10) / 10) });
  const postPeaks = (bearer: string, assetId: string, body: unknown, query = "?heal=true") =>
    call(`/api/asset/waveform/${assetId}${query}`, { method: "POST", bearer, json: body });
  const readPeaks = (bearer: string, assetId: string) => call(`/api/asset/waveform/${assetId}/0`, { bearer });

  it("lets an editor's heal store a version's peaks once; a second heal gets 409 and changes nothing", async () => {
    const { reader, editor, owner, asset } = await readerOfFile("audio/mpeg");
    // Without heal a reader may not post peaks at all.
    await expectError(await postPeaks(reader.bearer, asset.id, peaksBody(10), ""), 403);

    const first = await postPeaks(editor.bearer, asset.id, peaksBody(720));
    expect(first.status, await first.clone().text()).toBe(200);
    expect(await first.json()).toEqual({
      buckets: 720,
      previews: [
        { size: "thumb", width: 320, height: 160 },
        { size: "medium", width: 1280, height: 640 },
      ],
      pending: false,
    });
    const stored = await readPeaks(reader.bearer, asset.id);
    expect(stored.status).toBe(200);
    expect(await stored.json()).toEqual(peaksBody(720));
    const made = await previewRows(asset.id);
    expect(made.map((r) => [r.size, r.maker])).toEqual(expect.arrayContaining([["thumb", "browser"], ["medium", "browser"]]));

    const second = await expectError(await postPeaks(reader.bearer, asset.id, peaksBody(5)), 409);
    expect(second.message).toBe(ru.catalog.waveformExists);
    // Healing is first-writer-wins for writers too; replacing stays the plain (update) call.
    await expectError(await postPeaks(owner.bearer, asset.id, peaksBody(5)), 409);
    expect(await (await readPeaks(owner.bearer, asset.id)).json()).toEqual(peaksBody(720));
    expect((await previewRows(asset.id)).map((r) => r.id).sort()).toEqual(made.map((r) => r.id).sort());

    const replaced = await postPeaks(owner.bearer, asset.id, peaksBody(5), "");
    expect(replaced.status, await replaced.clone().text()).toBe(200);
    expect(await (await readPeaks(reader.bearer, asset.id)).json()).toEqual(peaksBody(5));
  });

  it("fills only the sizes the version lacks: a preview already there stays", async () => {
    const { editor: reader, asset } = await readerOfFile("audio/ogg");
    const thumb = await heal(reader.bearer, asset.id, pngBytes(320, 160));
    expect(thumb.status, await thumb.clone().text()).toBe(200);
    const [kept] = await previewRows(asset.id);
    const res = await postPeaks(reader.bearer, asset.id, peaksBody(100));
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()) as { previews: unknown[] }).toMatchObject({ previews: [{ size: "medium", width: 1280, height: 640 }] });
    const after = await previewRows(asset.id);
    expect(after.find((r) => r.size === "thumb")?.id).toBe(kept.id);
    expect(after.map((r) => r.size).sort()).toEqual(["medium", "thumb"]);
  });

  it("stores exactly one of two heals racing for the same version", async () => {
    const { editor: reader, asset } = await readerOfFile("audio/flac");
    const answers = await Promise.all([postPeaks(reader.bearer, asset.id, peaksBody(50)), postPeaks(reader.bearer, asset.id, peaksBody(60))]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    await Promise.all(answers.map((r) => r.text()));
    const stored = (await (await readPeaks(reader.bearer, asset.id)).json()) as { peaks: number[] };
    const winner = answers.find((r) => r.status === 200) === answers[0] ? 50 : 60;
    expect(stored.peaks).toHaveLength(winner);
  });

  it("answers 404 to a user who may not read the file, and stores nothing", async () => {
    const { owner, asset } = await readerOfFile("audio/mpeg");
    const stranger = await signIn();
    const error = await expectError(await postPeaks(stranger.bearer, asset.id, peaksBody(10)), 404);
    expect(error.message).toBe(ru.assets.notFound);
    await expectError(await readPeaks(owner.bearer, asset.id), 404);
    expect(await previewRows(asset.id)).toEqual([]);
  });
});
