import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { rows } from "./asset-fixtures";
import { signIn } from "./factories";
import { getJson, previewTask, uploadFile } from "./task-fixtures";
import { decodeImage, encodeJpeg } from "../../workers/services/imaging/image-codec";
import { imageInfo } from "../../workers/services/media/image-info";
import { makeIsoBmff, makeRaw, makeTiff } from "../fixtures/media-makers";
import { expectQuarters, quarters } from "../fixtures/quarters";

/**
 * In-Worker photo makers (decision 029), with files generated in the test: a 24 MP JPEG (scaled decoding), TIFF
 * 8/16-bit and multi-page, a TIFF-based RAW and a CR3 with embedded JPEG previews, and the ones that cannot be made.
 */

const previewsOf = (assetId: string) =>
  rows<{ size: string; width: number; height: number; mime_type: string; storage_key: string }>(
    "select size, width, height, mime_type, storage_key from previews where asset_id = ? order by size",
    assetId,
  );

async function stageOf(variantId: string) {
  const [row] = await rows<{ t: string }>("select tech_fields as t from variants where id = ?", variantId);
  return JSON.parse(row.t ?? "{}").processing?.preview;
}

async function thumbPixels(assetId: string) {
  const thumb = (await previewsOf(assetId)).find((p) => p.size === "thumb")!;
  const bytes = new Uint8Array(await (await env.MEDIA.get(thumb.storage_key))!.arrayBuffer());
  return decodeImage(thumb.mime_type === "image/png" ? "image/png" : "image/jpeg", bytes);
}

describe("photo previews past 12 MP", () => {
  it("a 24 MP JPEG (6000 × 4000) gets thumb and medium through scaled decoding", async () => {
    const user = await signIn();
    const jpeg = (await encodeJpeg(quarters(6000, 4000, { texture: true }), 85)) as Uint8Array<ArrayBuffer>;
    const a = await uploadFile(user.bearer, { name: "24-Мп.jpg", mime: "image/jpeg", bytes: jpeg });
    const started = Date.now();
    const task = await previewTask(a.assetId);
    const took = Date.now() - started;
    expect(await stageOf(a.variantId)).toEqual({ state: "done" });
    // Decoded at 1/4, the least that still covers the 1280 px medium (1/2 would decode 6 MP only to shrink them).
    const log = await getJson<{ lines: { message: string }[] }>(`/api/tasklist/log/${task.id}?take=50`, user.bearer);
    expect(log.lines.map((l) => l.message).join("\n")).toContain("JPEG 1500×1000 из 6000×4000");
    expect((await previewsOf(a.assetId)).map((p) => [p.size, p.width, p.height])).toEqual([
      ["medium", 1280, 853],
      ["thumb", 320, 213],
    ]);
    expectQuarters(await thumbPixels(a.assetId));
    expect(took).toBeLessThan(20_000);
  }, 120_000);
});

