import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { decodeImage, encodeJpeg, encodePng, MAX_DECODE_PIXELS } from "../../workers/services/imaging/image-codec";
import { imageInfo } from "../../workers/services/media/image-info";
import webp from "../fixtures/quarters-1600x1200.webp?inline";
import avif from "../fixtures/quarters-1600x1200.avif?inline";
import { expectQuarters, quarters } from "../fixtures/quarters";
import { rows } from "./asset-fixtures";
import { signIn } from "./factories";
import { fixture } from "./processing-fixtures";
import { getJson, previewTask, uploadFile } from "./task-fixtures";

/**
 * Previews made by the optional Cloudflare Images binding (run by vitest.images.config.ts, where miniflare answers
 * `IMAGES` with its sharp stand-in): photos uploaded through the API, previews read back from D1 and R2, the task's
 * log read through /api/tasklist/log. Files the binding must not get, or that it refuses, end as the in-Worker
 * makers end them.
 */

const VIA_IMAGES = "(Cloudflare Images)";

const previewsOf = (assetId: string) =>
  rows<{ size: string; width: number; height: number; mime_type: string; storage_key: string }>(
    "select size, width, height, mime_type, storage_key from previews where asset_id = ? order by size",
    assetId,
  );

const proxiesOf = (assetId: string) =>
  rows<{ id: string }>("select id from variants where asset_id = ? and variant_type = 'proxy_lowres'", assetId);

async function logOf(taskId: string, bearer: string) {
  return (await getJson<{ lines: { level: string; message: string }[] }>(`/api/tasklist/log/${taskId}`, bearer)).lines;
}

async function stageOf(variantId: string) {
  const [row] = await rows<{ t: string }>("select tech_fields as t from variants where id = ?", variantId);
  return JSON.parse(row.t ?? "{}").processing?.preview;
}

const bytesOfDataUrl = (url: string) => Uint8Array.from(atob(url.slice(url.indexOf(",") + 1)), (c) => c.charCodeAt(0));

async function expectQuartersIn(storageKey: string) {
  const bytes = new Uint8Array(await (await env.MEDIA.get(storageKey))!.arrayBuffer());
  expect(imageInfo(bytes)?.mime).toBe("image/jpeg");
  expectQuarters(await decodeImage("image/jpeg", bytes));
}

/** Uploads a photo, waits for its preview task and checks both previews: JPEG, each fitting its box, Images' log line. */
async function expectImagesPreviews(f: { name: string; mime: string; bytes: Uint8Array<ArrayBuffer> }, medium: [number, number], thumb: [number, number]) {
  const user = await signIn();
  const a = await uploadFile(user.bearer, f);
  const started = Date.now();
  const task = await previewTask(a.assetId);
  const took = Date.now() - started;
  expect(await stageOf(a.variantId), f.name).toEqual({ state: "done" });
  const previews = await previewsOf(a.assetId);
  expect(previews.map((p) => [p.size, p.width, p.height, p.mime_type]), f.name).toEqual([
    ["medium", ...medium, "image/jpeg"],
    ["thumb", ...thumb, "image/jpeg"],
  ]);
  for (const p of previews) await expectQuartersIn(p.storage_key);
  expect(await proxiesOf(a.assetId)).toHaveLength(1);
  const log = await logOf(task.id, user.bearer);
  const made = `medium ${medium.join("×")}, thumb ${thumb.join("×")} ${VIA_IMAGES}`;
  expect(log, f.name).toContainEqual(expect.objectContaining({ level: "info", message: ru.tasks.log.previewMade(f.name, made) }));
  expect(log.filter((l) => l.level !== "info"), f.name).toEqual([]);
  return took;
}

