import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { WOPI_LOCK_TTL_MS } from "../../durable-objects/wopi-lock.do";
import { decodeUtf7, encodeUtf7 } from "../../workers/services/wopi/utf7";
import { bytesOf, json } from "./asset-fixtures";
import { expectError, signIn } from "./factories";
import { admin, send } from "./library-factories";
import {
  checkFileInfo,
  expectLockConflict,
  fileUrl,
  hit,
  officeFile,
  override,
  putFile,
  rawToken,
  sessionOf,
  wopiToken,
} from "./wopi-fixtures";

const text = (s: string) => new TextEncoder().encode(s) as Uint8Array<ArrayBuffer>;

async function grant(subj: string, obj: string, acl: string[]): Promise<void> {
  const boss = await admin();
  const res = await send("POST", "/api/user/acl", boss.bearer, { subj, obj, acl });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

describe("token and CheckFileInfo", () => {
  it("issues an edit token to the owner and answers the properties editors read", async () => {
    const f = await officeFile();
    const t = await wopiToken(f.owner.bearer, f.assetId);
    expect(t.right).toBe("edit");
    expect(t.access_token).not.toBe(f.owner.bearer);
    expect(t.access_token_ttl).toBeGreaterThan(Date.now() + 3 * 3600_000);
    expect(t.wopi_src).toBe(`https://mam.test/api/wopi/files/${f.assetId}`);
    expect(t.file).toMatchObject({ name: "Отчёт.docx", version: 1, size: f.bytes.length, group_id: f.groupId });
    expect(t.office_editor).toBe("none");
    const info = await checkFileInfo(f.assetId, t.access_token);
    expect(info).toMatchObject({
      BaseFileName: "Отчёт.docx",
      Size: f.bytes.length,
      Version: "1",
      OwnerId: f.owner.id,
      UserId: f.owner.id,
      UserFriendlyName: f.owner.name,
      UserCanWrite: true,
      ReadOnly: false,
      UserCanRename: true,
      UserCanNotWriteRelative: false,
      SupportsLocks: true,
      SupportsGetLock: true,
      SupportsUpdate: true,
      SupportsRename: true,
      SupportsExtendedLockLength: true,
      PostMessageOrigin: "https://mam.test",
      BreadcrumbFolderUrl: `https://mam.test/mam/${f.groupId}`,
      FileNameMaxLength: 250,
    });
    expect(typeof info.BreadcrumbFolderName).toBe("string");
    expect(typeof info.LastModifiedTime).toBe("string");
    expect(typeof info.SHA256).toBe("string");
  });

  it("gives a view token to a user with read and download only, who may not write", async () => {
    const f = await officeFile();
    const reader = await signIn();
    await grant(reader.id, f.assetId, ["read", "download"]);
    const t = await wopiToken(reader.bearer, f.assetId, "edit");
    expect(t.right).toBe("view");
    expect(await checkFileInfo(f.assetId, t.access_token)).toMatchObject({ UserCanWrite: false, ReadOnly: true, UserCanRename: false, UserId: reader.id });
    await expectError(await putFile(f.assetId, t.access_token, text("x")), 401);
    await expectError(await override(f.assetId, t.access_token, "LOCK", { "x-wopi-lock": "L" }), 401);
    // the lock id lets a client write: a viewer may not read it (issue 24)
    const getLock = await expectError(await override(f.assetId, t.access_token, "GET_LOCK"), 401);
    expect(getLock.message).toMatch(/только для просмотра/);
  });

  it("refuses tokens to users without read (404) and with read but no download (403)", async () => {
    const f = await officeFile();
    const stranger = await signIn();
    await expectError(await hit("/api/wopi/token", { method: "POST", headers: { authorization: `Bearer ${stranger.bearer}`, "content-type": "application/json" }, body: JSON.stringify({ asset_id: f.assetId }) }), 404);
    await grant(stranger.id, f.assetId, ["read"]);
    await expectError(await hit("/api/wopi/token", { method: "POST", headers: { authorization: `Bearer ${stranger.bearer}`, "content-type": "application/json" }, body: JSON.stringify({ asset_id: f.assetId }) }), 403);
    await expectError(await hit("/api/wopi/token", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ asset_id: f.assetId }) }), 401);
    await expectError(await hit("/api/wopi/token", { method: "POST", headers: { authorization: `Bearer ${f.owner.bearer}`, "content-type": "application/json" }, body: JSON.stringify({ asset_id: "nope", action: "own" }) }), 400);
  });

  it("answers 401 for missing, forged, expired, other-file tokens and the app's bearer; a stranger's token finds nothing", async () => {
    const f = await officeFile();
    const other = await officeFile({ owner: f.owner });
    const t = await wopiToken(f.owner.bearer, f.assetId);
    await expectError(await hit(`/api/wopi/files/${f.assetId}`), 401);
    await expectError(await hit(fileUrl(f.assetId, `${t.access_token.slice(0, -2)}xx`)), 401);
    await expectError(await hit(fileUrl(f.assetId, await rawToken({ userId: f.owner.id, assetId: f.assetId, sid: sessionOf(f.owner.bearer), exp: Date.now() - 1 }))), 401);
    const foreign = await expectError(await hit(fileUrl(other.assetId, t.access_token)), 401);
    expect(foreign.message).toMatch(/другого файла/);
    await expectError(await hit(fileUrl(f.assetId, f.owner.bearer)), 401);
    // the Authorization header carries the same token when the query does not
    expect((await hit(`/api/wopi/files/${f.assetId}`, { headers: { authorization: `Bearer ${t.access_token}` } })).status).toBe(200);
    // a token of a user who never had rights (signed with the right key) finds nothing
    const stranger = await signIn();
    await expectError(await hit(fileUrl(f.assetId, await rawToken({ userId: stranger.id, assetId: f.assetId, sid: sessionOf(stranger.bearer) }))), 404);
  });
});

