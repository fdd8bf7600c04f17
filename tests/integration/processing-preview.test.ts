import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { decodeImage } from "../../workers/services/imaging/image-codec";
import { imageInfo } from "../../workers/services/media/image-info";
import { rows } from "./asset-fixtures";
import { call, signIn } from "./factories";
import { fixture } from "./processing-fixtures";
import { endedTaskOf, getJson, tasksOf, uploadFile } from "./task-fixtures";

interface PreviewRow {
  size: string;
  width: number;
  height: number;
  mime_type: string;
  storage_key: string;
  version_id: string;
}

async function previewsOf(assetId: string) {
  return rows<PreviewRow>(
    "select size, width, height, mime_type, storage_key, version_id from previews where asset_id = ? order by size",
    assetId,
  );
}

const taskAfterUpload = (assetId: string, op: string, statuses?: ("done" | "error")[]) => endedTaskOf(assetId, op, statuses, 30_000);
const previewTask = (assetId: string, statuses?: ("done" | "error")[]) => taskAfterUpload(assetId, "preview", statuses);

describe("preview operation after an upload (real codecs in workerd)", () => {
  it("makes thumb and medium JPEG previews of a 1600×1200 JPEG, and a proxy_lowres variant", async () => {
    const user = await signIn();
    const { assetId } = await uploadFile(user.bearer, { name: "фото.jpg", mime: "image/jpeg", bytes: fixture("photo") });
    const task = await previewTask(assetId);
    expect(task.progress).toBe(100);

    const previews = await previewsOf(assetId);
    expect(previews.map((p) => [p.size, p.width, p.height, p.mime_type])).toEqual([
      ["medium", 1280, 960, "image/jpeg"],
      ["thumb", 320, 240, "image/jpeg"],
    ]);
    for (const p of previews) {
      const object = await env.MEDIA.get(p.storage_key);
      expect(imageInfo(new Uint8Array(await object!.arrayBuffer()))).toEqual({ mime: "image/jpeg", width: p.width, height: p.height });
    }
    const proxies = await rows<{ variant_type: string; status: string; storage_key: string }>(
      "select variant_type, status, storage_key from variants where asset_id = ? and variant_type = 'proxy_lowres'",
      assetId,
    );
    expect(proxies).toHaveLength(1);
    expect(proxies[0].status).toBe("ready");

    // The existing preview endpoint serves what the task made.
    const res = await call(`/api/asset/content/preview/${assetId}/1/thumb`, { bearer: user.bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(imageInfo(new Uint8Array(await res.arrayBuffer()))).toMatchObject({ width: 320, height: 240 });

    const log = await getJson<{ lines: { level: string; message: string }[] }>(`/api/tasklist/log/${task.id}`, user.bearer);
    expect(log.lines.some((l) => l.message.includes("thumb 320×240") && l.message.includes("medium 1280×960"))).toBe(true);
  });

  it("makes previews of a 400×300 PNG without enlarging it", async () => {
    const user = await signIn();
    const { assetId } = await uploadFile(user.bearer, { name: "logo.png", mime: "image/png", bytes: fixture("png") });
    await previewTask(assetId);
    expect((await previewsOf(assetId)).map((p) => [p.size, p.width, p.height])).toEqual([
      ["medium", 400, 300],
      ["thumb", 320, 240],
    ]);
    // The logo's transparent top-left corner stays transparent: its previews are PNGs with alpha (the viewer and the
    // grid lay them on a checkerboard), never a corner painted black.
    for (const preview of await previewsOf(assetId)) {
      expect(preview.mime_type, preview.size).toBe("image/png");
      const object = await env.MEDIA.get(preview.storage_key);
      const pixels = await decodeImage("image/png", new Uint8Array(await object!.arrayBuffer()));
      expect(pixels.data[3], preview.size).toBeLessThan(16);
    }
  });

  it("ends the task of a corrupt JPEG as error with a clear Russian log line; the next upload still works", async () => {
    const user = await signIn();
    const { assetId } = await uploadFile(user.bearer, { name: "битый.jpg", mime: "image/jpeg", bytes: fixture("corrupt") });
    const task = await previewTask(assetId, ["error", "done"]);
    expect(task.status).toBe("error");
    expect(task.error).toBe(ru.tasks.log.someFailed(1, 1));
    expect(await previewsOf(assetId)).toEqual([]);
    const log = await getJson<{ lines: { level: string; message: string }[] }>(`/api/tasklist/log/${task.id}`, user.bearer);
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: "error", message: ru.tasks.log.corruptImage("битый.jpg", "image/jpeg") }),
    );

    const ok = await uploadFile(user.bearer, { name: "целый.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    await previewTask(ok.assetId);
    expect((await previewsOf(ok.assetId)).map((p) => [p.size, p.width, p.height])).toEqual([
      ["medium", 200, 100],
      ["thumb", 200, 100],
    ]);
  });

  it("also extracts technical fields after the upload (EXIF of the JPEG, pages of a PDF)", async () => {
    const user = await signIn();
    const photo = await uploadFile(user.bearer, { name: "exif.jpg", mime: "image/jpeg", bytes: fixture("photo") });
    const pdf = await uploadFile(user.bearer, { name: "doc.pdf", mime: "application/pdf", bytes: fixture("pdf") });
    for (const { assetId } of [photo, pdf]) await taskAfterUpload(assetId, "tech-fields");
    // A PDF gets a text-card preview task too (decision 029).
    expect((await tasksOf(pdf.assetId)).map((t) => t.operation_class).sort()).toEqual(["preview", "tech-fields"]);
    const fields = await getJson<Record<string, unknown>>(`/api/asset/variant-tech-fields/${photo.variantId}`, user.bearer);
    expect(fields).toMatchObject({ width: 1600, height: 1200, exif: { Make: "EdgeCam", Model: "Fixture 1" } });
    const props = await getJson<Record<string, unknown>>(`/api/asset/variant-tech-props/${pdf.variantId}`, user.bearer);
    expect(props).toMatchObject({ page_count: 3, mime: "application/pdf" });
  });
});
