import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { textPdf } from "../fixtures/text-pdf";
import { uploadVersion } from "./asset-fixtures";
import { exec, indexRowsOf, indexed, insertClass, rows } from "./catalog-fixtures";
import { call, expectError } from "./factories";
import { admin, createGroup, ordinaryUser, uniqueName, type Caller } from "./library-factories";
import { endedTaskOf, uploadFile } from "./task-fixtures";

interface Hit {
  type: "asset" | "group";
  id: string;
  name: string;
  name_html: string;
  snippet: string;
  why: string[];
  path: string;
  group_id: string | null;
}
interface Facet {
  value: string;
  label: string;
  count: number;
}
interface Result {
  total: number;
  skip: number;
  take: number;
  hits: Hit[];
  facets?: Record<"type" | "tag" | "class" | "owner", Facet[]>;
}

async function get<T>(path: string, bearer: string): Promise<T> {
  const res = await call(path, { bearer });
  const body = await res.json();
  expect(res.status, `${path}: ${JSON.stringify(body)}`).toBe(200);
  return body as T;
}

async function post<T>(path: string, bearer: string, json: unknown, method = "POST"): Promise<T> {
  const res = await call(path, { method, bearer, json });
  const body = res.status === 204 ? {} : await res.json();
  expect(res.status, `${path}: ${JSON.stringify(body)}`).toBeLessThan(300);
  return body as T;
}

/** GET /api/search/query/{q} with query-string filters. */
function search(who: Caller, q: string, params: Record<string, string> = {}): Promise<Result> {
  const qs = new URLSearchParams(params).toString();
  return get<Result>(`/api/search/query/${encodeURIComponent(q)}${qs ? `?${qs}` : ""}`, who.bearer);
}

async function createAsset(who: Caller, name: string, group: string, mime = "image/jpeg"): Promise<string> {
  const { asset_id } = await post<{ asset_id: string }>("/api/asset/create", who.bearer, {
    asset_name: name,
    asset_mime: mime,
    in_group: group,
  });
  return asset_id;
}

async function tag(who: Caller, name: string, ...entities: { id: string; type: "asset" | "group" }[]): Promise<string> {
  const existing = await rows<{ id: string }>(`select id from tags where lower(name) = lower(?)`, name);
  const tagId = existing[0]?.id ?? (await post<{ tag_id: string }>("/api/tags/create", who.bearer, { tag_name: name })).tag_id;
  await post("/api/tags/attach", who.bearer, { tag_ids: [tagId], entities });
  return tagId;
}

/** What the text-extraction task writes for a document (its trigger re-indexes the asset). */
async function setText(assetId: string, text: string, version = 1) {
  await exec(
    `insert into search_content (asset_id, version, text, mtime) values (?, ?, ?, ?)
     on conflict (asset_id) do update set text = excluded.text, version = excluded.version`,
    assetId,
    version,
    text,
    Date.now(),
  );
}

async function grant(boss: Caller, subj: string, obj: string, acl: string[] = ["read"]): Promise<string> {
  const rule = await post<{ rule_id: string }>("/api/user/acl", boss.bearer, { subj, obj, acl });
  return rule.rule_id;
}

const ids = (r: Result) => r.hits.map((h) => h.id).sort();

/** A folder of the administrator with the beach corpus of the issue. */
async function beachCorpus() {
  const boss = await admin();
  const folder = await createGroup(boss, uniqueName("Море"));
  const photo = await createAsset(boss, "Фото-пляж.jpg", folder);
  await tag(boss, "пляж", { id: photo, type: "asset" });
  const doc = await createAsset(boss, "Отчёт о поездке.txt", folder, "text/plain");
  await setText(doc, "Мы сделали много фотографий на пляже.\n\nПесок был белый, вода тёплая. Вечером ужинали в порту.");
  const other = await createAsset(boss, "Горы зимой.jpg", folder);
  return { boss, folder, photo, doc, other };
}