describe("previews by the Cloudflare Images binding", () => {
  it("a 24 MP JPEG (6000 × 4000): medium fits 1280, thumb fits 320, both JPEG", async () => {
    const jpeg = (await encodeJpeg(quarters(6000, 4000), 85)) as Uint8Array<ArrayBuffer>;
    const took = await expectImagesPreviews({ name: "24-Мп.jpg", mime: "image/jpeg", bytes: jpeg }, [1280, 853], [320, 213]);
    // The figure of README/decision 029 (compare the in-Worker maker's in preview-makers-photo.test.ts).
    console.log(`24 MP JPEG (${jpeg.byteLength} bytes) → thumb and medium by Cloudflare Images: ${took} ms`);
  }, 120_000);

  it("a PNG with alpha past the codecs' 12 MP (4200 × 3000) and a WebP with alpha", async () => {
    expect(4200 * 3000).toBeGreaterThan(MAX_DECODE_PIXELS);
    const png = (await encodePng(quarters(4200, 3000, { alpha: true }))) as Uint8Array<ArrayBuffer>;
    await expectImagesPreviews({ name: "прозрачный.png", mime: "image/png", bytes: png }, [1280, 914], [320, 229]);
    await expectImagesPreviews({ name: "фото.webp", mime: "image/webp", bytes: bytesOfDataUrl(webp) }, [1280, 960], [320, 240]);
  }, 120_000);

  it("an AVIF (no decoder in the Worker) gets its previews from Images", async () => {
    await expectImagesPreviews({ name: "фото.avif", mime: "image/avif", bytes: bytesOfDataUrl(avif) }, [1280, 960], [320, 240]);
  }, 60_000);

  it("a corrupt JPEG: Images refuses it, the WebAssembly path fails it with its reason, no preview rows", async () => {
    const user = await signIn();
    const a = await uploadFile(user.bearer, { name: "битый.jpg", mime: "image/jpeg", bytes: fixture("corrupt") });
    const task = await previewTask(a.assetId, ["error", "done"]);
    expect(task.status).toBe("error");
    expect(await stageOf(a.variantId)).toEqual({ state: "failed", reason: ru.tasks.log.corruptImage("битый.jpg", "image/jpeg") });
    expect(await previewsOf(a.assetId)).toEqual([]);
    expect(await proxiesOf(a.assetId)).toEqual([]);
    const log = await logOf(task.id, user.bearer);
    const warned = log.filter((l) => l.level === "warn").map((l) => l.message);
    expect(warned).toHaveLength(1);
    expect(warned[0].startsWith(ru.tasks.log.imagesBindingFailed("битый.jpg", "").split(" (")[0])).toBe(true);
    expect(log).toContainEqual(expect.objectContaining({ level: "error", message: ru.tasks.log.corruptImage("битый.jpg", "image/jpeg") }));
  });

  it("a JPEG header claiming 300 MP is never handed to Images: refused by the pixel limit", async () => {
    const user = await signIn();
    const bytes = new Uint8Array(fixture("tiny"));
    // Rewrite the frame header (SOF) to 20000 × 15000; the scan data stays the tiny picture's.
    let sof = -1;
    for (let i = 2; i + 9 < bytes.length; i += 2 + ((bytes[i + 2] << 8) | bytes[i + 3])) {
      if (bytes[i + 1] === 0xc0 || bytes[i + 1] === 0xc2) {
        sof = i;
        break;
      }
    }
    expect(sof).toBeGreaterThan(0);
    bytes.set([15000 >> 8, 15000 & 255, 20000 >> 8, 20000 & 255], sof + 5);
    const a = await uploadFile(user.bearer, { name: "300-Мп.jpg", mime: "image/jpeg", bytes });
    const task = await previewTask(a.assetId, ["error", "done"]);
    expect(task.status).toBe("error");
    const reason = ru.makers.tooManyPixels(20000, 15000, 200);
    expect(await stageOf(a.variantId)).toEqual({ state: "failed", reason });
    expect(await previewsOf(a.assetId)).toEqual([]);
    const log = await logOf(task.id, user.bearer);
    expect(log).toContainEqual(expect.objectContaining({ level: "error", message: ru.tasks.log.refused("300-Мп.jpg", reason) }));
    // Handed to Images, the truncated scan would have failed there first (a warning naming Cloudflare Images).
    expect(log.filter((l) => l.message.includes("Cloudflare Images"))).toEqual([]);
  });
});
