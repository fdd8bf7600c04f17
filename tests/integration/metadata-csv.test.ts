import Papa from "papaparse";
import { beforeAll, describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { MAX_CSV_BYTES } from "../../workers/services/metadata";
import { rows } from "./asset-fixtures";
import { call, expectError } from "./factories";
import { admin, createGroup, insertAsset, ordinaryUser, send, uniqueName } from "./library-factories";
import { createTemplate, createValue, ok, type Template, type Value } from "./metadata-fixtures";
import { waitForTask } from "./task-fixtures";

type Report = { rows: number; changes: number; changed_rows: number; errors: { row: number; message: string }[]; error_rows: number; encoding: string };

let boss: Awaited<ReturnType<typeof admin>>;
let reader: Awaited<ReturnType<typeof ordinaryUser>>;
let editor: Awaited<ReturnType<typeof ordinaryUser>>;
let folder: string;
let assets: string[];
let hidden: string;
let description: Template;
let keywords: Template;
let count: Template;

async function exportCsv(bearer: string, query: string): Promise<{ res: Response; text: string }> {
  const res = await call(`/api/metadata/csv?${query}`, { bearer });
  return { res, text: res.status === 200 ? new TextDecoder("utf-8", { ignoreBOM: true }).decode(await res.arrayBuffer()) : "" };
}

function postCsv(bearer: string, body: BodyInit, dryRun: boolean, headers: Record<string, string> = {}) {
  return call(`/api/metadata/csv${dryRun ? "?dry_run=1" : ""}`, { method: "POST", bearer, body, headers: { "content-type": "text/csv", ...headers } });
}

async function dryRun(bearer: string, body: BodyInit): Promise<Report> {
  const res = await postCsv(bearer, body, true);
  const json = await res.json();
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json as Report;
}

async function valuesOf(assetId: string, defId: string): Promise<unknown[]> {
  const list = await ok<Value[]>(`/api/fields/for-entity/${assetId}`, boss.bearer);
  return list.filter((v) => v.def_id === defId && !v.pts).map((v) => v.field_data);
}

/** A Windows-1251 encoding of text made of ASCII and Russian letters (what Russian Excel saves). */
function cp1251(text: string): Uint8Array<ArrayBuffer> {
  const out: number[] = [];
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) out.push(c);
    else if (c >= 0x410 && c <= 0x44f) out.push(c - 0x410 + 0xc0);
    else if (ch === "Ё") out.push(0xa8);
    else if (ch === "ё") out.push(0xb8);
    else throw new Error(`not in the test's table: ${ch}`);
  }
  return new Uint8Array(out);
}

const header = () => `asset_id,name,path,${description.field_def_name},${keywords.field_def_name},${count.field_def_name}`;

