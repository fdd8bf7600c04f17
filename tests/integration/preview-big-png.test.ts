import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { decodeImage } from "../../workers/services/imaging/image-codec";
import { rows } from "./asset-fixtures";
import { signIn } from "./factories";
import { getJson, previewTask, uploadFile } from "./task-fixtures";
import { makePng, quarterPixel } from "../fixtures/png-maker";
import { expectQuarters } from "../fixtures/quarters";

/** PNGs past the whole-image limit (12 MP): decoded by rows into a downscaled buffer in the Worker. */

const previewsOf = (assetId: string) =>
  rows<{ size: string; width: number; height: number; storage_key: string }>(
    "select size, width, height, storage_key from previews where asset_id = ? order by size",
    assetId,
  );

describe("previews of big PNGs", () => {
  it("a 24 MP PNG (6000 × 4000) uploaded through the API gets thumb and medium", async () => {
    const user = await signIn();
    const png = makePng(6000, 4000, quarterPixel(6000, 4000));
    const a = await uploadFile(user.bearer, { name: "скан-24-Мп.png", mime: "image/png", bytes: png });
    const task = await previewTask(a.assetId);
    const log = await getJson<{ lines: { message: string }[] }>(`/api/tasklist/log/${task.id}?take=50`, user.bearer);
    expect(log.lines.map((l) => l.message).join("\n")).toContain("PNG 6000×4000 по строкам → 1500×1000");
    const previews = await previewsOf(a.assetId);
    expect(previews.map((p) => [p.size, p.width, p.height])).toEqual([
      ["medium", 1280, 853],
      ["thumb", 320, 213],
    ]);
    const thumb = previews.find((p) => p.size === "thumb")!;
    const bytes = new Uint8Array(await (await env.MEDIA.get(thumb.storage_key))!.arrayBuffer());
    expectQuarters(await decodeImage("image/jpeg", bytes));
  }, 180_000);
});