describe("GET /api/search/query/{x}: stemming and ranking", () => {
  it("'фотографии пляжа' finds 'Фото-пляж.jpg' tagged 'пляж' and a document about photographs on the beach", async () => {
    const { boss, folder, photo, doc, other } = await beachCorpus();
    const found = await search(boss, "фотографии пляжа", { group: folder });
    expect(ids(found)).toEqual([photo, doc].sort());
    expect(found.total).toBe(2);
    expect(found.hits.map((h) => h.id)).not.toContain(other);
    const hit = found.hits.find((h) => h.id === doc)!;
    expect(hit.why).toEqual(["content"]);
    expect(hit.snippet).toContain("<mark>фотографий</mark>");
    expect(hit.snippet).toContain("<mark>пляже</mark>");
    const named = found.hits.find((h) => h.id === photo)!;
    expect(named.why).toContain("name");
    expect(named.name_html).toBe("<mark>Фото</mark>-<mark>пляж</mark>.jpg");
    expect(named.path).toMatch(/^Море /);
  });

  it("highlights and places a page the index's best matches do not make up (they were trashed)", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Маяки"));
    const word = `маяк${newId().slice(-4).replace(/\d/g, "ж")}`;
    // The word twice ranks these two first; trashed, they stay in the index, and the page is the third match.
    const best = [await createAsset(boss, `${word} ${word} один.jpg`, folder), await createAsset(boss, `${word} ${word} два.jpg`, folder)];
    const kept = await createAsset(boss, `${word} третий.jpg`, folder);
    for (const id of best) await call(`/api/asset/${id}`, { method: "DELETE", bearer: boss.bearer });
    const found = await search(boss, word, { take: "1" });
    expect(found.hits.map((h) => h.id)).toEqual([kept]);
    expect(found.hits[0].name_html).toBe(`<mark>${word}</mark> третий.jpg`);
    expect(found.hits[0].path).toMatch(/^Маяки /);
  });

  it("stems English, folds ё and case, and matches file-name parts", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Mixed"));
    const beaches = await createAsset(boss, "Beaches at Sunset.PNG", folder, "image/png");
    const tree = await createAsset(boss, "Ёлка во дворе.jpg", folder);
    expect(ids(await search(boss, "beach photographs sunsets", { group: folder }))).toEqual([]);
    expect(ids(await search(boss, "beach sunsets", { group: folder }))).toEqual([beaches]);
    expect(ids(await search(boss, "ЕЛКИ", { group: folder }))).toEqual([tree]);
    expect(ids(await search(boss, "ёлка двор", { group: folder }))).toEqual([tree]);
    expect(ids(await search(boss, "png", { group: folder }))).toEqual([beaches]);
  });

  it("ranks a name match above a metadata match above a text match", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Ранг"));
    const word = `закат${newId().slice(-4).replace(/\d/g, "ж")}`;
    const inText = await createAsset(boss, "Первый.txt", folder, "text/plain");
    await setText(inText, `Длинный текст, где где-то есть слово ${word} среди прочих слов.`);
    const inTag = await createAsset(boss, "Второй.jpg", folder);
    await tag(boss, word, { id: inTag, type: "asset" });
    const inName = await createAsset(boss, `${word} над морем.jpg`, folder);
    const found = await search(boss, word, { group: folder });
    expect(found.hits.map((h) => h.id)).toEqual([inName, inTag, inText]);
    expect(found.hits.map((h) => h.why[0])).toEqual(["name", "meta", "content"]);
  });

  it("indexes groups, field values, class names and follows renames, tag changes and trash at once", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Архив"));
    const sub = await createGroup(boss, "Интервью героев", folder);
    expect(ids(await search(boss, "интервью", { group: folder }))).toEqual([sub]);
    const asset = await createAsset(boss, "clip.mp4", folder, "video/mp4");
    const classId = await insertClass(uniqueName("Хроника"));
    await post(`/api/asset/${asset}`, boss.bearer, { asset_class: classId }, "PATCH");
    expect(ids(await search(boss, "хроники", { group: folder }))).toEqual([asset]);
    // A field value written like the field service writes it.
    const def = newId();
    await exec(`insert into field_templates (id, name, field_type, ctime, mtime) values (?, ?, 'text', 1, 1)`, def, uniqueName("Место"));
    await exec(
      `insert into field_values (id, entity_id, entity_type, def_id, data, value_text, ctime, mtime) values (?, ?, 'asset', ?, ?, ?, 1, 1)`,
      newId(),
      asset,
      def,
      JSON.stringify("Владивосток"),
      "владивосток",
    );
    expect(ids(await search(boss, "владивостоке", { group: folder }))).toEqual([asset]);
    expect(ids(await search(boss, "clip", { group: folder, [`field.${def}`]: "Владивосток" }))).toEqual([asset]);
    expect(ids(await search(boss, "clip", { group: folder, [`field.${def}`]: "Москва" }))).toEqual([]);
    // Rename: the old name is gone and the new one found in the same instant.
    await post(`/api/asset/${asset}`, boss.bearer, { asset_name: "Репортаж.mp4" }, "PATCH");
    expect(ids(await search(boss, "clip", { group: folder }))).toEqual([]);
    expect(ids(await search(boss, "репортажи", { group: folder }))).toEqual([asset]);
    // Tags: attach, rename the tag, detach.
    const tagId = await tag(boss, uniqueName("Метка"), { id: asset, type: "asset" });
    const renamed = `Праздник ${newId().slice(-6)}`;
    await post(`/api/tags/change/${tagId}`, boss.bearer, { tag_name: renamed }, "PATCH");
    expect(ids(await search(boss, "праздники", { group: folder }))).toEqual([asset]);
    await post("/api/tags/detach", boss.bearer, { tag_ids: [tagId], entities: [{ id: asset, type: "asset" }] });
    expect(ids(await search(boss, "праздники", { group: folder }))).toEqual([]);
    // Trash hides the asset, restore brings it back; a trashed folder hides what it holds.
    await call(`/api/asset/${asset}`, { method: "DELETE", bearer: boss.bearer });
    expect(ids(await search(boss, "репортаж", { group: folder }))).toEqual([]);
    await post(`/api/asset/restore/${asset}`, boss.bearer, {});
    expect(ids(await search(boss, "репортаж", { group: folder }))).toEqual([asset]);
    const inner = await createAsset(boss, "Внутренний репортаж.mp4", sub, "video/mp4");
    expect(ids(await search(boss, "репортаж", { group: folder }))).toEqual([asset, inner].sort());
    const trashed = await call(`/api/group/delete/${sub}`, { method: "DELETE", bearer: boss.bearer });
    expect(trashed.status).toBeLessThan(300);
    expect(ids(await search(boss, "репортаж", { group: folder }))).toEqual([asset]);
    expect(ids(await search(boss, "интервью", { group: folder }))).toEqual([]);
  });
});