describe("GetFile", () => {
  it("streams the current version's bytes with X-WOPI-ItemVersion, and 412 above X-WOPI-MaxExpectedSize", async () => {
    const f = await officeFile({ name: "data.bin.docx", bytes: bytesOf(70_000, 3) });
    const t = await wopiToken(f.owner.bearer, f.assetId);
    const res = await hit(fileUrl(f.assetId, t.access_token, "/contents"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-wopi-itemversion")).toBe("1");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(f.bytes);
    const small = await hit(fileUrl(f.assetId, t.access_token, "/contents"), { headers: { "x-wopi-maxexpectedsize": "1000" } });
    expect(small.status).toBe(412);
    await small.arrayBuffer();
    // the editor's fetch is the file's download through WOPI, by the token's user (written just after the answer);
    // the refused one (412) is none
    const downloads = () =>
      env.DB.prepare("SELECT actor_id, json_extract(details, '$.channel') AS channel FROM audit_log WHERE object_id = ? AND action = 'asset.download'")
        .bind(f.assetId)
        .all<{ actor_id: string; channel: string }>();
    await expect.poll(async () => (await downloads()).results, { timeout: 3000 }).toEqual([{ actor_id: f.owner.id, channel: "wopi" }]);
  });

  it("answers the plain download's bytes and Content-Length, its file read in the token check's round trip", async () => {
    const f = await officeFile({ name: "same.docx", bytes: bytesOf(150_000, 7) });
    const t = await wopiToken(f.owner.bearer, f.assetId);
    // the database detail of Server-Timing comes with the operator's key (workers/lib/server-timing.ts)
    const timing = { "x-timing-key": env.METRICS_TOKEN };
    const getFile = await hit(fileUrl(f.assetId, t.access_token, "/contents"), { headers: timing });
    const download = await hit(`/api/asset/content/download/${f.assetId}/latest/initial`, {
      headers: { authorization: `Bearer ${f.owner.bearer}`, ...timing },
    });
    expect(getFile.status).toBe(200);
    expect(download.status).toBe(200);
    expect(getFile.headers.get("content-length")).toBe(String(f.bytes.length));
    expect(getFile.headers.get("content-length")).toBe(download.headers.get("content-length"));
    const [fromGetFile, fromDownload] = await Promise.all([getFile.arrayBuffer(), download.arrayBuffer()]);
    expect(new Uint8Array(fromGetFile)).toEqual(new Uint8Array(fromDownload));
    expect(new Uint8Array(fromGetFile)).toEqual(f.bytes);
    // The session, the asset and its current variants together, then the rights: no third trip before the bytes.
    const trips = (res: Response) => Number(/desc="(\d+) round trip/.exec(res.headers.get("server-timing") ?? "")?.[1]);
    expect(trips(getFile)).toBeLessThanOrEqual(2);
    expect(trips(getFile)).toBeLessThanOrEqual(trips(download));
  });
});

describe("locks", () => {
  it("follows the protocol: lock, relock with the same id, conflicts, UnlockAndRelock, refresh, unlock", async () => {
    const f = await officeFile();
    const { access_token: tok } = await wopiToken(f.owner.bearer, f.assetId);
    const get = async () => (await override(f.assetId, tok, "GET_LOCK")).headers.get("x-wopi-lock");
    expect(await get()).toBe("");
    expect((await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "A" })).status).toBe(200);
    expect(await get()).toBe("A");
    expect((await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "A" })).status).toBe(200);
    await expectLockConflict(await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "B" }), "A");
    await expectLockConflict(await override(f.assetId, tok, "UNLOCK", { "x-wopi-lock": "B" }), "A");
    await expectLockConflict(await override(f.assetId, tok, "REFRESH_LOCK", { "x-wopi-lock": "B" }), "A");
    await expectLockConflict(await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "C", "x-wopi-oldlock": "B" }), "A");
    expect((await override(f.assetId, tok, "REFRESH_LOCK", { "x-wopi-lock": "A" })).status).toBe(200);
    expect((await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "B", "x-wopi-oldlock": "A" })).status).toBe(200);
    expect(await get()).toBe("B");
    // the app sees who holds it
    const info = await json<{ lock: { holder_id: string; holder_name: string } | null }>(await hit(`/api/wopi/lock/${f.assetId}`, { headers: { authorization: `Bearer ${f.owner.bearer}` } }));
    expect(info.lock).toMatchObject({ holder_id: f.owner.id, holder_name: f.owner.name });
    expect((await override(f.assetId, tok, "UNLOCK", { "x-wopi-lock": "B" })).status).toBe(200);
    expect(await get()).toBe("");
    await expectLockConflict(await override(f.assetId, tok, "UNLOCK", { "x-wopi-lock": "B" }), "");
    await expectLockConflict(await override(f.assetId, tok, "REFRESH_LOCK", { "x-wopi-lock": "B" }), "");
    await expectLockConflict(await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "B", "x-wopi-oldlock": "A" }), "");
  });

  it("refuses lock ids over 1,024 characters and a missing lock header (400), takes exactly 1,024", async () => {
    const f = await officeFile();
    const { access_token: tok } = await wopiToken(f.owner.bearer, f.assetId);
    await expectError(await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "x".repeat(1025) }), 400);
    await expectError(await override(f.assetId, tok, "LOCK"), 400);
    await expectError(await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "A", "x-wopi-oldlock": "y".repeat(1025) }), 400);
    expect((await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "z".repeat(1024) })).status).toBe(200);
    await expectLockConflict(await putFile(f.assetId, tok, text("x"), "q"), "z".repeat(1024));
  });

  it("answers 501 for an unknown or missing X-WOPI-Override", async () => {
    const f = await officeFile();
    const { access_token: tok } = await wopiToken(f.owner.bearer, f.assetId);
    for (const op of ["DELETE", "PUT_USER_INFO", "GET_SHARE_URL", "bogus"]) {
      const res = await override(f.assetId, tok, op);
      expect(res.status).toBe(501);
      expect(await res.json()).toMatchObject({ statusCode: 501, error: "Not Implemented" });
    }
    expect((await hit(fileUrl(f.assetId, tok), { method: "POST" })).status).toBe(501);
  });

  it("the lock object lets a lock lapse 30 minutes after it was taken or refreshed", async () => {
    const stub = env.WOPI_LOCKS.get(env.WOPI_LOCKS.idFromName(`expiry-${crypto.randomUUID()}`));
    const T0 = 1_900_000_000_000;
    const holder = { userId: "u1", name: "Анна" };
    expect(await stub.lock({ lockId: "A", holder }, T0)).toMatchObject({ ok: true });
    expect(await stub.lock({ lockId: "B", holder }, T0 + 1000)).toEqual({ ok: false, current: "A" });
    expect((await stub.get(T0 + WOPI_LOCK_TTL_MS - 1))?.lockId).toBe("A");
    expect(await stub.refresh("A", T0 + WOPI_LOCK_TTL_MS - 1)).toMatchObject({ ok: true });
    expect((await stub.get(T0 + 2 * WOPI_LOCK_TTL_MS - 2))?.lockId).toBe("A");
    expect(await stub.get(T0 + 2 * WOPI_LOCK_TTL_MS - 1)).toBeNull();
    // once lapsed, anyone may lock, and the old id no longer unlocks
    expect(await stub.unlock("A", T0 + 2 * WOPI_LOCK_TTL_MS)).toEqual({ ok: false, current: "" });
    expect(await stub.lock({ lockId: "B", holder: { userId: "u2", name: "Борис" } }, T0 + 2 * WOPI_LOCK_TTL_MS)).toMatchObject({
      ok: true,
      lock: { lockId: "B", holder: { name: "Борис" } },
    });
  });
});

