import { env } from "cloudflare:workers";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { signed } from "./asset-fixtures";
import { call, expectError } from "./factories";
import {
  admin,
  createGroup,
  DEFAULT_STORAGE,
  getJson,
  insertAsset,
  ordinaryUser,
  ROOT_GROUP_ID,
  send,
  throughShards,
  uniqueName,
  type Caller,
} from "./library-factories";

// Issue 24 items 3–5: what was shared with a user is on their «Доступные Файлы» (roots, acl-roots, the root's
// members, the tree, breadcrumbs, search agree); `read` plays screen renditions and `download` gives originals;
// a folder link walks its sub-folders and never out of the shared tree.

interface Summary {
  group_id: string;
  group_name: string;
}
interface Member {
  el_id: string;
  el_type: "asset" | "group";
  el_info: { name: string };
}
interface TreeNode {
  element_id: string;
  group_id: string | null;
  subGroups: TreeNode[];
}

async function grant(by: Caller, subj: string, obj: string, acl: string[]) {
  const res = await send("POST", "/api/user/acl", by.bearer, { subj, obj, acl });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** «Проекты 2026» › «Фотосессии» › «Лето» of the administrator, a photo in «Фотосессии» and one in «Лето». */
async function projects() {
  const boss = await admin();
  const top = await createGroup(boss, uniqueName("Проекты 2026"));
  const shoots = await createGroup(boss, "Фотосессии", top);
  const summer = await createGroup(boss, "Лето", shoots);
  const photo = await insertAsset({
    ownerId: boss.id,
    groups: [shoots],
    name: "Портрет.jpg",
    mime: "image/jpeg",
    preview: true,
    putBytes: true,
  });
  const beach = await insertAsset({ ownerId: boss.id, groups: [summer], name: "Пляж.jpg", mime: "image/jpeg", putBytes: true });
  const other = await createGroup(boss, uniqueName("Чужое"));
  return { boss, top, shoots, summer, photo, beach, other };
}

const roots = (bearer: string, query = "") => getJson<Summary[]>(`/api/group/roots${query}`, bearer);
const aclRoots = (bearer: string, query = "") => getJson<Summary[]>(`/api/group/acl-roots${query}`, bearer);

async function rootMembers(bearer: string, query = ""): Promise<{ items: Member[]; next: string | null }> {
  const res = await call(`/api/group/members/${ROOT_GROUP_ID}${query}`, { bearer });
  const items = (await res.json()) as Member[];
  expect(res.status, JSON.stringify(items)).toBe(200);
  return { items, next: res.headers.get("x-next-cursor") };
}

describe("«Доступные Файлы» lists what was shared, wherever it is", () => {
  it("a user with read on a nested folder finds it at the root, never its hidden parent; roots, acl-roots and members agree", async () => {
    const p = await projects();
    const user = await ordinaryUser();
    expect(await roots(user.bearer)).toEqual([]);
    await grant(p.boss, user.id, p.shoots, ["read"]);

    const listed = await roots(user.bearer);
    expect(listed.map((g) => g.group_id)).toEqual([p.shoots]);
    expect(listed[0].group_name).toBe("Фотосессии");
    expect(await aclRoots(user.bearer)).toEqual(listed);
    const { items } = await rootMembers(user.bearer);
    expect(items.map((m) => [m.el_type, m.el_id])).toEqual([["group", p.shoots]]);

    // Breadcrumbs go from the root straight to the shared folder, and on down from there.
    const shoots = await getJson<{ path: Summary[] }>(`/api/group/get/${p.shoots}`, user.bearer);
    expect(shoots.path.map((x) => x.group_id)).toEqual([ROOT_GROUP_ID, p.shoots]);
    const summer = await getJson<{ path: Summary[] }>(`/api/group/get/${p.summer}`, user.bearer);
    expect(summer.path.map((x) => x.group_id)).toEqual([ROOT_GROUP_ID, p.shoots, p.summer]);
    // The hidden parent stays hidden.
    await expectError(await call(`/api/group/get/${p.top}`, { bearer: user.bearer }), 404);

    // The tree (the move dialog, the sidebar) hangs the shared folder on the root, with its sub-folders.
    const tree = await getJson<TreeNode>(`/api/group/subtree/${ROOT_GROUP_ID}`, user.bearer);
    expect(tree.subGroups.map((n) => n.element_id)).toEqual([p.shoots]);
    expect(tree.subGroups[0].group_id).toBe(ROOT_GROUP_ID);
    expect(tree.subGroups[0].subGroups.map((n) => n.element_id)).toEqual([p.summer]);

    // Search names the same path.
    const found = await getJson<{ group_id: string; path: Summary[] }[]>(`/api/group/search?q=${encodeURIComponent("Лето")}`, user.bearer);
    const hit = found.find((f) => f.group_id === p.summer);
    expect(hit?.path.map((x) => x.group_id)).toEqual([ROOT_GROUP_ID, p.shoots, p.summer]);

    // Full-text search places a file the same way: its path starts at the first folder the user reads.
    const word = `Натюрморт${Date.now()}`;
    const made = await send<{ asset_id: string }>("POST", "/api/asset/create", p.boss.bearer, {
      asset_name: `${word}.jpg`,
      asset_mime: "image/jpeg",
      in_group: p.summer,
    });
    expect(made.status).toBe(200);
    const hits = await getJson<{ hits: { id: string; group_id: string | null; path: string }[] }>(
      `/api/search/query/${encodeURIComponent(word)}`,
      user.bearer,
    );
    const fileHit = hits.hits.find((h) => h.id === made.body.asset_id);
    expect(fileHit).toMatchObject({ group_id: p.summer, path: "Фотосессии/Лето" });
    const bossHits = await getJson<{ hits: { id: string; path: string }[] }>(
      `/api/search/query/${encodeURIComponent(word)}`,
      p.boss.bearer,
    );
    expect(bossHits.hits[0].path).toMatch(/^Проекты 2026 .*\/Фотосессии\/Лето$/);

    // The administrator still sees the top-level folders (every page: the files of a group share one database, and
    // others make top-level folders too).
    const bossRoots: Summary[] = [];
    for (let skip = 0, page: Summary[] = [null!]; page.length > 0; skip += 500) {
      page = await roots(p.boss.bearer, `?take=500&skip=${skip}`);
      bossRoots.push(...page);
    }
    expect(bossRoots.map((g) => g.group_id)).toContain(p.top);
    expect(bossRoots.map((g) => g.group_id)).not.toContain(p.shoots);
  });

  it("a readable folder below a readable one is not a root; a file shared on its own is a root member", async () => {
    const p = await projects();
    const user = await ordinaryUser();
    await grant(p.boss, user.id, p.shoots, ["read"]);
    await grant(p.boss, user.id, p.summer, ["read", "download"]);
    const lone = await insertAsset({ ownerId: p.boss.id, groups: [p.other], name: "Договор.pdf", mime: "application/pdf" });
    await grant(p.boss, user.id, lone.id, ["read"]);
    // The photo is readable through «Фотосессии»: not a root file.
    await grant(p.boss, user.id, p.photo.id, ["read", "download"]);

    expect((await roots(user.bearer)).map((g) => g.group_id)).toEqual([p.shoots]);
    const { items } = await rootMembers(user.bearer);
    expect(items.map((m) => [m.el_type, m.el_id])).toEqual([
      ["group", p.shoots],
      ["asset", lone.id],
    ]);
    const files = await rootMembers(user.bearer, "?type=asset");
    expect(files.items.map((m) => m.el_id)).toEqual([lone.id]);
    // A deny on the shared folder takes it off the root.
    await grant(p.boss, user.id, p.top, ["deny"]);
    expect(await roots(user.bearer)).toEqual([]);
  });

  it("pages by 50 (skip and take, and the members cursor through folders into files)", async () => {
    const boss = await admin();
    const hidden = await createGroup(boss, uniqueName("Скрытая"));
    const user = await ordinaryUser();
    const ids: string[] = [];
    for (let i = 0; i < 53; i++) {
      const id = await createGroup(boss, `Папка ${String(i).padStart(2, "0")}`, hidden);
      await grant(boss, user.id, id, ["read"]);
      ids.push(id);
    }
    const files = [];
    for (let i = 0; i < 3; i++) {
      const a = await insertAsset({ ownerId: boss.id, groups: [hidden], name: `Файл ${i}.jpg`, mime: "image/jpeg" });
      await grant(boss, user.id, a.id, ["read"]);
      files.push(a.id);
    }
    const first = await roots(user.bearer);
    expect(first.map((g) => g.group_id)).toEqual(ids.slice(0, 50));
    expect((await roots(user.bearer, "?skip=50")).map((g) => g.group_id)).toEqual(ids.slice(50));
    expect((await aclRoots(user.bearer, "?skip=50&take=2")).map((g) => g.group_id)).toEqual(ids.slice(50, 52));

    const page1 = await rootMembers(user.bearer);
    expect(page1.items).toHaveLength(50);
    expect(page1.next).not.toBeNull();
    const page2 = await rootMembers(user.bearer, `?after=${page1.next}`);
    expect(page2.items.map((m) => m.el_id)).toEqual([...ids.slice(50), ...files]);
    expect(page2.next).toBeNull();
    // skip reaching past the folders continues into the files
    const skipped = await rootMembers(user.bearer, "?skip=52&take=3");
    expect(skipped.items.map((m) => m.el_id)).toEqual([ids[52], files[0], files[1]]);
  });
});

/** Adds a ready variant of `type` to the asset's version 1 (bytes in R2); answers its id. */
async function addVariant(assetId: string, versionId: string, ownerId: string, type: string, bytes = "screen"): Promise<string> {
  const id = newId();
  const key = `assets/${assetId}/${id}`;
  await throughShards(() =>
    env.DB.prepare(
      `INSERT INTO variants (id, asset_id, version_id, variant_type, status, name, mime_type, file_name, content_size, sha256, storage_id, storage_key, user_id, ctime)
       VALUES (?, ?, ?, ?, 'ready', ?, 'video/mp4', 'proxy.mp4', ?, ?, ?, ?, ?, ?)`,
    )
      .bind(id, assetId, versionId, type, type, bytes.length, "ef".repeat(32), DEFAULT_STORAGE, key, ownerId, Date.now())
      .run(),
  );
  await env.MEDIA.put(key, bytes);
  return id;
}

describe("read plays screen renditions, download gives originals", () => {
  async function clipFor(levels: string[]) {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Видео"));
    const clip = await insertAsset({ ownerId: boss.id, groups: [folder], name: "Ролик.mp4", preview: true, putBytes: true });
    const proxy = await addVariant(clip.id, clip.versionId!, boss.id, "proxy_lowres");
    const bare = await insertAsset({ ownerId: boss.id, groups: [folder], name: "Оригинал.mp4", putBytes: true });
    const user = await ordinaryUser();
    await grant(boss, user.id, folder, levels);
    return { boss, user, clip, proxy, master: clip.variantId!, bare };
  }

  it("read: the proxy plays and downloads, previews show, the original is a 403", async () => {
    const s = await clipFor(["read"]);
    const b = s.user.bearer;
    const play = await send<{ link: string }>("POST", `/api/asset/content/play-variant/${s.proxy}`, b, {});
    expect(play.status).toBe(200);
    const stream = await call(new URL(play.body.link).pathname + new URL(play.body.link).search);
    expect(stream.status).toBe(200);
    expect(new TextDecoder().decode(await stream.arrayBuffer())).toBe("screen");
    expect((await call(`/api/asset/content/download-variant/${s.proxy}`, { bearer: b })).status).toBe(200);
    expect((await call(`/api/asset/content/download/${s.clip.id}/1/proxy_lowres`, { bearer: b })).status).toBe(200);
    expect((await call(`/api/asset/content/preview/${s.clip.id}/1/thumb`, { bearer: b })).status).toBe(200);

    // Without a variant type the play and proxy-doc calls pick the screen rendition.
    const best = await send<{ link: string }>("POST", `/api/asset/content/play/${s.clip.id}`, b, {});
    expect(best.status).toBe(200);
    expect(best.body.link).toContain(s.proxy);
    const doc = await getJson<{ variant_id: string }>(`/api/asset/asset-proxy-doc/${s.clip.id}/latest`, b);
    expect(doc.variant_id).toBe(s.proxy);

    await expectError(await call(`/api/asset/content/play-variant/${s.master}`, { method: "POST", bearer: b, json: {} }), 403);
    await expectError(await call(`/api/asset/content/download-variant/${s.master}`, { bearer: b }), 403);
    await expectError(await call(`/api/asset/content/download/${s.clip.id}/1/master`, { bearer: b }), 403);
    await expectError(
      await call(`/api/asset/content/play/${s.clip.id}`, { method: "POST", bearer: b, json: { variant_type: "master" } }),
      403,
    );
    // A file with only its original: nothing to show at screen quality, said plainly.
    const refused = await expectError(await call(`/api/asset/content/play/${s.bare.id}`, { method: "POST", bearer: b, json: {} }), 403);
    expect(refused.message).toBe(ru.assets.screenCopyMissing);
    await expectError(await call(`/api/asset/asset-proxy-doc/${s.bare.id}/latest`, { bearer: b }), 403);
  });

  it("download: the original plays and downloads; a stranger gets 404 for either", async () => {
    const s = await clipFor(["read", "download"]);
    expect((await call(`/api/asset/content/play-variant/${s.master}`, { method: "POST", bearer: s.user.bearer, json: {} })).status).toBe(
      200,
    );
    expect((await call(`/api/asset/content/download-variant/${s.master}`, { bearer: s.user.bearer })).status).toBe(200);
    const best = await send<{ link: string }>("POST", `/api/asset/content/play/${s.bare.id}`, s.user.bearer, {});
    expect(best.status).toBe(200);
    const stranger = await ordinaryUser();
    for (const variant of [s.proxy, s.master]) {
      await expectError(
        await call(`/api/asset/content/play-variant/${variant}`, { method: "POST", bearer: stranger.bearer, json: {} }),
        404,
      );
    }
  });

  it("a signed stream link of a read-only user opens the proxy but not the original", async () => {
    const s = await clipFor(["read"]);
    // A link for the original signed for the read-only user (as if minted before the level changed) is refused.
    const forged = await signed("play", s.master, s.user.id);
    expect((await call(`/api/asset/content/stream/${s.master}?${forged}`)).status).toBe(403);
    const proxyLink = await signed("play", s.proxy, s.user.id);
    expect((await call(`/api/asset/content/stream/${s.proxy}?${proxyLink}`)).status).toBe(200);
  });
});

interface SharedPage {
  name: string;
  group?: {
    folder_id: string;
    path: { group_id: string; name: string }[];
    folders: { group_id: string; name: string }[];
    items: { asset_id: string; name: string; thumb_url: string | null; media_url: string }[];
    zip_url: string | null;
    has_more: boolean;
  };
}

async function shareLink(bearer: string, id: string, acl: string[]): Promise<string> {
  const res = await call(`/api/sl/create/${id}`, { method: "POST", bearer, json: { acl } });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return text.split("/sl/")[1];
}

async function open(link: string, folder?: string): Promise<SharedPage> {
  const res = await call(`/api/sl/info/${link}${folder ? `?folder=${folder}` : ""}`);
  const body = (await res.json()) as SharedPage;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

describe("a folder link shows the folder as a folder", () => {
  it("lists sub-folders, walks into them with breadcrumbs that start at the shared folder", async () => {
    const p = await projects();
    const link = await shareLink(p.boss.bearer, p.top, ["read"]);
    const top = await open(link);
    expect(top.group?.folders.map((f) => f.group_id)).toEqual([p.shoots]);
    expect(top.group?.items).toEqual([]);
    expect(top.group?.path.map((x) => x.group_id)).toEqual([p.top]);

    const shoots = await open(link, p.shoots);
    expect(shoots.group?.folder_id).toBe(p.shoots);
    expect(shoots.group?.path.map((x) => x.name)).toEqual([top.name, "Фотосессии"]);
    expect(shoots.group?.folders.map((f) => f.name)).toEqual(["Лето"]);
    expect(shoots.group?.items.map((i) => i.name)).toEqual(["Портрет.jpg"]);

    const summer = await open(link, p.summer);
    expect(summer.group?.path.map((x) => x.group_id)).toEqual([p.top, p.shoots, p.summer]);
    expect(summer.group?.items.map((i) => i.name)).toEqual(["Пляж.jpg"]);
    // The file in the sub-folder plays through the link.
    expect((await call(summer.group!.items[0].media_url)).status).toBe(200);
  });

  it("a link to a nested folder never shows what is above it, and a folder outside the shared tree is a 404", async () => {
    const p = await projects();
    const link = await shareLink(p.boss.bearer, p.shoots, ["read"]);
    const page = await open(link);
    expect(page.group?.path.map((x) => x.group_id)).toEqual([p.shoots]);
    for (const outside of [p.top, p.other, ROOT_GROUP_ID, "..", "x".repeat(70)]) {
      const res = await call(`/api/sl/info/${link}?folder=${encodeURIComponent(outside)}`);
      expect([400, 404], `${outside}: ${res.status}`).toContain(res.status);
      await res.body?.cancel();
    }
    const escaped = await call(`/api/sl/info/${link}?folder=${p.top}`);
    await expectError(escaped, 404);
    // The page route refuses the same way.
    const pageRes = await call(`/sl/${link}?folder=${p.other}`);
    expect(pageRes.status).toBe(404);
    await pageRes.body?.cancel();
    // A file outside the shared tree is refused even with a URL signed for it.
    const foreign = await insertAsset({ ownerId: p.boss.id, groups: [p.top], name: "Наверху.jpg", mime: "image/jpeg", putBytes: true });
    const url = page.group!.items[0].media_url.replace(p.photo.id, foreign.id);
    expect((await call(url)).status).toBe(403);
  });

  it("thumbnails only for files with a preview; no creator id in any URL; a ZIP only when the link allows originals", async () => {
    const p = await projects();
    const viewOnly = await shareLink(p.boss.bearer, p.shoots, ["read"]);
    const seen = await open(viewOnly, p.summer);
    expect(seen.group?.items[0].thumb_url).toBeNull();
    const shoots = await open(viewOnly);
    const thumb = shoots.group!.items[0].thumb_url!;
    expect((await call(thumb)).status).toBe(200);
    expect(JSON.stringify(shoots)).not.toContain(p.boss.id);
    expect(shoots.group?.zip_url).toBeNull();

    const withDownload = await shareLink(p.boss.bearer, p.shoots, ["read", "download"]);
    const page = await open(withDownload);
    expect(page.group?.zip_url).toMatch(/^\/api\/sl\/zip\//);
    expect(JSON.stringify(page)).not.toContain(p.boss.id);
    const zip = await call(page.group!.zip_url!);
    expect(zip.status).toBe(200);
    expect(zip.headers.get("content-type")).toBe("application/zip");
    const bytes = new Uint8Array(await zip.arrayBuffer());
    expect([...bytes.slice(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
    // The folder with its sub-folders, paths kept (the product's one ZIP writer), read back by fflate.
    const files = unzipSync(bytes);
    expect(Object.keys(files).sort()).toEqual(["Фотосессии/Лето/Пляж.jpg", "Фотосессии/Портрет.jpg"]);
    expect(new TextDecoder().decode(files["Фотосессии/Портрет.jpg"])).toBe("bytes");
    expect(Object.keys(files).join()).not.toContain("Проекты");
    // each file in the archive is a download of that file, through the ZIP channel, by the anonymous visitor
    const zipped = await env.DB.prepare(
      "SELECT json_extract(details, '$.name') AS name, actor_id FROM audit_log WHERE action = 'asset.download' AND json_extract(details, '$.channel') = 'zip' AND folder_id = ?",
    )
      .bind(p.shoots)
      .all<{ name: string; actor_id: string | null }>();
    expect(zipped.results.map((r) => r.name)).toContain("Портрет.jpg");
    expect(zipped.results.every((r) => r.actor_id === null)).toBe(true);
    // A ZIP URL for a folder outside the shared tree is refused even when signed for it.
    const forged = page.group!.zip_url!.replace(p.shoots, p.top);
    expect((await call(forged)).status).toBe(403);
  });

  it("a link's top folder holding only sub-folders offers «Скачать» too, with everything below it", async () => {
    const p = await projects();
    const link = await shareLink(p.boss.bearer, p.top, ["read", "download"]);
    const page = await open(link);
    expect(page.group?.items).toEqual([]);
    expect(page.group?.zip_url).toMatch(/^\/api\/sl\/zip\//);
    const zip = await call(page.group!.zip_url!);
    expect(zip.status).toBe(200);
    const names = Object.keys(unzipSync(new Uint8Array(await zip.arrayBuffer())));
    expect(names.map((n) => n.split("/").slice(1).join("/")).sort()).toEqual(["Фотосессии/Лето/Пляж.jpg", "Фотосессии/Портрет.jpg"]);
  });
});