describe("GET /api/search/query/{x}: new versions", () => {
  it("finds an asset by the file name of its new version as soon as the version is committed", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Версии"));
    const asset = await createAsset(boss, "Монтаж.mp4", folder, "video/mp4");
    const file = `исходник${newId().slice(-4).replace(/\d/g, "ц")}.mov`;
    expect(ids(await search(boss, file.slice(0, -4), { group: folder }))).toEqual([]);
    await uploadVersion(boss.bearer, asset, new Uint8Array([1, 2, 3, 4]), { file_name: file, mime_type: "video/quicktime" });
    const found = await search(boss, file.slice(0, -4), { group: folder });
    expect(ids(found)).toEqual([asset]);
    expect(found.hits[0].why).toEqual(["meta"]);
  });
});

describe("text extraction in workerd", () => {
  it("indexes the text of an uploaded PDF (tech-fields task) and answers a question from it", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("PDF"));
    const word = `lagoon${newId().slice(-6).replace(/\d/g, "q")}`;
    const bytes = textPdf([[`Expedition report ${word}.`], ["The coral reef was bright orange at dawn."]]);
    const { assetId } = await uploadFile(boss.bearer, { name: "report.pdf", mime: "application/pdf", bytes, group: folder });
    await endedTaskOf(assetId, "tech-fields", ["done"], 30_000);
    const found = await search(boss, word, { group: folder });
    expect(ids(found)).toEqual([assetId]);
    expect(found.hits[0].why).toEqual(["content"]);
    expect(found.hits[0].snippet).toContain(`<mark>${word}</mark>`);
    const answer = await post<{ found: boolean; citations: { asset_id: string; snippet: string }[] }>("/api/search/rag", boss.bearer, {
      question: "What colour was the coral reef?",
    });
    expect(answer.found).toBe(true);
    expect(answer.citations.map((c) => c.asset_id)).toContain(assetId);
  });
});