beforeAll(async () => {
  boss = await admin();
  reader = await ordinaryUser();
  editor = await ordinaryUser();
  folder = await createGroup(boss, uniqueName("Съёмка"));
  const sub = await createGroup(boss, "Вложенная", folder);
  assets = [];
  for (const [i, g] of [folder, folder, sub].entries()) assets.push((await insertAsset({ ownerId: boss.id, groups: [g], name: `кадр-${i}.jpg`, mime: "image/jpeg" })).id);
  // Someone else's file the reader may not see.
  const stranger = await ordinaryUser();
  hidden = (await insertAsset({ ownerId: stranger.id, name: "чужой.jpg", mime: "image/jpeg" })).id;
  // Fields of its own, shaped like the default «Описание» and «Ключевые слова»: other files may rename those.
  description = await createTemplate(boss.bearer, "text", { format: "multiline", max_length: 10_000 }, { field_def_name: uniqueName("Описание") });
  keywords = await createTemplate(boss.bearer, "text", { format: "line", multiple: true, max_length: 200 }, { field_def_name: uniqueName("Ключевые слова") });
  count = await createTemplate(boss.bearer, "number", { integer: true });
  await createValue(boss.bearer, assets[0], { def_id: description.field_def_id, data: 'Кадр "первый", с запятой\nи второй строкой' });
  await createValue(boss.bearer, assets[0], { def_id: keywords.field_def_id, data: "море" });
  await createValue(boss.bearer, assets[0], { def_id: keywords.field_def_id, data: "закат" });
  await createValue(boss.bearer, assets[1], { def_id: description.field_def_id, data: "=1+2" });
  // The reader may read the folder, not change it.
  const res = await send("POST", "/api/user/acl", boss.bearer, { subj: reader.id, obj: folder, acl: ["read"] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const edits = await send("POST", "/api/user/acl", boss.bearer, { subj: editor.id, obj: folder, acl: ["read", "update"] });
  expect(edits.status, JSON.stringify(edits.body)).toBe(201);
});

describe("GET /api/metadata/csv", () => {
  it("streams a folder's files with a BOM, RFC 4180 quoting and one row per file", async () => {
    const { res, text } = await exportCsv(boss.bearer, `group_id=${folder}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(text.startsWith("\uFEFFasset_id,name,path,")).toBe(true);
    const parsed = Papa.parse<Record<string, string>>(text.slice(1), { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    const byId = new Map(parsed.data.map((r) => [r.asset_id, r]));
    expect([...byId.keys()].sort()).toEqual([...assets].sort());
    expect(byId.get(assets[0])![description.field_def_name]).toBe('Кадр "первый", с запятой\nи второй строкой');
    expect(byId.get(assets[0])![keywords.field_def_name]).toBe("море; закат");
    // A formula is defused for spreadsheets.
    expect(byId.get(assets[1])![description.field_def_name]).toBe("'=1+2");
    expect(byId.get(assets[2])!.path.endsWith("/Вложенная")).toBe(true);
  });

  it("refuses no source or two sources (400), and a folder the caller cannot read like an unknown one (404)", async () => {
    expect((await expectError(await call("/api/metadata/csv", { bearer: boss.bearer }), 400)).message).toContain(ru.collectionExport.csvSourceRequired);
    await expectError(await call(`/api/metadata/csv?group_id=${folder}&q=кадр`, { bearer: boss.bearer }), 400);
    const outsider = await ordinaryUser();
    const hiddenFolder = await expectError(await call(`/api/metadata/csv?group_id=${folder}`, { bearer: outsider.bearer }), 404);
    const unknown = await expectError(await call(`/api/metadata/csv?group_id=${"a".repeat(32)}`, { bearer: outsider.bearer }), 404);
    expect(hiddenFolder.message).toBe(unknown.message);
  });
});

describe("POST /api/metadata/csv", () => {
  it("round trip: export, edit, dry run (nothing changes), apply in a task (values and events written)", async () => {
    const { text } = await exportCsv(boss.bearer, `group_id=${folder}`);
    const parsed = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true });
    const head = parsed.data[0];
    const col = head.indexOf(description.field_def_name);
    const kw = head.indexOf(keywords.field_def_name);
    const edited = parsed.data.map((r) => [...r]);
    const row1 = edited.findIndex((r) => r[0] === assets[1]);
    const row2 = edited.findIndex((r) => r[0] === assets[2]);
    edited[row1][col] = "Новое, с запятой\nи строкой";
    edited[row2][kw] = "лес; река";
    const body = Papa.unparse(edited);

    const report = await dryRun(boss.bearer, body);
    expect(report).toMatchObject({ rows: 3, changes: 2, changed_rows: 2, errors: [], error_rows: 0, encoding: "utf-8" });
    expect(await valuesOf(assets[1], description.field_def_id)).toEqual(["=1+2"]);

    const res = await postCsv(boss.bearer, body, false);
    const started = (await res.json()) as { job_id: string; report: Report };
    expect(res.status, JSON.stringify(started)).toBe(202);
    const task = await waitForTask(started.job_id, ["done"]);
    expect(task.progress).toBe(100);
    expect(await valuesOf(assets[1], description.field_def_id)).toEqual(["Новое, с запятой\nи строкой"]);
    expect(await valuesOf(assets[2], keywords.field_def_id)).toEqual(["лес", "река"]);
    // Untouched rows keep their values (the defused formula came back as it was).
    expect(await valuesOf(assets[0], description.field_def_id)).toEqual(['Кадр "первый", с запятой\nи второй строкой']);
    const events = await rows<{ entity_id: string }>("select entity_id from global_events where type = 'field.changed' and actor_id = ? and entity_id in (?, ?)", boss.id, assets[1], assets[2]);
    expect(events.length).toBeGreaterThanOrEqual(2);
    // Applying the same file again changes nothing.
    expect((await dryRun(boss.bearer, body)).changes).toBe(0);
  });

  it("reports every kind of bad row in the dry run and applies none of them", async () => {
    const body = [
      header(),
      `${assets[0]},,,Хорошо,,7`,
      `${"b".repeat(32)},,,Нет такого,,`,
      `${hidden},,,Чужой,,`,
      `не-идентификатор,,,x,,`,
      `${assets[1]},,,,,не число`,
      `${assets[0]},,,Повтор,,`,
      `${assets[2]},,,"Кавычка не закрыта,,`,
    ].join("\r\n");
    // An editor of the folder, who cannot see the stranger's file.
    const report = await dryRun(editor.bearer, body);
    const at = (row: number) => report.errors.filter((e) => e.row === row).map((e) => e.message);
    expect(report.rows, JSON.stringify(report)).toBe(7);
    expect(report.changed_rows, JSON.stringify(report)).toBe(1);
    expect(at(3)).toEqual([ru.metadataCsv.assetNotFound]);
    // Someone else's file answers exactly like a file that does not exist.
    expect(at(4)).toEqual([ru.metadataCsv.assetNotFound]);
    expect(at(5)).toEqual([ru.metadataCsv.assetNotFound]);
    expect(at(6)).toEqual([ru.metadata.invalidValue(count.field_def_name, ru.metadataCsv.numberCell)]);
    expect(at(7)).toEqual([ru.metadataCsv.repeated(2)]);
    expect(at(8)).toEqual([ru.metadataCsv.openQuote]);

    const before = await valuesOf(assets[1], description.field_def_id);
    const res = await postCsv(editor.bearer, body, false);
    const started = (await res.json()) as { job_id: string };
    await waitForTask(started.job_id, ["done"]);
    expect(await valuesOf(assets[0], count.field_def_id)).toEqual([7]);
    expect(await valuesOf(assets[1], description.field_def_id)).toEqual(before);
    expect(await valuesOf(assets[2], description.field_def_id)).toEqual([]);
    expect(await valuesOf(hidden, description.field_def_id)).toEqual([]);
  });

  it("lists unknown columns as errors of row 1 and refuses to apply such a file (400)", async () => {
    const body = `asset_id,name,Нет такого поля\r\n${assets[0]},,x\r\n`;
    const report = await dryRun(boss.bearer, body);
    expect(report.errors).toContainEqual({ row: 1, message: ru.metadataCsv.unknownColumn("Нет такого поля") });
    const refused = await expectError(await postCsv(boss.bearer, body, false), 400);
    expect(refused.message).toContain(ru.metadataCsv.unknownColumn("Нет такого поля"));
  });

  it("decodes a Windows-1251 file (Russian Excel) with semicolons", async () => {
    const body = cp1251(`asset_id;${description.field_def_name}\r\n${assets[2]};Ёлка в лесу\r\n`);
    const report = await dryRun(boss.bearer, body);
    expect(report).toMatchObject({ encoding: "windows-1251", rows: 1, changes: 1, errors: [] });
  });

  it("refuses a body over the limit with 413 naming it, a binary body and a non-CSV type", async () => {
    const big = await postCsv(boss.bearer, "x", true, { "content-length": String(MAX_CSV_BYTES + 1) });
    expect((await expectError(big, 413)).message).toBe(ru.metadataCsv.tooLarge(MAX_CSV_BYTES / 1024 / 1024));
    const streamed = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 21; i++) c.enqueue(new Uint8Array(1024 * 1024).fill(0x61));
        c.close();
      },
    });
    expect((await expectError(await postCsv(boss.bearer, streamed, true), 413)).message).toBe(ru.metadataCsv.tooLarge(MAX_CSV_BYTES / 1024 / 1024));
    expect((await expectError(await postCsv(boss.bearer, new Uint8Array([0x61, 0, 0x62]), true), 400)).message).toBe(ru.metadataCsv.binary);
    await expectError(await call("/api/metadata/csv?dry_run=1", { method: "POST", bearer: boss.bearer, json: { a: 1 } }), 415);
  });

  it("gives a reader without update a per-row error for every file and changes nothing, even when applied", async () => {
    const body = `asset_id,${description.field_def_name}\r\n${assets[0]},Читатель пишет\r\n${assets[2]},И здесь\r\n`;
    const before = await valuesOf(assets[0], description.field_def_id);
    const report = await dryRun(reader.bearer, body);
    expect(report.errors).toEqual([
      { row: 2, message: ru.metadataCsv.noUpdate },
      { row: 3, message: ru.metadataCsv.noUpdate },
    ]);
    const res = await postCsv(reader.bearer, body, false);
    const started = (await res.json()) as { job_id: string };
    expect(res.status).toBe(202);
    await waitForTask(started.job_id, ["done"]);
    expect(await valuesOf(assets[2], description.field_def_id)).toEqual([]);
    expect(await valuesOf(assets[0], description.field_def_id)).toEqual(before);
    // The reader's export holds the folder's files but nothing of the stranger's.
    const { text } = await exportCsv(reader.bearer, `group_id=${folder}`);
    expect(text).not.toContain(hidden);
    expect(text).toContain(assets[0]);
  });
});
