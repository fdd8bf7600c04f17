import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { decode as decodePng } from "@jsquash/png/decode";
import { rows } from "./asset-fixtures";
import { call, signIn } from "./factories";
import { createGroup, uniqueName } from "./library-factories";
import { endedTaskOf, getJson, postJson, previewTask, uploadFile, waitForTask } from "./task-fixtures";
import { imageInfo } from "../../workers/services/media/image-info";
import { DOCX_MIME, makeDocx, makeZip } from "../fixtures/office-docs";
import { cyrillicPdf, flateBombPdf, flateTextPdf } from "../fixtures/text-pdf";
import { documentCard } from "../../workers/services/media/document-card";
import { extractSearchText } from "../../workers/services/media/extract/extract";
import { fixture } from "./processing-fixtures";
import { ru } from "../../shared/i18n/ru";

const LAUGHS =
  '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "ха"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><w:document><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>';

/** Text-card previews (decision 029): documents uploaded through the API get a thumb and a medium PNG made in workerd. */

interface PreviewRow {
  size: string;
  width: number;
  height: number;
  mime_type: string;
  storage_key: string;
}
const previewsOf = (assetId: string) =>
  rows<PreviewRow>("select size, width, height, mime_type, storage_key from previews where asset_id = ? order by size", assetId);

async function stageOf(variantId: string) {
  const [row] = await rows<{ t: string }>("select tech_fields as t from variants where id = ?", variantId);
  return JSON.parse(row.t ?? "{}").processing?.preview;
}

async function pixelsOf(key: string) {
  const bytes = await (await env.MEDIA.get(key))!.arrayBuffer();
  return decodePng(bytes);
}

const text = (s: string) => new TextEncoder().encode(s) as Uint8Array<ArrayBuffer>;