describe("PutFile", () => {
  it("saves a new version under the matching lock, and refuses unlocked or mismatched saves with 409", async () => {
    const f = await officeFile();
    const { access_token: tok } = await wopiToken(f.owner.bearer, f.assetId);
    await expectLockConflict(await putFile(f.assetId, tok, text("без блокировки")), "");
    expect((await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "L1" })).status).toBe(200);
    await expectLockConflict(await putFile(f.assetId, tok, text("чужая блокировка"), "L2"), "L1");
    await expectLockConflict(await putFile(f.assetId, tok, text("без заголовка")), "L1");
    const saved = text("Новая версия документа");
    const res = await putFile(f.assetId, tok, saved, "L1");
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get("x-wopi-itemversion")).toBe("2");
    expect(await res.json()).toMatchObject({ LastModifiedTime: expect.any(String) });
    expect(await checkFileInfo(f.assetId, tok)).toMatchObject({ Version: "2", Size: saved.length });
    expect(new Uint8Array(await (await hit(fileUrl(f.assetId, tok, "/contents"))).arrayBuffer())).toEqual(saved);
    const versions = await json<{ version: number }[]>(await hit(`/api/asset/versions/${f.assetId}`, { headers: { authorization: `Bearer ${f.owner.bearer}` } }));
    expect(versions.map((v) => v.version).sort()).toEqual([1, 2]);
    await expectError(await putFile(f.assetId, tok, text("x"), "y".repeat(1025)), 400);
  });

  it("writes an empty new file without a lock, and answers 413 over the limit", async () => {
    const owner = await signIn();
    const f = await officeFile({ owner, bytes: new Uint8Array(0) as Uint8Array<ArrayBuffer> });
    const { access_token: tok } = await wopiToken(owner.bearer, f.assetId);
    expect((await putFile(f.assetId, tok, text("первое содержимое"))).status).toBe(200);
    expect((await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "L" })).status).toBe(200);
    await expectError(await putFile(f.assetId, tok, bytesOf(2048), "L", { vars: { UPLOAD_MAX_BYTES: "1024" } }), 413);
    expect(await checkFileInfo(f.assetId, tok)).toMatchObject({ Version: "2" });
  });
});

