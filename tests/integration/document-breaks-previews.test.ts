import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { decode as decodePng } from "@jsquash/png/decode";
import { rows } from "./asset-fixtures";
import { signIn } from "./factories";
import { previewTask, uploadFile } from "./task-fixtures";
import { encodePng } from "../../workers/services/imaging/image-codec";
import { DOCX_MIME, makeDocx, makeZip } from "../fixtures/office-docs";

/**
 * Previews that keep what the file has: a transparent PNG keeps its alpha (the viewer and the grid lay it on a
 * checkerboard, never on black or white), and an office document carrying its own page picture is shown by it
 * instead of a text card.
 */

interface PreviewRow {
  size: string;
  width: number;
  height: number;
  mime_type: string;
  storage_key: string;
}
const previewsOf = (assetId: string) =>
  rows<PreviewRow>("select size, width, height, mime_type, storage_key from previews where asset_id = ? order by size", assetId);

/** An RGBA image: a red disc on full transparency (or on opaque blue with `opaque`). */
function disc(width: number, height: number, opaque = false) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const inside = (x - width / 2) ** 2 + (y - height / 2) ** 2 < (Math.min(width, height) / 3) ** 2;
      data.set(inside ? [220, 30, 30, 255] : opaque ? [30, 60, 200, 255] : [0, 0, 0, 0], i);
    }
  }
  return { data, width, height };
}

describe("previews that keep transparency and a document's own page picture", () => {
  it("a transparent PNG gets PNG previews with alpha; an opaque one stays JPEG", async () => {
    const user = await signIn();
    const clear = await uploadFile(user.bearer, { name: "логотип.png", mime: "image/png", bytes: new Uint8Array(await encodePng(disc(800, 600))) });
    const solid = await uploadFile(user.bearer, { name: "плашка.png", mime: "image/png", bytes: new Uint8Array(await encodePng(disc(800, 600, true))) });
    await previewTask(clear.assetId);
    await previewTask(solid.assetId);

    const previews = await previewsOf(clear.assetId);
    expect(previews.map((p) => [p.size, p.width, p.height, p.mime_type])).toEqual([
      ["medium", 800, 600, "image/png"],
      ["thumb", 320, 240, "image/png"],
    ]);
    for (const p of previews) {
      const pixels = await decodePng(await (await env.MEDIA.get(p.storage_key))!.arrayBuffer());
      // The corner is still fully transparent, the centre still opaque red.
      expect(pixels.data[3]).toBe(0);
      const centre = ((pixels.height >> 1) * pixels.width + (pixels.width >> 1)) * 4;
      const [r, g, b, alpha] = pixels.data.slice(centre, centre + 4);
      expect([r > 200, g < 50, b < 50, alpha]).toEqual([true, true, true, 255]);
    }
    // The screen copy (proxy) of a transparent image is the same PNG, labelled as one.
    const [proxy] = await rows<{ mime_type: string; file_name: string }>(
      "select mime_type, file_name from variants where asset_id = ? and variant_type = 'proxy_lowres'",
      clear.assetId,
    );
    expect(proxy).toEqual({ mime_type: "image/png", file_name: "логотип.png.preview.png" });
    expect((await previewsOf(solid.assetId)).map((p) => p.mime_type)).toEqual(["image/jpeg", "image/jpeg"]);
  });

  it("a DOCX carrying docProps/thumbnail.png is previewed by that picture, one without it by its text card", async () => {
    const user = await signIn();
    const picture = new Uint8Array(await encodePng(disc(300, 400, true)));
    const plain = makeDocx("Отчёт", ["Первый абзац."]);
    // The same document with the page picture Word saves beside it.
    const withPicture = makeZip([
      { name: "word/document.xml", text: '<w:document><w:body><w:p><w:r><w:t>Отчёт</w:t></w:r></w:p></w:body></w:document>' },
      { name: "docProps/thumbnail.png", bytes: picture },
    ]);
    const pictured = await uploadFile(user.bearer, { name: "С картинкой.docx", mime: DOCX_MIME, bytes: withPicture });
    const carded = await uploadFile(user.bearer, { name: "Без картинки.docx", mime: DOCX_MIME, bytes: plain });
    await previewTask(pictured.assetId);
    await previewTask(carded.assetId);
    expect((await previewsOf(pictured.assetId)).map((p) => [p.size, p.width, p.height])).toEqual([
      ["medium", 300, 400],
      ["thumb", 240, 320],
    ]);
    const thumb = (await previewsOf(pictured.assetId)).find((p) => p.size === "thumb")!;
    const bytes = new Uint8Array(await (await env.MEDIA.get(thumb.storage_key))!.arrayBuffer());
    // The picture's blue corner, not a card's white page.
    const pixels = thumb.mime_type === "image/png" ? await decodePng(bytes.buffer) : null;
    if (pixels) expect([...pixels.data.slice(0, 3)]).toEqual([30, 60, 200]);
    expect((await previewsOf(carded.assetId)).map((p) => [p.size, p.width, p.height, p.mime_type])).toEqual([
      ["medium", 960, 1280, "image/png"],
      ["thumb", 240, 320, "image/png"],
    ]);
  });
});