describe("GET /api/search/query/{x}: filters, facets, paging", () => {
  it("filters by type, mime family, tag, class, owner, subtree and date; facets count the visible set", async () => {
    const boss = await admin();
    const word = `ракурс${newId().slice(-4).replace(/\d/g, "ы")}`;
    const folder = await createGroup(boss, `${word} папка`);
    const sub = await createGroup(boss, uniqueName("Под"), folder);
    const img = await createAsset(boss, `${word} один.jpg`, folder);
    const vid = await createAsset(boss, `${word} два.mp4`, sub, "video/mp4");
    const className = uniqueName("Класс");
    const classId = await insertClass(className);
    await post(`/api/asset/${vid}`, boss.bearer, { asset_class: classId }, "PATCH");
    const tagName = uniqueName("Сюжет");
    await tag(boss, tagName, { id: img, type: "asset" }, { id: folder, type: "group" });

    expect(ids(await search(boss, word))).toEqual([folder, img, vid].sort());
    expect(ids(await search(boss, word, { type: "group" }))).toEqual([folder]);
    expect(ids(await search(boss, word, { type: "asset" }))).toEqual([img, vid].sort());
    expect(ids(await search(boss, word, { mime: "video" }))).toEqual([vid]);
    expect(ids(await search(boss, word, { mime: "image/jpeg" }))).toEqual([img]);
    expect(ids(await search(boss, word, { tag: tagName.toUpperCase() }))).toEqual([folder, img].sort());
    expect(ids(await search(boss, word, { class: classId }))).toEqual([vid]);
    expect(ids(await search(boss, word, { group: sub }))).toEqual([vid]);
    expect(ids(await search(boss, word, { group: folder }))).toEqual([img, vid].sort());
    expect(ids(await search(boss, word, { owner: boss.id }))).toEqual([folder, img, vid].sort());
    expect(ids(await search(boss, word, { owner: newId() }))).toEqual([]);
    expect(ids(await search(boss, word, { from: "2000-01-01", to: String(Date.now() + 60_000) }))).toEqual([folder, img, vid].sort());
    expect(ids(await search(boss, word, { from: String(Date.now() + 60_000) }))).toEqual([]);

    const faceted = await search(boss, word, { facets: "true" });
    expect(faceted.total).toBe(3);
    expect(faceted.facets!.type).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ value: "asset", count: 2 }),
        expect.objectContaining({ value: "group", count: 1 }),
      ]),
    );
    expect(faceted.facets!.tag).toEqual([expect.objectContaining({ label: tagName, count: 2 })]);
    expect(faceted.facets!.class).toEqual([{ value: classId, label: className, count: 1 }]);
    const [owner] = await rows<{ name: string }>("select name from users where id = ?", boss.id);
    expect(faceted.facets!.owner).toEqual([{ value: boss.id, label: owner.name, count: 3 }]);

    const page = await search(boss, word, { skip: "1", take: "1" });
    expect(page).toMatchObject({ total: 3, skip: 1, take: 1 });
    expect(page.hits).toHaveLength(1);
    expect((await search(boss, word, { skip: "10" })).hits).toEqual([]);
    expect((await search(boss, word)).take).toBe(50);
  });

  it.each([
    ['"', 0],
    ["*", 0],
    ["NEAR(a b)", null],
    ["-пляж", null],
    ["пляж OR", null],
    ["'; DROP TABLE assets; --", null],
    ["🏖️🌊", 0],
    ["{name}: x", null],
    ["^пляж", null],
    ["a".repeat(2000), 0],
    ["слово ".repeat(300), null],
  ])("answers FTS syntax and odd input %j with 200", async (q, total) => {
    const boss = await admin();
    const found = await search(boss, q);
    if (total !== null) expect(found.total).toBe(total);
    expect(Array.isArray(found.hits)).toBe(true);
    expect(await rows(`select count(*) as n from assets where 0`)).toEqual([{ n: 0 }]);
  });
});