describe("text-card previews (in the Worker)", () => {
  it("a DOCX, a TXT and a CSV get PNG previews of the SPEC sizes; different documents give different pixels", async () => {
    const user = await signIn();
    const docx = await uploadFile(user.bearer, {
      name: "Отчёт.docx",
      mime: DOCX_MIME,
      bytes: makeDocx("Квартальный отчёт", ["Выручка выросла на 12 %.", "Расходы остались прежними."]),
    });
    const txt = await uploadFile(user.bearer, { name: "заметка.txt", mime: "text/plain", bytes: text("Список покупок\nхлеб\nмолоко\nсыр") });
    const csv = await uploadFile(user.bearer, { name: "цены.csv", mime: "text/csv", bytes: text("Товар;Цена\nЯблоки;120\nГруши;150\n") });

    const keys: Record<string, string> = {};
    for (const [name, a] of Object.entries({ docx, txt, csv })) {
      await previewTask(a.assetId);
      const previews = await previewsOf(a.assetId);
      expect(previews.map((p) => [p.size, p.width, p.height, p.mime_type])).toEqual([
        ["medium", 960, 1280, "image/png"],
        ["thumb", 240, 320, "image/png"],
      ]);
      for (const p of previews) {
        const bytes = new Uint8Array(await (await env.MEDIA.get(p.storage_key))!.arrayBuffer());
        expect(imageInfo(bytes)).toEqual({ mime: "image/png", width: p.width, height: p.height });
        // A mostly-white page of text compresses well: cards stay small in every grid.
        expect(bytes.length).toBeLessThan(p.size === "thumb" ? 40_000 : 300_000);
      }
      keys[name] = previews.find((p) => p.size === "thumb")!.storage_key;
      expect(await stageOf(a.variantId)).toEqual({ state: "done" });
      // No proxy_lowres variant: a card is not a proxy of the document.
      expect(await rows("select id from variants where asset_id = ? and variant_type = 'proxy_lowres'", a.assetId)).toEqual([]);
    }

    const [d, t, c] = await Promise.all([pixelsOf(keys.docx), pixelsOf(keys.txt), pixelsOf(keys.csv)]);
    const differing = (a: ImageData, b: ImageData) => a.data.reduce((n, v, i) => n + (v !== b.data[i] ? 1 : 0), 0);
    expect(differing(d, t)).toBeGreaterThan(1000);
    expect(differing(t, c)).toBeGreaterThan(1000);
    // Dark text on a light page: most pixels are light, and some are dark.
    const luma = (p: ImageData, i: number) => (p.data[i] + p.data[i + 1] + p.data[i + 2]) / 3;
    let light = 0;
    let dark = 0;
    for (let i = 0; i < d.data.length; i += 4) luma(d, i) > 200 ? light++ : luma(d, i) < 90 && dark++;
    expect(light / (d.width * d.height)).toBeGreaterThan(0.7);
    expect(dark).toBeGreaterThan(200);

    // The grid's listing and the preview endpoint serve it.
    const res = await call(`/api/asset/content/preview/${docx.assetId}/1/thumb`, { bearer: user.bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    await res.arrayBuffer();
  });

  it("the same DOCX template with another heading gives another card", async () => {
    const user = await signIn();
    const a = await uploadFile(user.bearer, { name: "a.docx", mime: DOCX_MIME, bytes: makeDocx("Первый", ["Текст"]) });
    const b = await uploadFile(user.bearer, { name: "b.docx", mime: DOCX_MIME, bytes: makeDocx("Второй", ["Текст"]) });
    await previewTask(a.assetId);
    await previewTask(b.assetId);
    const [pa, pb] = await Promise.all([a, b].map(async (x) => pixelsOf((await previewsOf(x.assetId)).find((p) => p.size === "thumb")!.storage_key)));
    expect(pa.data.some((v, i) => v !== pb.data[i])).toBe(true);
  });

  it("never replaces a first page a browser drew (heal on view) with a card", async () => {
    const user = await signIn();
    const txt = await uploadFile(user.bearer, { name: "план.txt", mime: "text/plain", bytes: text("План на неделю\nсмонтировать клип") });
    await previewTask(txt.assetId);
    await rows("update previews set maker = 'page' where asset_id = ?", txt.assetId);
    const before = await rows<{ id: string }>("select id from previews where asset_id = ? order by id", txt.assetId);
    expect(before).toHaveLength(2);
    const queued = await postJson<{ job_id: string }>(`/api/tasklist/enqueue-task/00000000000000000000000000000701`, user.bearer, {
      entities: [{ id: txt.assetId, type: "asset" }],
    });
    expect((await waitForTask(queued.job_id, ["done"], 30_000)).status).toBe("done");
    expect(await rows<{ id: string }>("select id from previews where asset_id = ? order by id", txt.assetId)).toEqual(before);
  });

  it("a hostile DOCX fails its preview with the extractor's reason, promptly, and the task ends", async () => {
    const user = await signIn();
    const bomb = await uploadFile(user.bearer, {
      name: "смешки.docx",
      mime: DOCX_MIME,
      bytes: makeZip([{ name: "word/document.xml", text: LAUGHS }]),
    });
    const task = await previewTask(bomb.assetId, ["error", "done"]);
    expect(task.status).toBe("error");
    expect(task.attempts).toBe(0);
    expect(await previewsOf(bomb.assetId)).toEqual([]);
    expect(await stageOf(bomb.variantId)).toEqual({ state: "failed", reason: expect.stringContaining("Файл слишком сложно распаковать") });
    const log = await getJson<{ lines: { level: string; message: string }[] }>(`/api/tasklist/log/${task.id}`, user.bearer);
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "error", message: expect.stringMatching(/^«смешки\.docx»: Файл слишком/) }));
  });

  it("PDFs with compressed (FlateDecode) content get cards of their own words, Cyrillic read through ToUnicode", async () => {
    const latin = await flateTextPdf([["Expedition report", "The coral reef was bright orange."], ["Second page"]]);
    const cyrillic = await cyrillicPdf(["Отчёт об экспедиции", "Коралловый риф был ярко-оранжевым."]);
    // Each line of a page is a line of the card, and the pages are set apart by an empty line.
    const a = await documentCard(latin, "application/pdf", "report.pdf");
    const b = await documentCard(cyrillic, "application/pdf", "отчёт.pdf");
    expect(a.lines.map((l) => ("text" in l ? l.text : "")).join("\n")).toBe("Expedition report\nThe coral reef was bright orange.\n\nSecond page");
    expect(b.lines.map((l) => ("text" in l ? l.text : "")).join("\n")).toBe("Отчёт об экспедиции\nКоралловый риф был ярко-оранжевым.");
    expect(await extractSearchText("application/pdf", "отчёт.pdf", cyrillic)).toContain("Коралловый риф");
    // The fixture three-pages.pdf is three blank pages (no content streams at all): its card honestly has no text.
    expect(await documentCard(fixture("pdf"), "application/pdf", "three-pages.pdf")).toMatchObject({ lines: [], empty: ru.processing.cardEmpty });

    // Uploaded, both get PNG cards, and they differ.
    const user = await signIn();
    const [ua, ub] = [
      await uploadFile(user.bearer, { name: "report.pdf", mime: "application/pdf", bytes: latin }),
      await uploadFile(user.bearer, { name: "отчёт.pdf", mime: "application/pdf", bytes: cyrillic }),
    ];
    await previewTask(ua.assetId);
    await previewTask(ub.assetId);
    const [pa, pb] = await Promise.all([ua, ub].map(async (x) => pixelsOf((await previewsOf(x.assetId)).find((p) => p.size === "thumb")!.storage_key)));
    expect(pa.data.reduce((n, v, i) => n + (v !== pb.data[i] ? 1 : 0), 0)).toBeGreaterThan(1000);
  });

  it("a PDF deflate bomb (64 KiB inflating to 64 MiB) fails its card and its search text at the stream limit, promptly", async () => {
    const user = await signIn();
    const bytes = await flateBombPdf("Bomb start", 64);
    expect(bytes.length).toBeLessThan(100_000);
    const started = Date.now();
    const bomb = await uploadFile(user.bearer, { name: "бомба.pdf", mime: "application/pdf", bytes });
    const task = await previewTask(bomb.assetId, ["error", "done"]);
    expect(task.status).toBe("error");
    expect(task.attempts).toBe(0);
    expect(await previewsOf(bomb.assetId)).toEqual([]);
    const reason = "Файл слишком сложно распаковать: поток PDF 5 0 R распаковывается больше чем в 16 МиБ";
    expect(await stageOf(bomb.variantId)).toEqual({ state: "failed", reason });
    // The search text (tech-fields task) reads the PDF through the same check and fails the same way.
    const tech = await endedTaskOf(bomb.assetId, "tech-fields", ["error", "done"], 30_000);
    expect(tech.status).toBe("error");
    const [row] = await rows<{ t: string }>("select tech_fields as t from variants where id = ?", bomb.variantId);
    expect(JSON.parse(row.t).processing.text).toEqual({ state: "failed", reason });
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("a shared folder's info names thumbnails only for files that have one", async () => {
    const user = await signIn();
    const group = await createGroup(user, uniqueName());
    const docx = await uploadFile(user.bearer, { name: "c.docx", mime: DOCX_MIME, bytes: makeDocx("Третий", ["Текст"]), group });
    const bin = await uploadFile(user.bearer, { name: "d.bin", mime: "application/octet-stream", bytes: text("\u0000\u0001"), group });
    await previewTask(docx.assetId);
    const created = await call(`/api/sl/create/${group}`, { method: "POST", bearer: user.bearer, json: {}, headers: { "cf-connecting-ip": "203.0.113.77" } });
    expect(created.status).toBe(200);
    const id = (await created.text()).split("/sl/")[1];
    const info = await call(`/api/sl/info/${id}`, { headers: { "cf-connecting-ip": "203.0.113.78" } });
    expect(info.status).toBe(200);
    const items = ((await info.json()) as { group: { items: { asset_id: string; thumb_url: string | null; preview_url: string | null }[] } }).group.items;
    const byId = new Map(items.map((i) => [i.asset_id, i]));
    expect(byId.get(bin.assetId)).toMatchObject({ thumb_url: null, preview_url: null });
    const thumb = byId.get(docx.assetId)!.thumb_url!;
    expect(thumb).toContain(`/api/sl/media/${id}/${docx.assetId}/thumb`);
    const image = await call(thumb, { headers: { "cf-connecting-ip": "203.0.113.79" } });
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    await image.arrayBuffer();
  });
});
