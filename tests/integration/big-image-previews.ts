import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { decodeImage } from "../../workers/services/imaging/image-codec";
import { expectQuarters } from "../fixtures/quarters";
import { rows } from "./asset-fixtures";
import { signIn } from "./factories";
import { getJson, previewTask, uploadFile } from "./task-fixtures";

/**
 * Uploads a 6000 × 4000 quarters picture through the API and checks what its preview task made: the task log names
 * how it was decoded (`via`), thumb and medium have their sizes, and the thumb still shows the four quarters.
 */
export async function expectBigImagePreviews(file: { name: string; mime: string; bytes: Uint8Array<ArrayBuffer> }, via: string) {
  const user = await signIn();
  const { assetId } = await uploadFile(user.bearer, file);
  const task = await previewTask(assetId);
  const log = await getJson<{ lines: { message: string }[] }>(`/api/tasklist/log/${task.id}?take=50`, user.bearer);
  expect(log.lines.map((l) => l.message).join("\n")).toContain(via);
  const previews = await rows<{ size: string; width: number; height: number; storage_key: string }>(
    "select size, width, height, storage_key from previews where asset_id = ? order by size",
    assetId,
  );
  expect(previews.map((p) => [p.size, p.width, p.height])).toEqual([
    ["medium", 1280, 853],
    ["thumb", 320, 213],
  ]);
  const thumb = previews.find((p) => p.size === "thumb")!;
  const bytes = new Uint8Array(await (await env.MEDIA.get(thumb.storage_key))!.arrayBuffer());
  // A picture with transparency gets PNG previews, any other JPEG.
  expectQuarters(await decodeImage(bytes[0] === 0x89 ? "image/png" : "image/jpeg", bytes));
}