describe("search access", () => {
  it("a user without rules finds nothing of the administrator's: no hit, count, facet or suggestion", async () => {
    const { folder } = await beachCorpus();
    const user = await ordinaryUser();
    const found = await search(user, "фотографии пляжа", { facets: "true" });
    expect(found).toMatchObject({ total: 0, hits: [] });
    expect(found.facets).toEqual({ type: [], tag: [], class: [], owner: [], review: [] });
    const suggested = await get<{ suggestions: unknown[] }>(`/api/search/autocomplete/${encodeURIComponent("Фото-пля")}`, user.bearer);
    expect(suggested.suggestions).toEqual([]);
    const vector = await get<{ hits: unknown[] }>(`/api/search/vector/${encodeURIComponent("фото пляж")}`, user.bearer);
    expect(vector.hits).toEqual([]);
    // Filtering by a folder he cannot read is a 404, not a probe.
    await expectError(await call(`/api/search/query/x?group=${folder}`, { bearer: user.bearer }), 404);
  });

  it("a rule on an ancestor shows the subtree at once, and its removal hides it at once", async () => {
    const { boss, folder, photo, doc } = await beachCorpus();
    const user = await ordinaryUser();
    const ruleId = await grant(boss, user.id, folder);
    expect(ids(await search(user, "фотографии пляжа"))).toEqual([photo, doc].sort());
    const answer = await post<{ found: boolean }>("/api/search/rag", user.bearer, { question: "Какой песок на пляже?" });
    expect(answer.found).toBe(true);
    await call(`/api/user/acl/${ruleId}`, { method: "DELETE", bearer: boss.bearer });
    expect((await search(user, "фотографии пляжа")).total).toBe(0);
    const refused = await post<{ found: boolean; answer: string }>("/api/search/rag", user.bearer, { question: "Какой песок на пляже?" });
    expect(refused).toMatchObject({ found: false, answer: ru.search.refusal });
  });

  it("a user without rules gets no snippet or RAG passage of the administrator's documents", async () => {
    await beachCorpus();
    const user = await ordinaryUser();
    const found = await search(user, "песок белый", { facets: "true" });
    expect(found).toMatchObject({ total: 0, hits: [] });
    const answer = await post<{ found: boolean; answer: string; citations: unknown[] }>("/api/search/rag", user.bearer, {
      question: "Какой песок на пляже?",
    });
    expect(answer).toEqual({ found: false, mode: "none", answer: ru.search.refusal, citations: [] });
  });

  it("a move out of the readable folder hides an asset at once; a rule on the asset itself shows it at once", async () => {
    const boss = await admin();
    const word = `прибой${newId().slice(-4).replace(/\d/g, "ю")}`;
    const open = await createGroup(boss, uniqueName("Открыто"));
    const closed = await createGroup(boss, uniqueName("Закрыто"));
    const asset = await createAsset(boss, `${word}.jpg`, open);
    const user = await ordinaryUser();
    await grant(boss, user.id, open);
    expect(ids(await search(user, word))).toEqual([asset]);
    const moved = await call(`/api/group/move-member/${asset}/${open}/${closed}`, { method: "POST", bearer: boss.bearer });
    expect(moved.status).toBe(204);
    expect(await search(user, word, { facets: "true" })).toMatchObject({ total: 0, hits: [], facets: { type: [], tag: [], class: [], owner: [] } });
    const ruleId = await grant(boss, user.id, asset);
    const again = await search(user, word);
    expect(ids(again)).toEqual([asset]);
    // The folder the asset lies in now is hidden from the user: neither named nor linked (issue 24)…
    expect(again.hits[0]).toMatchObject({ group_id: null, path: "" });
    // …while the administrator sees where it is.
    const asBoss = await search(boss, word);
    expect(asBoss.hits.find((h) => h.id === asset)?.group_id).toBe(closed);
    await call(`/api/user/acl/${ruleId}`, { method: "DELETE", bearer: boss.bearer });
    expect((await search(user, word)).total).toBe(0);
  });

  it("a deny rule hides an asset; a chrooted user sees only his subtree; a scoped robot only its scope", async () => {
    const boss = await admin();
    const word = `кадр${newId().slice(-4).replace(/\d/g, "щ")}`;
    const left = await createGroup(boss, uniqueName("Лево"));
    const right = await createGroup(boss, uniqueName("Право"));
    const a = await createAsset(boss, `${word} слева.jpg`, left);
    const b = await createAsset(boss, `${word} справа.jpg`, right);
    const hidden = await createAsset(boss, `${word} тайна.jpg`, right);
    const user = await ordinaryUser();
    await grant(boss, user.id, left);
    await grant(boss, user.id, right);
    await grant(boss, user.id, hidden, ["deny"]);
    expect(ids(await search(user, word))).toEqual([a, b].sort());
    // The chroot is read per request: the next call sees it.
    await exec(`update users set chroot_groups = ? where id = ?`, JSON.stringify([left]), user.id);
    expect(ids(await search(user, word))).toEqual([a]);

    const robotId = newId();
    await exec(
      `insert into users (id, login, name, is_robot, ctime, mtime) values (?, ?, 'Робот', 1, 1, 1)`,
      robotId,
      `robot-${robotId.slice(-8)}`,
    );
    await grant(boss, robotId, left);
    await grant(boss, robotId, right);
    const tokenRes = await call(`/api/user/${robotId}/tokens`, {
      method: "POST",
      bearer: boss.bearer,
      json: { name: "поиск", scope_groups: [right] },
    });
    const { token } = (await tokenRes.json()) as { token: string };
    const robot = { id: robotId, bearer: token };
    expect(ids(await search(robot, word))).toEqual([b, hidden].sort());
    expect(ids(await search(robot, word, { group: right }))).toEqual([b, hidden].sort());
  });

  it("the index's visibility tokens cannot be searched for: a folder's id, an owner's id or 'unfiled' find nothing by them", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Токены"));
    const asset = await createAsset(boss, `маяк ${newId().slice(-6)}.jpg`, folder);
    const user = await ordinaryUser();
    await grant(boss, user.id, folder);
    await indexed();
    const [row] = await indexRowsOf([asset]);
    // the tokens are there (the folder reaches the file) …
    expect(row.acl.split(" ")).toEqual(expect.arrayContaining([`o${boss.id}`, `a${folder}`, `a${asset}`]));
    // … and no words anyone can type reach them, for the reader or the administrator
    for (const who of [user, boss]) {
      for (const text of [`a${folder}`, `o${boss.id}`, `a${asset}`, "unfiled", folder]) expect(ids(await search(who, text))).not.toContain(asset);
    }
  });

  it("answers 401 without a token", async () => {
    await expectError(await call("/api/search/query/пляж"), 401);
    await expectError(await call("/api/search/autocomplete/пля"), 401);
    await expectError(await call("/api/search/vector/пляж"), 401);
    await expectError(await call("/api/search/rag", { method: "POST", json: { question: "пляж?" } }), 401);
  });
});