describe("PutRelativeFile and RenameFile", () => {
  it("saves a copy beside the original under a suggested name, with its own WOPISrc and token", async () => {
    const f = await officeFile();
    const { access_token: tok } = await wopiToken(f.owner.bearer, f.assetId);
    const copy = text("копия");
    const res = await override(f.assetId, tok, "PUT_RELATIVE", { "x-wopi-suggestedtarget": encodeUtf7(".txt") }, { body: copy });
    const body = await json<{ Name: string; Url: string; HostEditUrl: string }>(res);
    expect(body.Name).toBe("Отчёт.txt");
    const url = new URL(body.Url);
    const newId = url.pathname.split("/").pop()!;
    const newToken = url.searchParams.get("access_token")!;
    expect(await checkFileInfo(newId, newToken)).toMatchObject({ BaseFileName: "Отчёт.txt", Version: "1", Size: copy.length, UserCanWrite: true });
    expect(new Uint8Array(await (await hit(fileUrl(newId, newToken, "/contents"))).arrayBuffer())).toEqual(copy);
    // the same suggestion again gets a free name
    const again = await json<{ Name: string }>(await override(f.assetId, tok, "PUT_RELATIVE", { "x-wopi-suggestedtarget": encodeUtf7("Отчёт.txt") }, { body: copy }));
    expect(again.Name).toBe("Отчёт (2).txt");
    // the original is untouched
    expect(await checkFileInfo(f.assetId, tok)).toMatchObject({ Version: "1", Size: f.bytes.length });
  });

  it("refuses an existing exact name without overwrite (409 with a free name), overwrites it when asked unless locked", async () => {
    const f = await officeFile();
    const { access_token: tok } = await wopiToken(f.owner.bearer, f.assetId);
    const res = await override(f.assetId, tok, "PUT_RELATIVE", { "x-wopi-relativetarget": encodeUtf7("Отчёт.docx") }, { body: text("x") });
    expect(res.status).toBe(409);
    expect(decodeUtf7(res.headers.get("x-wopi-validrelativetarget")!)).toBe("Отчёт (2).docx");
    await res.arrayBuffer();
    expect((await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "L" })).status).toBe(200);
    await expectLockConflict(
      await override(f.assetId, tok, "PUT_RELATIVE", { "x-wopi-relativetarget": encodeUtf7("Отчёт.docx"), "x-wopi-overwriterelativetarget": "true" }, { body: text("x") }),
      "L",
    );
    expect((await override(f.assetId, tok, "UNLOCK", { "x-wopi-lock": "L" })).status).toBe(200);
    const over = await override(
      f.assetId,
      tok,
      "PUT_RELATIVE",
      { "x-wopi-relativetarget": encodeUtf7("Отчёт.docx"), "x-wopi-overwriterelativetarget": "true" },
      { body: text("перезапись") },
    );
    expect((await json<{ Name: string }>(over)).Name).toBe("Отчёт.docx");
    expect(await checkFileInfo(f.assetId, tok)).toMatchObject({ Version: "2" });
    await expectError(await override(f.assetId, tok, "PUT_RELATIVE", {}, { body: text("x") }), 400);
    await expectError(
      await override(f.assetId, tok, "PUT_RELATIVE", { "x-wopi-relativetarget": "a.txt", "x-wopi-suggestedtarget": ".txt" }, { body: text("x") }),
      400,
    );
    await expectError(await override(f.assetId, tok, "PUT_RELATIVE", { "x-wopi-relativetarget": "a/b.txt" }, { body: text("x") }), 400);
  });

  it("renames keeping the extension, refuses bad names and a foreign lock", async () => {
    const f = await officeFile();
    const { access_token: tok } = await wopiToken(f.owner.bearer, f.assetId);
    expect(await json(await override(f.assetId, tok, "RENAME_FILE", { "x-wopi-requestedname": encodeUtf7("Итоги года") }))).toEqual({ Name: "Итоги года" });
    expect(await checkFileInfo(f.assetId, tok)).toMatchObject({ BaseFileName: "Итоги года.docx" });
    const bad = await override(f.assetId, tok, "RENAME_FILE", { "x-wopi-requestedname": "a:b" });
    expect(bad.headers.get("x-wopi-invalidfilenameerror")).toBeTruthy();
    await expectError(bad, 400);
    expect((await override(f.assetId, tok, "LOCK", { "x-wopi-lock": "L" })).status).toBe(200);
    await expectLockConflict(await override(f.assetId, tok, "RENAME_FILE", { "x-wopi-requestedname": "x", "x-wopi-lock": "M" }), "L");
  });
});

