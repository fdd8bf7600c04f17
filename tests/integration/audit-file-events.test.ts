import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newId } from "../../workers/lib/ids";
import { maskOf } from "../../workers/services/access/access-policy";
import { purgeAssets } from "../../workers/services/library";
import { bytesOf, createAsset, uploadVersion } from "./asset-fixtures";
import { testContext } from "./catalog-fixtures";
import { call, expectError, signInAdmin } from "./factories";
import { createGroup, getJson, insertTag, ordinaryUser, send, uniqueName } from "./library-factories";

// File and folder events in the audit log: each change writes its entry in its own batch, names the file as it was
// then, and tells who, from where and through which channel. A file's history is open to whoever manages its rights.

interface Entry {
  action: string;
  actor_id: string | null;
  object_id: string | null;
  object_name: string | null;
  ip: string | null;
  details: Record<string, unknown> | null;
}

const IP = "203.0.113.7";
const SHORTLINK = /\/sl\/([A-Za-z0-9_-]{22})$/;

async function history(bearer: string, query: string): Promise<{ entries: Entry[]; total: number }> {
  const res = await call(`/api/audit?${query}`, { bearer });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { entries: (body as Entry[]).reverse(), total: Number(res.headers.get("x-total-count")) };
}

async function ok(res: Response, status = 200): Promise<void> {
  const bytes = await res.arrayBuffer();
  expect(res.status, res.status === status ? "" : new TextDecoder().decode(bytes)).toBe(status);
}