describe("search bad input", () => {
  it("names unknown filters (400) and refuses bad paging and values", async () => {
    const boss = await admin();
    const unknown = await expectError(await call("/api/search/query/пляж?colour=red&tag=x", { bearer: boss.bearer }), 400);
    expect(unknown.message).toContain(ru.search.unknownFilter("colour"));
    for (const qs of [
      "skip=-1",
      "take=0",
      "take=100000",
      "skip=99999999999",
      "take=abc",
      "type=user",
      "group=xyz",
      "from=yesterday",
      "field.zz=1",
    ]) {
      await expectError(await call(`/api/search/query/пляж?${qs}`, { bearer: boss.bearer }), 400);
    }
    const long = await expectError(await call(`/api/search/query/${"я".repeat(10_000)}`, { bearer: boss.bearer }), 400);
    expect(long.message).toContain(ru.search.queryTooLong(2000));
    await expectError(await call(`/api/search/vector/пляж?bogus=1`, { bearer: boss.bearer }), 400);
    await expectError(await call(`/api/search/autocomplete/${"я".repeat(10_000)}`, { bearer: boss.bearer }), 400);
  });

  it("refuses a RAG body without a question, an empty one, a 100,000-character one and non-JSON", async () => {
    const boss = await admin();
    const missing = await expectError(await call("/api/search/rag", { method: "POST", bearer: boss.bearer, json: {} }), 400);
    expect(missing.message).toContain(ru.search.questionRequired);
    await expectError(await call("/api/search/rag", { method: "POST", bearer: boss.bearer, json: { question: "   " } }), 400);
    await expectError(await call("/api/search/rag", { method: "POST", bearer: boss.bearer, json: { question: 42 } }), 400);
    const huge = await expectError(
      await call("/api/search/rag", { method: "POST", bearer: boss.bearer, json: { question: "в".repeat(100_000) } }),
      400,
    );
    expect(huge.message).toContain(ru.search.questionTooLong(2000));
    await expectError(
      await call("/api/search/rag", {
        method: "POST",
        bearer: boss.bearer,
        body: "{oops",
        headers: { "content-type": "application/json" },
      }),
      400,
    );
  });
});

