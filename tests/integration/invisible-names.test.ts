import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { encodeUtf7 } from "../../workers/services/wopi/utf7";
import { call } from "./factories";
import { admin, createGroup, insertAsset, send, uniqueName } from "./library-factories";
import { fileUrl, hit, officeFile, wopiToken } from "./wopi-fixtures";

/**
 * Names with invisible or direction-changing characters (issue 24): U+202E turns «\u202Egpj.exe» into «exe.jpg» on
 * screen, in Content-Disposition and on the disk helper's side; U+200B makes two names look alike. Every call that
 * takes a name answers 400 naming the field and the character, and nothing is created or renamed.
 */

const TABLES = [
  "groups",
  "group_members",
  "assets",
  "variants",
  "tags",
  "field_templates",
  "lists",
  "list_records",
  "users",
  "robot_tokens",
  "asset_classes",
  "taxa",
  "storages",
  "automations",
];

/** Row counts of every table a name lives in, plus every stored name: a refused call must change none of them. */
async function snapshot(): Promise<string> {
  const counts = await Promise.all(TABLES.map(async (t) => `${t}=${(await env.DB.prepare(`select count(*) as n from ${t}`).first<{ n: number }>())?.n}`));
  const names = await env.DB.prepare(`select name from groups union all select name from assets union all select name from tags order by 1`).all();
  return `${counts.join(" ")} ${JSON.stringify(names.results)}`;
}

const BAD = [
  ["U+202E", "\u202Egpj.exe"],
  ["U+200B", "Отчёт\u200B.docx"],
] as const;

async function expectRefused(res: Response, field: string, char: string): Promise<void> {
  const body = (await res.json()) as { message: string };
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(body.message).toContain(`«${field}»`);
  expect(body.message).toContain("невидимые символы");
  expect(body.message).toContain(char);
}