describe("file events in the audit log", () => {
  it("lists each change of a file with its actor, its name at the time, the channel and the address", async () => {
    const editor = await ordinaryUser("Редактор");
    const as = (extra: Record<string, string> = {}) => ({ bearer: editor.bearer, headers: { "cf-connecting-ip": IP, ...extra } });
    const folder = await createGroup(editor, uniqueName("Съёмка"));
    const other = await createGroup(editor, uniqueName("Архив"));
    const asset = await createAsset(editor.bearer, { in_group: folder, asset_name: "смета.pdf", asset_mime: "application/pdf" });
    await uploadVersion(editor.bearer, asset, bytesOf(3000, 1), { file_name: "смета.pdf", mime_type: "application/pdf" });
    await uploadVersion(editor.bearer, asset, bytesOf(3000, 2), { file_name: "смета.pdf", mime_type: "application/pdf" });
    await ok(await call(`/api/asset/restore-version/${asset}`, { ...as(), method: "POST", json: { version: 1 } }));
    // the web app's own call (same-origin) is the «app» channel
    await ok(await call(`/api/asset/${asset}`, { ...as({ "sec-fetch-site": "same-origin", "user-agent": "TestBrowser/1.0" }), method: "PATCH", json: { asset_name: "смета-итог.pdf" } }));
    await ok(await call(`/api/group/move-members/${folder}/${other}`, { ...as(), method: "POST", json: { ids: [asset] } }), 204);
    const tag = await insertTag(`смета-${newId().slice(-6)}`);
    await ok(await call("/api/tags/attach", { ...as(), method: "POST", json: { tag_ids: [tag], entities: [{ id: asset, type: "asset" }] } }));
    const admin = await signInAdmin();
    const field = (await (
      await call("/api/fields/template", { bearer: admin.bearer, method: "POST", json: { field_def_name: `Заказчик ${newId().slice(-6)}`, field_type: "text" } })
    ).json()) as { field_def_id: string };
    await ok(await call(`/api/fields/create/${asset}`, { ...as(), method: "POST", json: { def_id: field.field_def_id, data: "ООО Ромашка", asset_version_id: null } }));
    const linkRes = await call(`/api/sl/create/${asset}`, { ...as(), method: "POST", json: { acl: ["read", "download"] } });
    const linkText = await linkRes.text();
    expect(linkRes.status, linkText).toBe(200);
    const link = SHORTLINK.exec(linkText)![1];
    // downloads: through the API, and by an anonymous visitor of the link (a resumed range is the same download)
    await ok(await call(`/api/asset/content/download/${asset}/latest/initial`, as()));
    const shared = (await (await call(`/api/sl/info/${link}`, { headers: { "cf-connecting-ip": "198.51.100.99" } })).json()) as {
      asset: { download_url: string };
    };
    const url = new URL(shared.asset.download_url, "https://mam.test");
    await ok(await call(`${url.pathname}${url.search}`, { headers: { "cf-connecting-ip": "198.51.100.99" } }));
    expect((await call(`${url.pathname}${url.search}`, { headers: { range: "bytes=100-" } })).status).toBe(206);
    await ok(await call(`/api/asset/${asset}`, { ...as(), method: "DELETE" }), 204);
    await ok(await call(`/api/asset/restore/${asset}`, { ...as(), method: "POST" }));
    await ok(await call(`/api/asset/${asset}`, { ...as(), method: "DELETE" }), 204);

    const { entries } = await history(editor.bearer, `entity=${asset}&action=asset.*&take=100`);
    expect(entries.map((e) => e.action)).toEqual([
      "asset.upload",
      "asset.version",
      "asset.restore",
      "asset.rename",
      "asset.move",
      "asset.tags",
      "asset.fields",
      "asset.share",
      "asset.download",
      "asset.download",
      "asset.delete",
      "asset.restore",
      "asset.delete",
    ]);
    const byAction = (action: string, nth = 0) => entries.filter((e) => e.action === action)[nth];
    for (const e of entries.filter((e) => !(e.action === "asset.download" && e.details?.channel === "link"))) {
      expect(e.actor_id, e.action).toBe(editor.id);
    }
    expect(byAction("asset.upload").object_name).toBe("смета.pdf");
    expect(byAction("asset.restore")).toMatchObject({ details: { version: 1 }, ip: IP, object_name: "смета.pdf" });
    expect(byAction("asset.rename")).toMatchObject({
      object_name: "смета-итог.pdf",
      details: { from: "смета.pdf", channel: "app", ua: "TestBrowser/1.0" },
    });
    expect(byAction("asset.move").details).toMatchObject({ to: expect.stringContaining("Архив"), from: expect.stringContaining("Съёмка") });
    expect(byAction("asset.tags").details).toMatchObject({ added: [expect.stringMatching(/^смета-/)] });
    expect(byAction("asset.fields").details).toMatchObject({ field: expect.stringMatching(/^Заказчик/), value: "ООО Ромашка" });
    expect(byAction("asset.share").details).toMatchObject({ shortlink: link, acl: ["read", "download"] });
    expect(byAction("asset.download").details).toMatchObject({ channel: "api", version: 3 });
    expect(byAction("asset.download", 1)).toMatchObject({ actor_id: null, ip: "198.51.100.99", details: { channel: "link", shortlink: link } });
    expect(byAction("asset.delete")).toMatchObject({ object_name: "смета-итог.pdf", ip: IP });

    // the file's downloads, counted by the history's total
    expect((await history(editor.bearer, `entity=${asset}&action=asset.download&take=1`)).total).toBe(2);
    // the move put the file's later entries into the new folder's history
    const inFolder = await history(editor.bearer, `entity=${other}&take=100`);
    expect(inFolder.entries.some((e) => e.action === "asset.move" && e.object_id === asset)).toBe(true);
    expect(inFolder.entries.some((e) => e.action === "asset.upload")).toBe(false);
    // the administrator reads the family across the library
    const family = await history(admin.bearer, `action=asset.*&take=500`);
    expect(family.entries.some((e) => e.object_id === asset && e.action === "asset.rename")).toBe(true);
    expect(family.entries.every((e) => e.action.startsWith("asset."))).toBe(true);

    // the purge keeps the name the file had, though the row is gone
    await purgeAssets(testContext(), [asset], editor.id);
    const after = await history(admin.bearer, `entity=${asset}&action=asset.purge`);
    expect(after.entries).toEqual([expect.objectContaining({ actor_id: editor.id, object_name: "смета-итог.pdf" })]);
  });

  it("records folder events: create, rename, share by a rule, delete, restore, purge", async () => {
    const editor = await ordinaryUser("Монтажёр");
    const reader = await ordinaryUser("Зритель");
    const parent = await createGroup(editor, uniqueName("Проект"));
    const folder = await createGroup(editor, "Черновики", parent);
    await ok(await call(`/api/group/update/${folder}`, { bearer: editor.bearer, method: "PATCH", json: { group_name: "Чистовики" } }));
    await ok(await call("/api/user/acl", { bearer: editor.bearer, method: "POST", json: { subj: reader.id, obj: folder, acl: ["read"] } }), 201);
    await ok(await call(`/api/group/delete/${folder}`, { bearer: editor.bearer, method: "DELETE" }), 204);
    await ok(await call(`/api/group/restore/${folder}`, { bearer: editor.bearer, method: "POST" }));
    await ok(await call(`/api/group/purge/${folder}`, { bearer: editor.bearer, method: "DELETE" }), 202);
    const { entries } = await history(editor.bearer, `entity=${parent}&action=group.*&take=50`);
    expect(entries.filter((e) => e.object_id === folder).map((e) => [e.action, e.object_name])).toEqual([
      ["group.create", "Черновики"],
      ["group.rename", "Чистовики"],
      ["group.share", "Чистовики"],
      ["group.delete", "Чистовики"],
      ["group.restore", "Чистовики"],
      ["group.purge", "Чистовики"],
    ]);
    const own = entries.filter((e) => e.object_id === folder);
    expect(own[1].details).toMatchObject({ from: "Черновики" });
    expect(own[2].details).toMatchObject({ rule: "create", subj_id: reader.id, acl: ["read"] });
  });

  it("refuses the history to whoever does not manage the file's rights, without telling whether it exists", async () => {
    const owner = await ordinaryUser();
    const folder = await createGroup(owner, uniqueName("Закрытая"));
    const asset = await createAsset(owner.bearer, { in_group: folder, asset_name: "тайна.mp4" });
    await uploadVersion(owner.bearer, asset, bytesOf(500, 3), { file_name: "тайна.mp4", mime_type: "video/mp4" });
    const reader = await ordinaryUser();
    const stranger = await ordinaryUser();
    await env.DB.prepare("INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) VALUES (?, ?, 'user', ?, 'group', ?, ?)")
      .bind(newId(), reader.id, folder, maskOf(["read", "download", "update"]), Date.now())
      .run();
    // the reader may read and download the file, not manage it: the same 404 as for an id that does not exist
    const refused = await expectError(await call(`/api/audit?entity=${asset}`, { bearer: reader.bearer }), 404);
    const unknown = await expectError(await call(`/api/audit?entity=${newId()}`, { bearer: reader.bearer }), 404);
    expect({ ...refused, requestId: null }).toEqual({ ...unknown, requestId: null });
    await expectError(await call(`/api/audit?entity=${folder}`, { bearer: stranger.bearer }), 404);
    // and no one but an administrator reads the log without naming a file
    await expectError(await call("/api/audit?action=asset.*", { bearer: reader.bearer }), 403);
    // his own file's history he reads; it tells nothing of the other file
    const mine = await createGroup(reader, uniqueName("Моя"));
    const own = await createAsset(reader.bearer, { in_group: mine, asset_name: "моё.mp4" });
    await uploadVersion(reader.bearer, own, bytesOf(500, 4), { file_name: "моё.mp4", mime_type: "video/mp4" });
    const { entries } = await history(reader.bearer, `entity=${own}`);
    expect(entries.map((e) => e.object_id)).toEqual([own]);
    // an invalid filter is a 400 naming the field
    const bad = await expectError(await call(`/api/audit?entity=../x`, { bearer: reader.bearer }), 400);
    expect(bad.message).toContain("entity");
    // the owner's view of the refused file is whole
    expect((await getJson<Entry[]>(`/api/audit?entity=${asset}`, owner.bearer)).map((e) => e.action)).toEqual(["asset.upload"]);
    expect((await send("GET", `/api/audit?entity=${asset}`, stranger.bearer)).status).toBe(404);
  });
});
