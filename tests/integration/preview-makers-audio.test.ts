import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { rows } from "./asset-fixtures";
import { call, expectError, signIn } from "./factories";
import { previewTask, uploadFile } from "./task-fixtures";
import { imageInfo } from "../../workers/services/media/image-info";
import { makeWav } from "../fixtures/media-makers";
import type { Waveform } from "../../shared/waveform";

/** Audio waveforms (decision 029): WAV peaks computed in workerd, other audio's peaks posted by a browser. */

const previewsOf = (assetId: string) =>
  rows<{ size: string; width: number; height: number; mime_type: string; storage_key: string }>(
    "select size, width, height, mime_type, storage_key from previews where asset_id = ? order by size",
    assetId,
  );

async function stageOf(variantId: string) {
  const [row] = await rows<{ t: string }>("select tech_fields as t from variants where id = ?", variantId);
  return JSON.parse(row.t ?? "{}").processing?.preview;
}

const waveformOf = async (assetId: string, bearer: string) => {
  const res = await call(`/api/asset/waveform/${assetId}/0`, { bearer });
  expect(res.status).toBe(200);
  return (await res.json()) as Waveform;
};

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("WAV waveforms (in the Worker)", () => {
  it("16-bit stereo, 24-bit mono, 8-bit and float WAV get peaks that follow the loudness, and PNG waveform previews", async () => {
    const user = await signIn();
    // Quiet first half (0.25), loud second half (0.75).
    const amplitude = (t: number) => (t < 1 ? 0.25 : 0.75);
    const cases = [
      { name: "стерео-16.wav", wav: makeWav({ seconds: 2, channels: 2, bits: 16, amplitude }) },
      { name: "моно-24.wav", wav: makeWav({ seconds: 2, bits: 24, amplitude }) },
      { name: "8-бит.wav", wav: makeWav({ seconds: 2, bits: 8, amplitude }) },
      { name: "float.wav", wav: makeWav({ seconds: 2, bits: 32, float: true, amplitude }) },
    ];
    for (const c of cases) {
      const a = await uploadFile(user.bearer, { name: c.name, mime: "audio/wav", bytes: c.wav });
      await previewTask(a.assetId);
      expect(await stageOf(a.variantId), c.name).toEqual({ state: "done" });
      const w = await waveformOf(a.assetId, user.bearer);
      expect(w.version).toBe(1);
      expect(w.sampleRate).toBe(8000);
      expect(w.durationSec).toBeCloseTo(2, 3);
      expect(w.peaks).toHaveLength(1000);
      const tolerance = c.name.startsWith("8") ? 0.02 : 0.005;
      expect(Math.abs(mean(w.peaks.slice(10, 490)) - 0.25), c.name).toBeLessThan(tolerance);
      expect(Math.abs(mean(w.peaks.slice(510, 990)) - 0.75), c.name).toBeLessThan(tolerance);
      const previews = await previewsOf(a.assetId);
      expect(previews.map((p) => [p.size, p.width, p.height, p.mime_type])).toEqual([
        ["medium", 1280, 640, "image/png"],
        ["thumb", 320, 160, "image/png"],
      ]);
      const png = new Uint8Array(await (await env.MEDIA.get(previews[1].storage_key))!.arrayBuffer());
      expect(imageInfo(png)).toEqual({ mime: "image/png", width: 320, height: 160 });
    }
  });

  it("a WAV whose header declares 10 hours (or a streamed 0xFFFFFFFF) is read for what it holds and ends at once", async () => {
    const user = await signIn();
    const tenHours = 10 * 3600 * 8000 * 2;
    for (const declared of [tenHours, 0xffffffff]) {
      const a = await uploadFile(user.bearer, { name: `10-часов-${declared}.wav`, mime: "audio/wav", bytes: makeWav({ seconds: 1, declaredDataBytes: declared }) });
      const started = Date.now();
      await previewTask(a.assetId);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await waveformOf(a.assetId, user.bearer)).durationSec).toBeCloseTo(1, 3);
    }
  });

  it("a .wav that is not a WAV, a WAV with an unknown codec and a truncated header fail their preview with the reason", async () => {
    const user = await signIn();
    const adpcm = makeWav({ seconds: 0.1 });
    adpcm[20] = 2; // WAVE_FORMAT_ADPCM
    const cases = [
      { name: "ложь.wav", bytes: new TextEncoder().encode("ID3 это на самом деле mp3 ...".repeat(20)) as Uint8Array<ArrayBuffer>, reason: /не похоже на «WAV»/ },
      { name: "adpcm.wav", bytes: adpcm, reason: /кодек 0x2/ },
      { name: "обрезан.wav", bytes: makeWav({ seconds: 0.1 }).slice(0, 30), reason: /повреждён или обрезан/ },
    ];
    for (const c of cases) {
      const a = await uploadFile(user.bearer, { name: c.name, mime: "audio/wav", bytes: c.bytes });
      await previewTask(a.assetId, ["error"]);
      const stage = await stageOf(a.variantId);
      expect(stage.state, c.name).toBe("failed");
      expect(stage.reason, c.name).toMatch(c.reason);
      expect(await previewsOf(a.assetId)).toEqual([]);
    }
  });
});