describe.each(BAD)("a name with %s", (char, bad) => {
  it("is refused by every JSON call that names something, and nothing changes", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName());
    const asset = await insertAsset({ ownerId: boss.id, groups: [folder] });
    const robot = await send<{ user_id: string }>("POST", "/api/user", boss.bearer, { user_name: uniqueName("Робот"), user_login: `robot-${Date.now()}`, user_passwd: "длинный-пароль-1", is_robot: true, enabled: true, is_admin: false });
    expect(robot.status, JSON.stringify(robot.body)).toBe(200);
    const list = await send<{ list_id: string }>("POST", "/api/lists/create", boss.bearer, { name: uniqueName("Список") });
    expect([200, 201]).toContain(list.status);
    const before = await snapshot();
    const calls: [string, string, string, unknown][] = [
      ["POST", "/api/group/create", "group_name", { parent: folder, group_name: bad }],
      ["PATCH", `/api/group/update/${folder}`, "group_name", { group_name: bad }],
      ["POST", "/api/asset/create", "asset_name", { asset_name: bad, asset_mime: "text/plain", in_group: folder }],
      ["POST", "/api/asset/create-list", "assets.0.asset_name", { assets: [{ asset_name: bad, asset_mime: "text/plain", in_group: folder }] }],
      ["PATCH", `/api/asset/${asset.id}`, "asset_name", { asset_name: bad }],
      ["POST", `/api/asset/create-version/${asset.id}`, "file_name", { file_name: bad, mime_type: "text/plain", size: 10 }],
      ["POST", "/api/tags/create", "tag_name", { tag_name: bad }],
      ["POST", "/api/fields/template", "field_def_name", { field_def_name: bad, field_type: "text" }],
      ["POST", "/api/lists/create", "name", { name: bad }],
      ["PUT", `/api/lists/record/${list.body.list_id}`, "rec_data.label", { rec_id: "k1", rec_data: { label: bad } }],
      ["POST", "/api/user", "user_name", { user_name: bad, user_login: `u-${Date.now()}`, user_passwd: "длинный-пароль-1", enabled: true, is_admin: false }],
      ["POST", "/api/user", "user_login", { user_name: "Мария", user_login: `u\u200B${Date.now()}`, user_passwd: "длинный-пароль-1", enabled: true, is_admin: false }],
      ["POST", `/api/user/${robot.body.user_id}/tokens`, "name", { name: bad }],
      ["POST", "/api/asset/class/create", "name", { name: bad }],
      ["POST", `/api/taxonomy/create/${"f".repeat(32)}`, "path", { path: `Спорт/${bad}` }],
      ["POST", "/api/storage/create", "name", { name: bad, setup: { url: "https://s3.example.com", bucket: "media" }, creds: { user: "u", passwd: "p" } }],
      ["POST", "/api/tasklist/udwf/workflow", "name", { name: bad }],
    ];
    for (const [method, path, field, json] of calls) {
      const res = await call(path, { method, bearer: boss.bearer, json });
      const shown = field === "user_login" ? "U+200B" : char;
      await expectRefused(res, field, shown).catch((error: Error) => {
        throw new Error(`${method} ${path}: ${error.message}`);
      });
    }
    expect(await snapshot()).toBe(before);
  });

  it("is refused by the uploads that take a name: ?name=, batch parts; nothing is stored", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName());
    const before = await snapshot();
    const direct = await call(`/api/asset/upload?in_group=${folder}&name=${encodeURIComponent(bad)}`, {
      method: "POST",
      bearer: boss.bearer,
      body: "abc",
      headers: { "content-length": "3", "content-type": "text/plain" },
    });
    await expectRefused(direct, "name", char);
    const form = new FormData();
    form.append("file", new File(["один"], "хороший.txt", { type: "text/plain" }));
    form.append("file", new File(["два"], bad, { type: "text/plain" }));
    const body = new Response(form);
    const bytes = await body.arrayBuffer();
    const batch = await call(`/api/asset/upload-batch?in_group=${folder}`, {
      method: "POST",
      bearer: boss.bearer,
      body: bytes,
      headers: { "content-type": body.headers.get("content-type")!, "content-length": String(bytes.byteLength) },
    });
    const refused = (await batch.json()) as { message: string };
    expect(batch.status, JSON.stringify(refused)).toBe(400);
    expect(refused.message).toContain("Файл 2");
    expect(refused.message).toContain(char);
    expect(await snapshot()).toBe(before);
  });

  it("is refused by WOPI PutRelativeFile and RenameFile (400 with X-WOPI-InvalidFileNameError)", async () => {
    const f = await officeFile();
    const t = await wopiToken(f.owner.bearer, f.assetId);
    const before = await snapshot();
    const relative = await hit(fileUrl(f.assetId, t.access_token), {
      method: "POST",
      body: new TextEncoder().encode("abc") as Uint8Array<ArrayBuffer>,
      headers: { "x-wopi-override": "PUT_RELATIVE", "x-wopi-relativetarget": encodeUtf7(bad) },
    });
    expect(relative.status).toBe(400);
    expect(relative.headers.get("x-wopi-invalidfilenameerror")).toBeTruthy();
    expect(((await relative.json()) as { message: string }).message).toContain(char);
    const renamed = await hit(fileUrl(f.assetId, t.access_token), {
      method: "POST",
      headers: { "x-wopi-override": "RENAME_FILE", "x-wopi-requestedname": encodeUtf7(bad.replace(/\.\w+$/, "")) },
    });
    expect(renamed.status).toBe(400);
    expect(((await renamed.json()) as { message: string }).message).toContain(char);
    expect(await snapshot()).toBe(before);
  });
});

describe("names that only look unusual", () => {
  it("keep working: emoji with joiners, Cyrillic, right-to-left script", async () => {
    const boss = await admin();
    for (const name of ["Семья 👨‍👩‍👧", "Съёмка 2026 🎬", "עברית"]) {
      const res = await send("POST", "/api/group/create", boss.bearer, { parent: "f".repeat(32), group_name: `${name} ${Date.now()}` });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });
});