describe("text data", () => {
  it("answers the text and blocks of a DOCX and of a text file; 415 for other types", async () => {
    const f = await officeFile();
    const { access_token: tok } = await wopiToken(f.owner.bearer, f.assetId, "view", "browser");
    const data = await json<{ kind: string; text: string; blocks: unknown[] }>(await hit(fileUrl(f.assetId, tok, "/text")));
    expect(data.kind).toBe("docx");
    expect(data.text).toBe("Отчёт\nПервый абзац\nВторой абзац");
    expect(data.blocks[0]).toEqual({ type: "heading", text: "Отчёт" });
    const md = await officeFile({ owner: f.owner, name: "Заметка.md", mime: "text/markdown", bytes: text("# Привет\nмир") });
    const mdTok = (await wopiToken(f.owner.bearer, md.assetId)).access_token;
    expect(await json(await hit(fileUrl(md.assetId, mdTok, "/text")))).toMatchObject({ kind: "plain", text: "# Привет\nмир", version: 1 });
    const png = await officeFile({ owner: f.owner, name: "p.png", mime: "image/png", bytes: bytesOf(100) });
    await expectError(await hit(fileUrl(png.assetId, (await wopiToken(f.owner.bearer, png.assetId)).access_token, "/text")), 415);
  });
});