describe("TIFF and RAW previews", () => {
  const q = (w: number, h: number) => (x: number, y: number, c: number) => {
    const right = x >= w / 2;
    const bottom = y >= h / 2;
    return (c === 0 ? (right ? 230 : 20) : c === 1 ? (bottom ? 220 : 30) : right !== bottom ? 200 : 40) / 255;
  };

  it("8-bit LZW, 16-bit Deflate and a multi-page TIFF (its first page) get JPEG previews", async () => {
    const user = await signIn();
    const cases = [
      { name: "8-бит.tif", bytes: makeTiff([{ width: 800, height: 600, compression: 5, predictor: true, pixel: q(800, 600) }]) },
      { name: "16-бит.tiff", bytes: makeTiff([{ width: 640, height: 480, bits: 16, compression: 8, pixel: q(640, 480) }]) },
      {
        name: "страницы.tif",
        bytes: makeTiff([
          { width: 400, height: 300, compression: 32773, pixel: q(400, 300) },
          { width: 50, height: 50, pixel: () => 1 },
        ]),
      },
    ];
    for (const c of cases) {
      const a = await uploadFile(user.bearer, { name: c.name, mime: "image/tiff", bytes: c.bytes });
      await previewTask(a.assetId);
      expect(await stageOf(a.variantId), c.name).toEqual({ state: "done" });
      const previews = await previewsOf(a.assetId);
      expect(previews.map((p) => p.size)).toEqual(["medium", "thumb"]);
      expect(previews[1].width).toBe(320);
      expectQuarters(await thumbPixels(a.assetId));
    }
  });

  it("a TIFF-based RAW (.nef) and a CR3 get their embedded JPEG preview; a HEIC without one and an AVIF say why", async () => {
    const user = await signIn();
    const preview = (await encodeJpeg(quarters(1620, 1080, { texture: true }), 85)) as Uint8Array<ArrayBuffer>;
    const thumb = (await encodeJpeg(quarters(160, 120, { texture: true }), 80)) as Uint8Array<ArrayBuffer>;
    const raw = await uploadFile(user.bearer, { name: "снимок.nef", mime: "image/x-nikon-nef", bytes: makeRaw(preview) });
    const cr3 = await uploadFile(user.bearer, { name: "снимок.cr3", mime: "image/x-canon-cr3", bytes: makeIsoBmff("crx ", [thumb, preview]) });
    for (const a of [raw, cr3]) {
      await previewTask(a.assetId);
      expect(await stageOf(a.variantId)).toEqual({ state: "done" });
      expect((await previewsOf(a.assetId)).map((p) => [p.size, p.width, p.height])).toEqual([
        ["medium", 1280, 853],
        ["thumb", 320, 213],
      ]);
      expectQuarters(await thumbPixels(a.assetId));
    }
    const heic = await uploadFile(user.bearer, { name: "фото.heic", mime: "image/heic", bytes: makeIsoBmff("heic", [new Uint8Array(300).fill(7)]) });
    const avif = await uploadFile(user.bearer, { name: "фото.avif", mime: "image/avif", bytes: makeIsoBmff("avif", []) });
    for (const [a, reason] of [
      [heic, /HEVC/],
      [avif, /AVIF/],
    ] as const) {
      await previewTask(a.assetId, ["error"]);
      expect(await stageOf(a.variantId)).toMatchObject({ state: "failed", reason: expect.stringMatching(reason) });
    }
  });

  it("a file whose name and type lie is judged by its bytes: a TIFF named .jpg is made, text named .tif fails with the reason", async () => {
    const user = await signIn();
    const tiffAsJpeg = await uploadFile(user.bearer, { name: "на-самом-деле-tiff.jpg", mime: "image/jpeg", bytes: makeTiff([{ width: 64, height: 64 }]) });
    await previewTask(tiffAsJpeg.assetId);
    expect(await stageOf(tiffAsJpeg.variantId)).toEqual({ state: "done" });
    const text = await uploadFile(user.bearer, { name: "текст.tif", mime: "image/tiff", bytes: new TextEncoder().encode("это не TIFF ".repeat(50)) as Uint8Array<ArrayBuffer> });
    await previewTask(text.assetId, ["error"]);
    expect(await stageOf(text.variantId)).toMatchObject({ state: "failed", reason: expect.stringMatching(/не похоже на «image\/tiff»/) });
    const truncated = await uploadFile(user.bearer, { name: "обрезан.tif", mime: "image/tiff", bytes: makeTiff([{ width: 300, height: 300 }]).slice(0, 5000) });
    await previewTask(truncated.assetId, ["error"]);
    expect(await stageOf(truncated.variantId)).toMatchObject({ state: "failed", reason: expect.stringMatching(/TIFF/) });
    expect(imageInfo(new Uint8Array(0))).toBeNull();
  });
});

