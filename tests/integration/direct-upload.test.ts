import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newId } from "../../workers/lib/ids";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { bytesOf, createAsset, createGroup, json, rows, sha256Of, uploadVersion, type Uploaded } from "./asset-fixtures";

/** POST /api/asset/upload: a small file in one request, committed after its bytes are stored, or nothing at all. */

function upload(bearer: string, query: Record<string, string>, body: BodyInit | null, headers: Record<string, string> = {}) {
  return call(`/api/asset/upload?${new URLSearchParams(query)}`, { method: "POST", bearer, body: body ?? undefined, headers });
}

async function objectCount(prefix: string): Promise<number> {
  return (await env.MEDIA.list({ prefix })).objects.length;
}

describe("POST /api/asset/upload", () => {
  it("creates the asset in the folder with version 1 holding exactly the bytes, in one request", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const bytes = bytesOf(10_000, 3);
    const done = await json<Uploaded>(
      await upload(user.bearer, { in_group: group, name: "Отчёт 2026.pdf" }, bytes, { "content-type": "application/pdf" }),
      201,
    );
    expect(done).toMatchObject({ asset_version: 1, file_name: "Отчёт 2026.pdf", mime_type: "application/pdf", file_size: 10_000 });
    expect(done.checksum).toBe(await sha256Of(bytes));
    const stored = await env.MEDIA.get(done.storage_path);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(bytes);

    const asset = await json<{ name: string; mimetype: string; ver: number }>(await call(`/api/asset/${done.asset_id}`, { bearer: user.bearer }));
    expect(asset).toMatchObject({ name: "Отчёт 2026.pdf", mimetype: "application/pdf", ver: 1 });
    const [member] = await rows<{ el_size: number }>("select el_size from group_members where group_id = ? and el_id = ?", group, done.asset_id);
    expect(member.el_size).toBe(10_000);
    const events = await rows<{ type: string; data: string }>(
      "select type, data from global_events where entity_id = ? order by rowid",
      done.asset_id,
    );
    expect(events.map((e) => e.type)).toEqual(["asset.created", "asset.uploaded"]);
    expect(JSON.parse(events[1].data)).toMatchObject({ group_id: group, size: 10_000 });
  });

  it("adds the newest version of an existing asset with asset_id, and takes an empty file", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const assetId = await createAsset(user.bearer, { asset_name: "Логотип.png", asset_mime: "image/png", in_group: group });
    await uploadVersion(user.bearer, assetId, bytesOf(100, 1), { file_name: "Логотип.png", mime_type: "image/png" });
    const done = await json<Uploaded>(await upload(user.bearer, { asset_id: assetId, name: "Логотип.png", mime: "image/png" }, bytesOf(200, 2)), 201);
    expect(done).toMatchObject({ asset_id: assetId, asset_version: 2, file_size: 200, mime_type: "image/png" });
    const empty = await json<Uploaded>(await upload(user.bearer, { asset_id: assetId, name: "пусто.png" }, new Uint8Array(0)), 201);
    expect(empty).toMatchObject({ asset_version: 3, file_size: 0, mime_type: "application/octet-stream" });
    const versions = await json<{ version: number }[]>(await call(`/api/asset/versions/${assetId}`, { bearer: user.bearer }));
    expect(versions.map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it("refuses a user without create on the folder or the asset, and writes nothing", async () => {
    const owner = await signIn();
    const stranger = await signIn();
    const group = await createGroup(owner.id);
    const assetId = await createAsset(owner.bearer, { in_group: group });
    const before = await rows<{ n: number }>("select count(*) as n from assets where owner_id = ?", stranger.id);
    // Unseen: not found; seen read-only: forbidden.
    await expectError(await upload(stranger.bearer, { in_group: group, name: "чужое.txt" }, "нельзя"), 404);
    await expectError(await upload(stranger.bearer, { asset_id: assetId, name: "чужое.txt" }, "нельзя"), 404);
    const admin = await signInAdmin();
    const granted = await call("/api/user/acl", { method: "POST", bearer: admin.bearer, json: { subj: stranger.id, obj: group, acl: ["read"] } });
    expect(granted.status).toBe(201);
    await expectError(await upload(stranger.bearer, { in_group: group, name: "чужое.txt" }, "нельзя"), 403);
    await expectError(await upload(stranger.bearer, { asset_id: assetId, name: "чужое.txt" }, "нельзя"), 403);
    expect(await rows("select count(*) as n from assets where owner_id = ?", stranger.id)).toEqual(before);
    expect(await objectCount(`assets/${assetId}/`)).toBe(0);
    expect((await rows("select id from variants where asset_id = ?", assetId)).length).toBe(0);
  });

  it("names the wrong field: both or neither target, a bad name, a bad type; 404 for an unknown folder", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const neither = await expectError(await upload(user.bearer, { name: "a.txt" }, "x"), 400);
    expect(neither.message).toContain("«in_group»");
    const both = await expectError(await upload(user.bearer, { in_group: group, asset_id: newId(), name: "a.txt" }, "x"), 400);
    expect(both.message).toContain("«in_group»");
    expect((await expectError(await upload(user.bearer, { in_group: group, name: "a/b.txt" }, "x"), 400)).message).toContain("«name»");
    expect((await expectError(await upload(user.bearer, { in_group: group, name: "a.txt", mime: "нет" }, "x"), 400)).message).toContain("«mime»");
    await expectError(await upload(user.bearer, { in_group: newId(), name: "a.txt" }, "x"), 404);
    await expectError(await call(`/api/asset/upload?in_group=${group}&name=a.txt`, { method: "POST", body: "x" }), 401);
  });

  it("verifies a checksum the client sends: a mismatch is 400 and nothing is stored", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const bytes = bytesOf(500, 9);
    const sha = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))));
    await json(await upload(user.bearer, { in_group: group, name: "верно.bin" }, bytes, { "x-amz-checksum-sha256": sha }), 201);
    await expectError(await upload(user.bearer, { in_group: group, name: "неверно.bin" }, bytesOf(500, 1), { "x-amz-checksum-sha256": sha }), 400);
    const names = await rows<{ name: string }>(
      "select a.name from group_members m join assets a on a.id = m.el_id where m.group_id = ? and m.el_type = 'asset'",
      group,
    );
    expect(names.map((n) => n.name)).toEqual(["верно.bin"]);
    // The pending row written before the bytes went with them.
    expect(await rows("select id from variants where file_name = 'неверно.bin'")).toEqual([]);
  });

  it("answers 411 for a body of unknown length and stores nothing", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([1, 2, 3]));
        controller.close();
      },
    });
    await expectError(await upload(user.bearer, { in_group: group, name: "поток.bin" }, stream), 411);
    expect(await rows("select el_id from group_members where group_id = ? and el_type = 'asset'", group)).toEqual([]);
  });
});