describe("GET /api/search/autocomplete/{x} and /vector/{x}", () => {
  it("suggests names, tags and field values for a prefix, at most 10", async () => {
    const boss = await admin();
    const stem = `лагун${newId().slice(-4).replace(/\d/g, "ъ")}`;
    const folder = await createGroup(boss, uniqueName("Лагуна"));
    const first = await createAsset(boss, `${stem}а утром.jpg`, folder);
    await tag(boss, `${stem}ы мира`, { id: first, type: "asset" });
    for (let i = 0; i < 12; i++) await createAsset(boss, `${stem} кадр ${i}.jpg`, folder);
    const { suggestions } = await get<{ suggestions: { text: string; kind: string; id?: string }[] }>(
      `/api/search/autocomplete/${encodeURIComponent(stem.slice(0, -1))}`,
      boss.bearer,
    );
    expect(suggestions.length).toBeLessThanOrEqual(10);
    expect(suggestions.length).toBeGreaterThan(0);
    expect(suggestions.every((s) => s.text.toLowerCase().includes(stem.slice(0, -1)))).toBe(true);
    const two = await get<{ suggestions: { text: string; kind: string; id?: string }[] }>(
      `/api/search/autocomplete/${encodeURIComponent(`${stem}а утр`)}`,
      boss.bearer,
    );
    expect(two.suggestions[0]).toMatchObject({ text: `${stem}а утром.jpg`, kind: "name", id: first });
    const tags = await get<{ suggestions: { text: string; kind: string }[] }>(
      `/api/search/autocomplete/${encodeURIComponent(`${stem}ы ми`)}`,
      boss.bearer,
    );
    expect(tags.suggestions).toContainEqual({ text: `${stem}ы мира`, kind: "tag" });
    expect(
      (await get<{ suggestions: unknown[] }>(`/api/search/autocomplete/${encodeURIComponent("🙂 *")}`, boss.bearer)).suggestions,
    ).toEqual([]);
  });

  it("ranks by the offline embedding: near word forms score above unrelated ones, access-filtered", async () => {
    const { boss, folder, photo, other } = await beachCorpus();
    const found = await get<{ engine: string; hits: (Hit & { score: number })[] }>(
      `/api/search/vector/${encodeURIComponent("фотка с пляжа")}?group=${folder}`,
      boss.bearer,
    );
    expect(found.engine).toBe("offline");
    expect(found.hits[0].id).toBe(photo);
    expect(found.hits.map((h) => h.id)).not.toContain(other);
    expect(found.hits[0].score).toBeGreaterThan(0);
  });
});

describe("POST /api/search/rag", () => {
  it("answers extractively from a readable document with numbered citations", async () => {
    const { boss, doc } = await beachCorpus();
    const answer = await post<{
      found: boolean;
      mode: string;
      answer: string;
      citations: { n: number; asset_id: string; version: number; snippet: string }[];
    }>("/api/search/rag", boss.bearer, { question: "Какой был песок на пляже?" });
    expect(answer.found).toBe(true);
    expect(answer.mode).toBe("extractive");
    expect(answer.citations[0]).toMatchObject({ n: 1, version: 1 });
    // Earlier tests of this file made the same corpus: every citation is one of those documents.
    const cited = await rows<{ text: string }>(
      `select text from search_content where asset_id in (select value from json_each(?))`,
      JSON.stringify(answer.citations.map((c) => c.asset_id)),
    );
    expect(cited.length).toBe(new Set(answer.citations.map((c) => c.asset_id)).size);
    expect(cited.every((c) => c.text.includes("Песок был белый"))).toBe(true);
    expect(doc).toMatch(/^[0-9a-f]{32}$/);
    expect(answer.answer).toContain("Песок был белый, вода тёплая.");
    expect(answer.answer.startsWith("«")).toBe(true);
    expect(answer.answer).toMatch(/\[1\]/);
    expect(answer.citations[0].snippet).toContain("<mark>Песок</mark>");
  });

  it("refuses when nothing relevant is visible", async () => {
    const boss = await admin();
    const answer = await post<{ found: boolean; mode: string; answer: string; citations: unknown[] }>("/api/search/rag", boss.bearer, {
      question: "Какова масса нейтронной звезды в квазаре?",
    });
    expect(answer).toEqual({ found: false, mode: "none", answer: ru.search.refusal, citations: [] });
    const emoji = await post<{ found: boolean }>("/api/search/rag", boss.bearer, { question: "🙂🙂" });
    expect(emoji.found).toBe(false);
  });

  it("a purged asset leaves the index", async () => {
    const { doc } = await beachCorpus();
    await exec(`delete from assets where id = ?`, doc);
    expect(await rows(`select count(*) as n from search_docs where entity_id = ?`, doc)).toEqual([{ n: 0 }]);
    expect(await rows(`select count(*) as n from search_content where asset_id = ?`, doc)).toEqual([{ n: 0 }]);
  });
});
