import { describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { WOPI_TOKEN_TTL_MS } from "../../workers/services/wopi/wopi.service";
import { createGroup, json } from "./asset-fixtures";
import { exec, rows } from "./catalog-fixtures";
import { call, createUser, DEFAULT_PASSWORD, expectError, login, signIn, signInAdmin } from "./factories";
import { admin, send } from "./library-factories";
import { fileUrl, hit, officeFile, override, putFile, wopiToken } from "./wopi-fixtures";

/**
 * WOPI tokens are bound to the credential that minted them (issue 24): a sign-in session or a robot's API token.
 * Ending it (logout, a new password, disabling the user, reuse of a refresh token, revoking the robot token) ends the
 * WOPI token at its next request; the actor rebuilt from a robot's token keeps the token's scope and administrator
 * flag; a view token may not read the lock id.
 */

const text = (s: string) => new TextEncoder().encode(s) as Uint8Array<ArrayBuffer>;
const patchUser = (id: string, bearer: string, body: unknown) => call(`/api/user/${id}`, { method: "PATCH", bearer, json: body });

/** Every WOPI call with `token` is a 401 naming the ended session, and a save attempted with it changes nothing. */
async function expectEnded(assetId: string, token: string): Promise<void> {
  const before = await rows(`select latest_version from assets where id = ?`, assetId);
  const info = await expectError(await hit(fileUrl(assetId, token)), 401);
  expect(info.message).toBe(ru.wopi.sessionEnded);
  await expectError(await hit(fileUrl(assetId, token, "/contents")), 401);
  await expectError(await putFile(assetId, token, text("после выхода")), 401);
  await expectError(await override(assetId, token, "LOCK", { "x-wopi-lock": "L" }), 401);
  expect(await rows(`select latest_version from assets where id = ?`, assetId)).toEqual(before);
}

describe("WOPI tokens end with the session that minted them", () => {
  it("live 4 hours at most", async () => {
    const f = await officeFile();
    const t = await wopiToken(f.owner.bearer, f.assetId);
    expect(WOPI_TOKEN_TTL_MS).toBe(4 * 3600_000);
    expect(t.access_token_ttl).toBeGreaterThan(Date.now() + WOPI_TOKEN_TTL_MS - 60_000);
    expect(t.access_token_ttl).toBeLessThanOrEqual(Date.now() + WOPI_TOKEN_TTL_MS);
  });

  it("logout: a token minted before GET /api/auth/logout is a 401, and the copy made with it too", async () => {
    const f = await officeFile();
    const t = await wopiToken(f.owner.bearer, f.assetId);
    expect((await hit(fileUrl(f.assetId, t.access_token))).status).toBe(200);
    const out = await call("/api/auth/logout", { bearer: f.owner.bearer, refresh: f.owner.refresh });
    expect(out.status).toBe(204);
    await expectEnded(f.assetId, t.access_token);
  });

  it("a token minted by PutRelativeFile belongs to the same session", async () => {
    const f = await officeFile();
    const t = await wopiToken(f.owner.bearer, f.assetId);
    const copy = await json<{ Url: string }>(
      await override(f.assetId, t.access_token, "PUT_RELATIVE", { "x-wopi-suggestedtarget": ".docx", "content-length": "3" }, { body: text("abc") }),
    );
    const copyId = /files\/([0-9a-f]{32})/.exec(copy.Url)![1];
    const copyToken = new URL(copy.Url).searchParams.get("access_token")!;
    expect((await hit(fileUrl(copyId, copyToken))).status).toBe(200);
    await call("/api/auth/logout", { bearer: f.owner.bearer });
    await expectEnded(copyId, copyToken);
  });

  it("a new password set by an administrator ends every token of the user", async () => {
    const boss = await signInAdmin();
    const f = await officeFile();
    const t = await wopiToken(f.owner.bearer, f.assetId);
    expect((await patchUser(f.owner.id, boss.bearer, { user_passwd: "пароль-от-администратора" })).status).toBe(200);
    await expectEnded(f.assetId, t.access_token);
  });

  it("a new password set by the user ends the tokens of his other sessions and keeps this session's", async () => {
    const f = await officeFile();
    const other = await login(f.owner.login, f.owner.password);
    const fromOther = await wopiToken(other.bearer, f.assetId);
    const fromThis = await wopiToken(f.owner.bearer, f.assetId);
    const changed = await patchUser(f.owner.id, f.owner.bearer, { user_passwd: "совсем-новый-пароль", current_passwd: DEFAULT_PASSWORD });
    expect(changed.status).toBe(200);
    await expectEnded(f.assetId, fromOther.access_token);
    expect((await hit(fileUrl(f.assetId, fromThis.access_token))).status).toBe(200);
  });

  it("disabling the user ends his tokens", async () => {
    const boss = await signInAdmin();
    const f = await officeFile();
    const t = await wopiToken(f.owner.bearer, f.assetId);
    expect((await patchUser(f.owner.id, boss.bearer, { enabled: false })).status).toBe(200);
    await expectEnded(f.assetId, t.access_token);
  });

  it("a revoked session (a refresh token presented twice) ends its tokens", async () => {
    const f = await officeFile();
    const t = await wopiToken(f.owner.bearer, f.assetId);
    expect((await call("/api/auth/refresh", { refresh: f.owner.refresh })).status).toBe(200);
    // replaying the used refresh token is reuse: the whole family is revoked
    await expectError(await call("/api/auth/refresh", { refresh: f.owner.refresh }), 401);
    await expectEnded(f.assetId, t.access_token);
  });

  it("a refreshed session keeps its tokens (refresh rotates the token, not the session)", async () => {
    const f = await officeFile();
    const t = await wopiToken(f.owner.bearer, f.assetId);
    expect((await call("/api/auth/refresh", { refresh: f.owner.refresh })).status).toBe(200);
    expect((await hit(fileUrl(f.assetId, t.access_token))).status).toBe(200);
  });
});

describe("WOPI tokens of robots", () => {
  async function robotWithToken(scope?: string[]) {
    const boss = await admin();
    const robot = await createUser({ isRobot: true, isAdmin: true });
    const res = await send("POST", `/api/user/${robot.id}/tokens`, boss.bearer, { name: "Офис", ...(scope ? { scope_groups: scope } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { token, token_id } = res.body as { token: string; token_id: string };
    return { boss, robot, token, tokenId: token_id };
  }

  it("keep the scope of the robot's token: a file moved out of the scope is out of reach (the administrator flag is not restored)", async () => {
    const f = await officeFile();
    const outside = await createGroup(f.owner.id);
    const { robot, token } = await robotWithToken([f.groupId]);
    const rule = await send("POST", "/api/user/acl", (await admin()).bearer, { subj: robot.id, obj: f.groupId, acl: ["read", "download", "update"] });
    expect(rule.status).toBe(201);
    const t = await wopiToken(token, f.assetId);
    expect(t.right).toBe("edit");
    expect((await hit(fileUrl(f.assetId, t.access_token))).status).toBe(200);
    await exec(`update group_members set group_id = ? where el_id = ? and el_type = 'asset'`, outside, f.assetId);
    // rebuilt as the robot's full administrator account it would still reach the file
    await expectError(await hit(fileUrl(f.assetId, t.access_token)), 404);
    await expectError(await putFile(f.assetId, t.access_token, text("вне области")), 404);
  });

  it("an unscoped administrator robot keeps its administrator rights", async () => {
    const f = await officeFile();
    const { token } = await robotWithToken();
    const t = await wopiToken(token, f.assetId);
    expect(t.right).toBe("edit");
    const info = await json<Record<string, unknown>>(await hit(fileUrl(f.assetId, t.access_token)));
    expect(info.UserCanWrite).toBe(true);
  });

  it("end when the robot's API token is revoked", async () => {
    const f = await officeFile();
    const { boss, robot, token, tokenId } = await robotWithToken();
    const t = await wopiToken(token, f.assetId);
    expect((await hit(fileUrl(f.assetId, t.access_token))).status).toBe(200);
    expect((await send("DELETE", `/api/user/${robot.id}/tokens/${tokenId}`, boss.bearer)).status).toBe(200);
    await expectEnded(f.assetId, t.access_token);
  });
});

describe("GET_LOCK", () => {
  it("answers the lock id to an edit token only; a view token gets 401 and no X-WOPI-Lock", async () => {
    const f = await officeFile();
    const editor = await wopiToken(f.owner.bearer, f.assetId);
    expect((await override(f.assetId, editor.access_token, "LOCK", { "x-wopi-lock": "editor-session-1" })).status).toBe(200);
    const viewer = await signIn();
    const boss = await admin();
    expect((await send("POST", "/api/user/acl", boss.bearer, { subj: viewer.id, obj: f.assetId, acl: ["read", "download"] })).status).toBe(201);
    const view = await wopiToken(viewer.bearer, f.assetId, "edit");
    expect(view.right).toBe("view");
    const refused = await override(f.assetId, view.access_token, "GET_LOCK");
    expect(refused.headers.get("x-wopi-lock")).toBeNull();
    await expectError(refused, 401);
    const mine = await override(f.assetId, editor.access_token, "GET_LOCK");
    expect(mine.status).toBe(200);
    expect(mine.headers.get("x-wopi-lock")).toBe("editor-session-1");
  });
});