describe("SVG previews drawn in the Worker", () => {
  const QUARTERS_SVG = (extra = "") =>
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 400 200">` +
    `<rect width="200" height="100" fill="rgb(20,30,40)"/><rect x="200" width="200" height="100" fill="rgb(230,30,200)"/>` +
    `<rect y="100" width="200" height="100" fill="rgb(20,220,200)"/><rect x="200" y="100" width="200" height="100" fill="rgb(230,220,40)"/>` +
    `${extra}</svg>`;
  const enc = (text: string) => new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>;

  it("an SVG of shapes gets thumb and medium from its viewBox, external references unresolved", async () => {
    const user = await signIn();
    const a = await uploadFile(user.bearer, { name: "схема.svg", mime: "image/svg+xml", bytes: enc(QUARTERS_SVG(`<rect width="1" height="1" fill="url(http://example.invalid/f.svg#p)"/>`)) });
    const task = await previewTask(a.assetId);
    expect(await stageOf(a.variantId)).toEqual({ state: "done" });
    expect((await previewsOf(a.assetId)).map((p) => [p.size, p.width, p.height, p.mime_type])).toEqual([
      ["medium", 1280, 640, "image/jpeg"],
      ["thumb", 320, 160, "image/jpeg"],
    ]);
    expectQuarters(await thumbPixels(a.assetId));
    const log = await getJson<{ lines: { message: string }[] }>(`/api/tasklist/log/${task.id}?take=50`, user.bearer);
    expect(log.lines.map((l) => l.message).join("\n")).toContain("SVG, resvg");
  });

  it("half-transparent areas keep their alpha in a PNG preview (resvg's premultiplied pixels made straight first)", async () => {
    const user = await signIn();
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="rgb(0,0,255)" fill-opacity="0.5"/></svg>`;
    const a = await uploadFile(user.bearer, { name: "полупрозрачный.svg", mime: "image/svg+xml", bytes: enc(svg) });
    await previewTask(a.assetId);
    expect((await previewsOf(a.assetId)).find((x) => x.size === "thumb")!.mime_type).toBe("image/png");
    const p = await thumbPixels(a.assetId);
    const mid = Array.from(p.data.subarray(((p.height >> 1) * p.width + (p.width >> 1)) * 4, ((p.height >> 1) * p.width + (p.width >> 1)) * 4 + 4));
    expect(mid.every((v, i) => Math.abs(v - [0, 0, 255, 128][i]) < 12), `centre ${mid}`).toBe(true);
  });

  it("text, embedded pictures, <use> and filters are left to the viewing browser; a too-deep SVG fails with the limit", async () => {
    const user = await signIn();
    const text = await uploadFile(user.bearer, { name: "надпись.svg", mime: "image/svg+xml", bytes: enc(QUARTERS_SVG(`<text x="10" y="50">Привет</text>`)) });
    const picture = await uploadFile(user.bearer, {
      name: "вложение.svg",
      mime: "image/svg+xml",
      bytes: enc(QUARTERS_SVG(`<image href="data:image/png;base64,iVBORw0KGgo=" width="10" height="10"/>`)),
    });
    // A "billion laughs" of <use>: eight levels of ten references to the level below.
    const levels = Array.from({ length: 8 }, (_, k) =>
      `<g id="l${k + 1}">${Array.from({ length: 10 }, (_, i) => `<use href="#l${k}" x="${i}"/>`).join("")}</g>`,
    ).join("");
    const uses = await uploadFile(user.bearer, {
      name: "ссылки.svg",
      mime: "image/svg+xml",
      bytes: enc(`<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><defs><rect id="l0" width="1" height="1"/>${levels}</defs><use href="#l8"/></svg>`),
    });
    // Blur and dilation cost radius × canvas, not file size: a few hundred bytes of this kept resvg busy for minutes.
    const blurred = await uploadFile(user.bearer, {
      name: "размытие.svg",
      mime: "image/svg+xml",
      bytes: enc(QUARTERS_SVG(`<filter id="b"><feGaussianBlur stdDeviation="200"/><feMorphology radius="100"/></filter><rect width="50" height="50" filter="url(#b)"/>`)),
    });
    const styled = await uploadFile(user.bearer, {
      name: "стиль.svg",
      mime: "image/svg+xml",
      bytes: enc(QUARTERS_SVG(`<rect width="50" height="50" style="filter: blur(200px)"/>`)),
    });
    for (const a of [text, picture, uses, blurred, styled]) {
      await previewTask(a.assetId);
      expect(await stageOf(a.variantId)).toMatchObject({ state: "not_applicable", reason: expect.stringMatching(/делает браузер/) });
      expect(await previewsOf(a.assetId)).toEqual([]);
    }
    const deep = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${"<g>".repeat(300)}<rect width="5" height="5"/>${"</g>".repeat(300)}</svg>`;
    const tooDeep = await uploadFile(user.bearer, { name: "глубокий.svg", mime: "image/svg+xml", bytes: enc(deep) });
    await previewTask(tooDeep.assetId, ["error"]);
    expect(await stageOf(tooDeep.variantId)).toMatchObject({ state: "failed", reason: expect.stringMatching(/SVG вложен глубже/) });
    expect(await previewsOf(tooDeep.assetId)).toEqual([]);
  });
  it("an SVG past the drawing budget (shapes, layers, points) is left to the browser; one just under it is drawn", async () => {
    const user = await signIn();
    const rects = (n: number, attrs = "") => Array.from({ length: n }, (_, i) => `<rect x="${i % 400}" width="1" height="1"${attrs}/>`).join("");
    const cases = [
      ["фигуры.svg", QUARTERS_SVG(rects(1_000)), /больше 1000 фигур/],
      ["слои.svg", QUARTERS_SVG(rects(9, ` opacity="0.5"`)), /слоёв прозрачности/],
      ["стиль-слоёв.svg", QUARTERS_SVG(`<style>rect { opacity: .5 }</style>${rects(5)}`), /слоёв прозрачности/],
      ["зигзаг.svg", QUARTERS_SVG(`<polygon points="${Array.from({ length: 10_001 }, (_, i) => `${i % 2 ? 0 : 400},${i % 200}`).join(" ")}"/>`), /чисел в геометрии/],
    ] as const;
    for (const [name, text, why] of cases) {
      const a = await uploadFile(user.bearer, { name, mime: "image/svg+xml", bytes: enc(text) });
      await previewTask(a.assetId);
      expect(await stageOf(a.variantId), name).toMatchObject({ state: "not_applicable", reason: expect.stringMatching(why) });
      expect(await stageOf(a.variantId), name).toMatchObject({ reason: expect.stringMatching(/слишком сложен для рисования на сервере/) });
    }
    const under = await uploadFile(user.bearer, { name: "почти.svg", mime: "image/svg+xml", bytes: enc(QUARTERS_SVG(rects(990) + rects(4, ` opacity="0.5"`))) });
    await previewTask(under.assetId);
    expect(await stageOf(under.variantId)).toEqual({ state: "done" });
  });
});
