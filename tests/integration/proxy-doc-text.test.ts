import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { exec, insertAsset } from "./catalog-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";

/**
 * `GET /api/asset/asset-proxy-doc/{id}/{version}?as=text` (issue 26): a document's text rendition — the extractor's
 * text of that version as UTF-8 plain text named after the file; a screen rendition, so `read` suffices.
 */

async function grant(subj: string, obj: string, acl: string[]) {
  const admin = await signInAdmin();
  const res = await call("/api/user/acl", { method: "POST", bearer: admin.bearer, json: { subj, obj, acl } });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function documentWithText(text: string | null, versions = 1) {
  const owner = await signIn();
  const asset = await insertAsset({ ownerId: owner.id, versions, name: "Отчёт за квартал.pdf" });
  await exec(`update assets set mime = 'application/pdf' where id = ?`, asset.id);
  if (text !== null)
    await exec(`insert into search_content (asset_id, version, text, mtime) values (?, ?, ?, ?)`, asset.id, versions, text, Date.now());
  return { owner, asset };
}

describe("GET /api/asset/asset-proxy-doc/{id}/{version}?as=text", () => {
  it("answers the extracted text as UTF-8 plain text named after the file, to a reader too", async () => {
    const { owner, asset } = await documentWithText("Выручка выросла на 12 %.\nРасходы прежние.");
    const reader = await signIn();
    await grant(reader.id, asset.id, ["read"]);
    for (const [bearer, version] of [
      [owner.bearer, "1"],
      [reader.bearer, "latest"],
    ]) {
      const res = await call(`/api/asset/asset-proxy-doc/${asset.id}/${version}?as=text`, { bearer });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(res.headers.get("content-disposition")).toContain(`filename*=UTF-8''${encodeURIComponent("Отчёт за квартал.txt")}`);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await res.text()).toBe("Выручка выросла на 12 %.\nРасходы прежние.");
    }
  });

  it("answers 404 without extracted text, for another version's text, for unknown versions and for strangers", async () => {
    const none = await documentWithText(null);
    expect(
      (await expectError(await call(`/api/asset/asset-proxy-doc/${none.asset.id}/1?as=text`, { bearer: none.owner.bearer }), 404)).message,
    ).toBe(ru.assets.noTextRendition);
    const two = await documentWithText("вторая версия", 2);
    expect(
      (await expectError(await call(`/api/asset/asset-proxy-doc/${two.asset.id}/1?as=text`, { bearer: two.owner.bearer }), 404)).message,
    ).toBe(ru.assets.noTextRendition);
    expect(
      (await expectError(await call(`/api/asset/asset-proxy-doc/${two.asset.id}/3?as=text`, { bearer: two.owner.bearer }), 404)).message,
    ).toBe(ru.assets.versionNotFound);
    const stranger = await signIn();
    await expectError(await call(`/api/asset/asset-proxy-doc/${two.asset.id}/2?as=text`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/asset/asset-proxy-doc/${two.asset.id}/2?as=pdf`, { bearer: two.owner.bearer }), 400);
  });
});