describe("POST /api/asset/waveform/{id} (peaks from a browser)", () => {
  it("an MP3's preview waits for the browser; posted peaks become its waveform and PNG previews", async () => {
    const user = await signIn();
    const a = await uploadFile(user.bearer, { name: "песня.mp3", mime: "audio/mpeg", bytes: new Uint8Array(2048).fill(0xff) });
    await previewTask(a.assetId);
    expect(await stageOf(a.variantId)).toMatchObject({ state: "not_applicable", reason: expect.stringMatching(/браузер/) });
    await expectError(await call(`/api/asset/waveform/${a.assetId}/0`, { bearer: user.bearer }), 404);

    const peaks = Array.from({ length: 800 }, (_, i) => (i % 100) / 100);
    const body = { version: 1, sampleRate: 44100, durationSec: 212.5, peaks };
    const res = await call(`/api/asset/waveform/${a.assetId}`, { method: "POST", bearer: user.bearer, json: body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      buckets: 800,
      previews: [
        { size: "thumb", width: 320, height: 160 },
        { size: "medium", width: 1280, height: 640 },
      ],
      pending: false,
    });
    expect(await waveformOf(a.assetId, user.bearer)).toEqual(body);
    expect((await previewsOf(a.assetId)).map((p) => p.mime_type)).toEqual(["image/png", "image/png"]);
    const preview = await call(`/api/asset/content/preview/${a.assetId}/1/thumb`, { bearer: user.bearer });
    expect(preview.status).toBe(200);
    expect(preview.headers.get("content-type")).toBe("image/png");
  });

  it("refuses peaks out of 0..1, too many buckets, a wrong version; a stranger cannot post or read", async () => {
    const user = await signIn();
    const stranger = await signIn();
    const a = await uploadFile(user.bearer, { name: "звук.ogg", mime: "audio/ogg", bytes: new Uint8Array(64) });
    const post = (json: unknown, bearer = user.bearer, query = "") => call(`/api/asset/waveform/${a.assetId}${query}`, { method: "POST", bearer, json });
    const ok = { version: 1, sampleRate: 48000, durationSec: 3, peaks: [0, 0.5, 1] };
    await expectError(await post({ ...ok, peaks: [0, 1.5] }), 400);
    await expectError(await post({ ...ok, peaks: [-0.1] }), 400);
    await expectError(await post({ ...ok, peaks: [] }), 400);
    await expectError(await post({ ...ok, peaks: new Array(4001).fill(0.1) }), 400);
    await expectError(await post({ ...ok, version: 2 }), 400);
    await expectError(await post(ok, user.bearer, "?version=7"), 404);
    await expectError(await post(ok, stranger.bearer), 404);
    expect((await post(ok)).status).toBe(200);
    await expectError(await call(`/api/asset/waveform/${a.assetId}/0`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/asset/waveform/${a.assetId}/0`), 401);
  });
});
