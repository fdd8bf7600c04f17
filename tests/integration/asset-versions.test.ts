import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { runBatch } from "../../workers/db/repositories/asset.repository";
import { settleReservationValuesStatements } from "../../workers/db/repositories/field.repository";
import { newId } from "../../workers/lib/ids";
import { createRequestContext } from "../../workers/services/access/context";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { bytesOf, createAsset, createGroup, json, rows, sha256Of, snapshot, uploadVersion } from "./asset-fixtures";

/**
 * Version management (issue 13): restore an old version as the newest, delete a version, a version's comment, and
 * the batched name check of upload batches — with their refusals (rights, last version, bad ids).
 */

async function grant(subj: string, obj: string, acl: string[]) {
  const admin = await signInAdmin();
  const res = await call("/api/user/acl", { method: "POST", bearer: admin.bearer, json: { subj, obj, acl } });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** An owner with a group holding an image asset with two uploaded versions. */
async function twoVersions() {
  const owner = await signIn();
  const group = await createGroup(owner.id);
  const assetId = await createAsset(owner.bearer, { asset_name: "Обложка.png", asset_mime: "image/png", in_group: group });
  const v1 = await uploadVersion(owner.bearer, assetId, bytesOf(300, 1), { file_name: "Обложка.png", mime_type: "image/png" });
  const v2 = await uploadVersion(owner.bearer, assetId, bytesOf(500, 2), { file_name: "Обложка.png", mime_type: "image/png" });
  return { owner, group, assetId, v1, v2 };
}

const versionsOf = (bearer: string, id: string) =>
  call(`/api/asset/versions/${id}`, { bearer }).then((r) => json<{ version: number; desc: string | null; variant_id: string; content_size: number }[]>(r));

describe("POST /api/asset/restore-version/{id}", () => {
  it("makes version 1 the newest as a NEW version 3 whose variant shares version 1's stored object", async () => {
    const { owner, group, assetId, v1 } = await twoVersions();
    const res = await call(`/api/asset/restore-version/${assetId}`, { method: "POST", bearer: owner.bearer, json: { version: 1 } });
    const made = await json<{ version: number; restored_from: number; version_id: string }>(res);
    expect(made).toMatchObject({ version: 3, restored_from: 1 });

    const list = await versionsOf(owner.bearer, assetId);
    expect(list.map((v) => v.version)).toEqual([3, 2, 1]);
    expect(list[0]).toMatchObject({ desc: ru.fileVersions.restoredFrom(1), content_size: 300 });
    expect(list[0].variant_id).not.toBe(v1.asset_variant_id);

    const [a] = await rows<{ latest_version: number }>("select latest_version from assets where id = ?", assetId);
    expect(a.latest_version).toBe(3);
    const [member] = await rows<{ el_size: number }>("select el_size from group_members where group_id = ? and el_id = ?", group, assetId);
    expect(member.el_size).toBe(300);
    const keys = await rows<{ storage_key: string }>("select storage_key from variants where asset_id = ? and version_id = ?", assetId, made.version_id);
    expect(keys).toEqual([{ storage_key: v1.storage_path }]);

    // The restored bytes are version 1's, downloadable as the latest version.
    const download = await call(`/api/asset/content/download/${assetId}/latest/initial`, { bearer: owner.bearer });
    expect(download.status).toBe(200);
    expect(await sha256Of(new Uint8Array(await download.arrayBuffer()))).toBe(v1.checksum);

    const events = await rows<{ type: string }>("select type from global_events where entity_id = ? and type = 'asset.version-restored'", assetId);
    expect(events).toHaveLength(1);
  });

  it("takes the number after an empty version create-version made; that upload still commits into its own number", async () => {
    const { owner, assetId } = await twoVersions();
    const started = await json<{ version: number; upload_url: string }>(
      await call(`/api/asset/create-version/${assetId}`, { method: "POST", bearer: owner.bearer, json: { file_name: "Обложка.png", mime_type: "image/png", size: 4 } }),
    );
    expect(started.version).toBe(3);
    const made = await json<{ version: number }>(
      await call(`/api/asset/restore-version/${assetId}`, { method: "POST", bearer: owner.bearer, json: { version: 1 } }),
    );
    expect(made.version).toBe(4);
    const url = new URL(started.upload_url);
    const put = await call(`${url.pathname}${url.search}`, { method: "PUT", body: bytesOf(4), headers: { "content-type": "image/png" } });
    expect(await json(put, 201)).toMatchObject({ asset_version: 3 });
    expect((await versionsOf(owner.bearer, assetId)).map((v) => v.version)).toEqual([4, 3, 2, 1]);
    const [a] = await rows<{ latest_version: number }>("select latest_version from assets where id = ?", assetId);
    expect(a.latest_version).toBe(4);
  });

  it("lists the variant of a version create-version reserved (awaiting its bytes), then the committed one", async () => {
    const { owner, assetId } = await twoVersions();
    const started = await json<{ version: number; variant_id: string; upload_url: string }>(
      await call(`/api/asset/create-version/${assetId}`, { method: "POST", bearer: owner.bearer, json: { file_name: "Обложка.png", mime_type: "image/png", size: 4 } }),
    );
    const awaiting = await json<{ variant_id: string; version: number; sha256: string | null; file_name: string; content_size: number }[]>(
      await call(`/api/asset/variants/${assetId}/${started.version}`, { bearer: owner.bearer }),
    );
    expect(awaiting).toEqual([expect.objectContaining({ variant_id: started.variant_id, version: started.version, sha256: null, file_name: "Обложка.png", content_size: 4 })]);
    // Only a number that exists (committed or reserved) is a version; others stay 404, and strangers learn nothing.
    await expectError(await call(`/api/asset/variants/${assetId}/${started.version + 1}`, { bearer: owner.bearer }), 404);
    await expectError(await call(`/api/asset/variants/${assetId}/${started.version}`, { bearer: (await signIn()).bearer }), 404);
    const url = new URL(started.upload_url);
    await json(await call(`${url.pathname}${url.search}`, { method: "PUT", body: bytesOf(4), headers: { "content-type": "image/png" } }), 201);
    const committed = await json<{ variant_id: string; sha256: string | null }[]>(
      await call(`/api/asset/variants/${assetId}/${started.version}`, { bearer: owner.bearer }),
    );
    expect(committed).toHaveLength(1);
    expect(committed[0].variant_id).toBe(started.variant_id);
    expect(committed[0].sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("takes field values on a version create-version reserved; they follow it into the commit, and go when it is cancelled", async () => {
    const { owner, group, assetId } = await twoVersions();
    const admin = await signInAdmin();
    const template = await json<{ field_def_id: string }>(
      await call("/api/fields/template", {
        method: "POST",
        bearer: admin.bearer,
        json: { field_def_name: `Автор ${newId().slice(-8)}`, field_type: "text", field_setup: { multiple: true } },
      }),
    );
    const reserve = () =>
      call(`/api/asset/create-version/${assetId}`, { method: "POST", bearer: owner.bearer, json: { file_name: "Обложка.png", mime_type: "image/png", size: 4 } }).then(
        (r) => json<{ version: number; variant_id: string; upload_url: string }>(r),
      );
    type Value = { field_id: string; asset_version: number | null; asset_version_id: string | null; field_data: unknown };
    const attach = (bearer: string, versionRef: string | number, data: string) =>
      call(`/api/fields/create/${assetId}`, { method: "POST", bearer, json: { def_id: template.field_def_id, asset_version_id: versionRef, data } });
    const valuesOf = (version: number) =>
      call(`/api/fields/for-entity/${assetId}?version=${version}`, { bearer: owner.bearer }).then((r) => json<Value[]>(r));

    const started = await reserve();
    expect(started.version).toBe(3);
    // By number (SPEC's form) and by the id the version listing shows for it (its variant_id): both name the reservation.
    const byNumber = await json<Value>(await attach(owner.bearer, started.version, "Вера"));
    expect(byNumber).toMatchObject({ asset_version: 3, asset_version_id: started.variant_id, field_data: "Вера" });
    const byId = await json<Value>(await attach(owner.bearer, started.variant_id, "Глеб"));
    expect(byId).toMatchObject({ asset_version: 3, asset_version_id: started.variant_id });
    // fields/apply names it the same way.
    await json(
      await call(`/api/fields/apply/${assetId}`, {
        method: "POST",
        bearer: owner.bearer,
        json: { values: [{ def_id: template.field_def_id, data: "Ада", asset_version_id: started.version }] },
      }),
    );
    expect((await valuesOf(3)).map((v) => v.field_data).sort()).toEqual(["Ада", "Вера", "Глеб"]);
    expect(await valuesOf(2)).toEqual([]);
    // The same rights as on a committed version: read only is 403, a stranger learns nothing (404); other numbers stay 404.
    const reader = await signIn();
    await grant(reader.id, group, ["read"]);
    await expectError(await attach(reader.bearer, started.version, "x"), 403);
    await expectError(await attach((await signIn()).bearer, started.version, "x"), 404);
    await expectError(await attach(owner.bearer, started.version + 1, "x"), 404);
    await expectError(await attach(owner.bearer, newId(), "x"), 404);

    // The upload commits: the values now belong to the version row, under the same number.
    const url = new URL(started.upload_url);
    await json(await call(`${url.pathname}${url.search}`, { method: "PUT", body: bytesOf(4), headers: { "content-type": "image/png" } }), 201);
    const [committed] = await rows<{ id: string }>("select id from asset_versions where asset_id = ? and version = 3", assetId);
    const after = await valuesOf(3);
    expect(after.map((v) => [v.field_data, v.asset_version, v.asset_version_id]).sort()).toEqual([
      ["Ада", 3, committed.id],
      ["Вера", 3, committed.id],
      ["Глеб", 3, committed.id],
    ]);
    expect(await rows("select id from field_values where version_id = ?", started.variant_id)).toEqual([]);

    // A reservation that is cancelled takes its values with it; the committed version's stay.
    const cancelled = await reserve();
    await json(await attach(owner.bearer, cancelled.version, "Лев"));
    expect(await json(await call(`/api/asset/drop-empty-version/${assetId}`, { method: "POST", bearer: owner.bearer, json: { version: cancelled.version } }))).toEqual({
      dropped: 1,
      versions: [cancelled.version],
    });
    expect(await rows("select id from field_values where version_id = ? or (entity_id = ? and version = ?)", cancelled.variant_id, assetId, cancelled.version)).toEqual([]);
    expect(await valuesOf(cancelled.version)).toEqual([]);
    expect(await valuesOf(3)).toHaveLength(3);
    await expectError(await attach(owner.bearer, cancelled.version, "x"), 404);

    // A write that checked the reservation just before its commit or cancel lands keyed by it: the statements that end
    // such a write's batch move it to the committed version, or drop it with the cancelled one.
    const rc = createRequestContext(env, () => undefined, `test-${crypto.randomUUID()}`);
    const late = (key: string) =>
      env.DB.prepare("insert into field_values (id, entity_id, entity_type, def_id, version_id, version, data, ctime, mtime) values (?, ?, 'asset', ?, ?, 3, '\"поздно\"', 0, 0)").bind(
        newId(),
        assetId,
        template.field_def_id,
        key,
      );
    await late(started.variant_id).run();
    await late(cancelled.variant_id).run();
    await runBatch(rc.db, settleReservationValuesStatements(rc.db, [started.variant_id, cancelled.variant_id]));
    expect(await rows("select version_id, version from field_values where entity_id = ? and data = '\"поздно\"'", assetId)).toEqual([
      { version_id: committed.id, version: 3 },
    ]);
  });

  it("copies the restored version's previews to objects of their own", async () => {
    const { owner, assetId } = await twoVersions();
    const [v1] = await rows<{ id: string }>("select id from asset_versions where asset_id = ? and version = 1", assetId);
    const previewKey = `previews/${assetId}/${newId()}`;
    await env.MEDIA.put(previewKey, new Uint8Array([1, 2, 3]), { httpMetadata: { contentType: "image/webp" } });
    await env.DB.prepare(
      "insert into previews (id, asset_id, version_id, size, mime_type, width, height, content_size, storage_key, ctime) values (?, ?, ?, 'thumb', 'image/webp', 10, 10, 3, ?, 0)",
    )
      .bind(newId(), assetId, v1.id, previewKey)
      .run();
    const made = await json<{ version_id: string }>(
      await call(`/api/asset/restore-version/${assetId}`, { method: "POST", bearer: owner.bearer, json: { version: 1 } }),
    );
    const [copy] = await rows<{ storage_key: string }>("select storage_key from previews where version_id = ?", made.version_id);
    expect(copy.storage_key).not.toBe(previewKey);
    const object = await env.MEDIA.get(copy.storage_key);
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("refuses a read-only user (403), an unknown version (404), bad ids and bodies (400), and changes nothing", async () => {
    const { group, assetId } = await twoVersions();
    const reader = await signIn();
    await grant(reader.id, group, ["read"]);
    const before = await snapshot(assetId);
    await expectError(await call(`/api/asset/restore-version/${assetId}`, { method: "POST", bearer: reader.bearer, json: { version: 1 } }), 403);
    const stranger = await signIn();
    await expectError(await call(`/api/asset/restore-version/${assetId}`, { method: "POST", bearer: stranger.bearer, json: { version: 1 } }), 404);
    const { owner } = await twoVersions();
    const other = await createAsset(owner.bearer);
    await expectError(await call(`/api/asset/restore-version/${other}`, { method: "POST", bearer: owner.bearer, json: { version: 1 } }), 404);
    await expectError(await call(`/api/asset/restore-version/${newId()}`, { method: "POST", bearer: owner.bearer, json: { version: 1 } }), 404);
    await expectError(await call("/api/asset/restore-version/nope", { method: "POST", bearer: owner.bearer, json: { version: 1 } }), 400);
    await expectError(await call(`/api/asset/restore-version/${assetId}`, { method: "POST", bearer: owner.bearer, json: { version: 0 } }), 400);
    await expectError(await call(`/api/asset/restore-version/${assetId}`, { method: "POST", bearer: owner.bearer, json: { version: "1" } }), 400);
    await expectError(await call(`/api/asset/restore-version/${assetId}`, { method: "POST", json: { version: 1 } }), 401);
    expect(await snapshot(assetId)).toEqual(before);
  });
});

describe("DELETE /api/asset/version/{id}/{version}", () => {
  it("deletes the latest version with its variants: the asset falls back to the newest left, and unshared bytes go", async () => {
    const { owner, group, assetId, v2 } = await twoVersions();
    const res = await call(`/api/asset/version/${assetId}/2`, { method: "DELETE", bearer: owner.bearer });
    expect(await json(res)).toEqual({ latest: 1 });
    expect((await versionsOf(owner.bearer, assetId)).map((v) => v.version)).toEqual([1]);
    expect(await rows("select id from variants where id = ?", v2.asset_variant_id)).toEqual([]);
    const [a] = await rows<{ latest_version: number }>("select latest_version from assets where id = ?", assetId);
    expect(a.latest_version).toBe(1);
    const [member] = await rows<{ el_size: number }>("select el_size from group_members where group_id = ? and el_id = ?", group, assetId);
    expect(member.el_size).toBe(300);
    expect(await env.MEDIA.head(v2.storage_path)).toBeNull();
    const events = await rows("select type from global_events where entity_id = ? and type = 'asset.version-deleted'", assetId);
    expect(events).toHaveLength(1);
  });

  it("keeps the bytes a restored version still references", async () => {
    const { owner, assetId, v1 } = await twoVersions();
    await json(await call(`/api/asset/restore-version/${assetId}`, { method: "POST", bearer: owner.bearer, json: { version: 1 } }));
    await json(await call(`/api/asset/version/${assetId}/1`, { method: "DELETE", bearer: owner.bearer }));
    expect((await versionsOf(owner.bearer, assetId)).map((v) => v.version)).toEqual([3, 2]);
    expect(await env.MEDIA.head(v1.storage_path)).not.toBeNull();
    const download = await call(`/api/asset/content/download/${assetId}/3/initial`, { bearer: owner.bearer });
    expect(download.status).toBe(200);
  });

  it("refuses the last remaining version with 409 in Russian", async () => {
    const { owner, assetId, v1 } = await twoVersions();
    await json(await call(`/api/asset/version/${assetId}/2`, { method: "DELETE", bearer: owner.bearer }));
    const before = await snapshot(assetId);
    const error = await expectError(await call(`/api/asset/version/${assetId}/1`, { method: "DELETE", bearer: owner.bearer }), 409);
    expect(error.message).toBe(ru.fileVersions.lastVersion);
    expect(await snapshot(assetId)).toEqual(before);
    expect(await env.MEDIA.head(v1.storage_path)).not.toBeNull();
  });

  it("refuses a user who may read but not delete (403), unknown versions (404) and bad paths (400)", async () => {
    const { owner, group, assetId } = await twoVersions();
    const editor = await signIn();
    await grant(editor.id, group, ["read", "update", "create"]);
    const before = await snapshot(assetId);
    await expectError(await call(`/api/asset/version/${assetId}/1`, { method: "DELETE", bearer: editor.bearer }), 403);
    await expectError(await call(`/api/asset/version/${assetId}/7`, { method: "DELETE", bearer: owner.bearer }), 404);
    await expectError(await call(`/api/asset/version/${newId()}/1`, { method: "DELETE", bearer: owner.bearer }), 404);
    await expectError(await call(`/api/asset/version/${assetId}/0`, { method: "DELETE", bearer: owner.bearer }), 400);
    await expectError(await call(`/api/asset/version/${assetId}/x`, { method: "DELETE", bearer: owner.bearer }), 400);
    await expectError(await call(`/api/asset/version/bad/1`, { method: "DELETE", bearer: owner.bearer }), 400);
    expect(await snapshot(assetId)).toEqual(before);
  });
});

describe("PATCH /api/asset/version/{id}/{version}", () => {
  it("sets, changes and clears a version's comment", async () => {
    const { owner, assetId } = await twoVersions();
    const path = `/api/asset/version/${assetId}/1`;
    expect(await json(await call(path, { method: "PATCH", bearer: owner.bearer, json: { desc: "  Первый монтаж  " } }))).toEqual({
      version: 1,
      desc: "Первый монтаж",
    });
    const list = await versionsOf(owner.bearer, assetId);
    expect(list.find((v) => v.version === 1)?.desc).toBe("Первый монтаж");
    expect(list.find((v) => v.version === 2)?.desc).toBeNull();
    await json(await call(path, { method: "PATCH", bearer: owner.bearer, json: { desc: "" } }));
    expect((await versionsOf(owner.bearer, assetId)).find((v) => v.version === 1)?.desc).toBeNull();
  });

  it("needs update (a read-only user gets 403), a known version (404) and a valid body (400)", async () => {
    const { owner, group, assetId } = await twoVersions();
    const reader = await signIn();
    await grant(reader.id, group, ["read"]);
    const path = `/api/asset/version/${assetId}/1`;
    await expectError(await call(path, { method: "PATCH", bearer: reader.bearer, json: { desc: "x" } }), 403);
    await expectError(await call(`/api/asset/version/${assetId}/9`, { method: "PATCH", bearer: owner.bearer, json: { desc: "x" } }), 404);
    await expectError(await call(path, { method: "PATCH", bearer: owner.bearer, json: { desc: "x".repeat(1001) } }), 400);
    await expectError(await call(path, { method: "PATCH", bearer: owner.bearer, json: { desc: 5 } }), 400);
    await expectError(await call(path, { method: "PATCH", bearer: owner.bearer, json: { desc: "x", extra: 1 } }), 400);
    expect((await versionsOf(owner.bearer, assetId)).find((v) => v.version === 1)?.desc).toBeNull();
  });
});

describe("POST /api/group/existing-names/{id}", () => {
  it("answers which names the folder holds, case-insensitively, the newest file per name", async () => {
    const owner = await signIn();
    const group = await createGroup(owner.id);
    const other = await createGroup(owner.id);
    const a = await createAsset(owner.bearer, { asset_name: "Клип.MP4", asset_mime: "video/mp4", in_group: group });
    await createAsset(owner.bearer, { asset_name: "Только там.jpg", asset_mime: "image/jpeg", in_group: other });
    const res = await call(`/api/group/existing-names/${group}`, {
      method: "POST",
      bearer: owner.bearer,
      json: { names: ["клип.mp4", "Новый.png", "Только там.jpg"] },
    });
    expect(await json(res)).toEqual({ matches: [{ name: "клип.mp4", asset_id: a, asset_name: "Клип.MP4", ver: 0 }] });

    // Trashed files do not clash.
    await json(await call(`/api/asset/delete-list`, { method: "POST", bearer: owner.bearer, json: { ids: [a] } }), 204);
    const after = await call(`/api/group/existing-names/${group}`, { method: "POST", bearer: owner.bearer, json: { names: ["Клип.MP4"] } });
    expect(await json(after)).toEqual({ matches: [] });
  });

  it("refuses a caller who cannot read the folder (404), bad ids and bodies (400)", async () => {
    const owner = await signIn();
    const group = await createGroup(owner.id);
    await createAsset(owner.bearer, { asset_name: "Секрет.txt", asset_mime: "text/plain", in_group: group });
    const stranger = await signIn();
    await expectError(await call(`/api/group/existing-names/${group}`, { method: "POST", bearer: stranger.bearer, json: { names: ["Секрет.txt"] } }), 404);
    await expectError(await call(`/api/group/existing-names/${newId()}`, { method: "POST", bearer: owner.bearer, json: { names: ["a"] } }), 404);
    await expectError(await call("/api/group/existing-names/x", { method: "POST", bearer: owner.bearer, json: { names: ["a"] } }), 400);
    await expectError(await call(`/api/group/existing-names/${group}`, { method: "POST", bearer: owner.bearer, json: { names: [] } }), 400);
    await expectError(await call(`/api/group/existing-names/${group}`, { method: "POST", bearer: owner.bearer, json: { names: Array(501).fill("a") } }), 400);
    await expectError(await call(`/api/group/existing-names/${group}`, { method: "POST", bearer: owner.bearer, json: { names: [""] } }), 400);

    // A reader sees the clash.
    const reader = await signIn();
    await grant(reader.id, group, ["read"]);
    const seen = await call(`/api/group/existing-names/${group}`, { method: "POST", bearer: reader.bearer, json: { names: ["Секрет.txt"] } });
    expect((await json<{ matches: unknown[] }>(seen)).matches).toHaveLength(1);
  });
});

describe("POST /api/uploads with versionOf", () => {
  it("queues a new version of an existing file: the item starts with that asset and says so", async () => {
    const { owner, group, assetId } = await twoVersions();
    const id = newId();
    const res = await call("/api/uploads", {
      method: "POST",
      bearer: owner.bearer,
      json: { items: [{ id, fileName: "Обложка v3.png", size: 10, groupId: group, versionOf: assetId }] },
    });
    const { items } = await json<{ items: Record<string, unknown>[] }>(res);
    expect(items[0]).toMatchObject({ id, assetId, versionOf: assetId, status: "waiting" });
    const listed = await json<{ items: Record<string, unknown>[] }>(await call("/api/uploads", { bearer: owner.bearer }));
    expect(listed.items.find((i) => i.id === id)).toMatchObject({ assetId, versionOf: assetId });

    // A plain item carries no versionOf; a bad one is refused.
    const plain = await json<{ items: Record<string, unknown>[] }>(
      await call("/api/uploads", { method: "POST", bearer: owner.bearer, json: { items: [{ id: newId(), fileName: "a.png", size: 1, groupId: group }] } }),
    );
    expect(plain.items[0]).not.toHaveProperty("versionOf");
    expect(plain.items[0].assetId).toBeNull();
    await expectError(
      await call("/api/uploads", { method: "POST", bearer: owner.bearer, json: { items: [{ id: newId(), fileName: "a.png", size: 1, versionOf: "x" }] } }),
      400,
    );
  });
});
