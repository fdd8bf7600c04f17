import { describe, expect, it, vi } from "vitest";
import { rows } from "./asset-fixtures";
import { signIn } from "./factories";
import { tasksOf, uploadFile, waitForTask } from "./task-fixtures";
import { makeWav } from "../fixtures/media-makers";
import { fuzzedLoopingWebm, makeAvFile, makeLoopingWebm, makeMp3 } from "../fixtures/av-makers";

/** Technical data of audio and video read by mediabunny in the media Worker's tech-fields task, every demux bounded. */

async function techOf(assetId: string, variantId: string, timeout = 30_000) {
  const task = await vi.waitFor(
    async () => {
      const found = (await tasksOf(assetId)).find((t) => t.operation_class === "tech-fields");
      if (!found) throw new Error("no tech-fields task yet");
      return found;
    },
    { timeout: 10_000, interval: 50 },
  );
  await waitForTask(task.id, ["done", "error"], timeout);
  const [row] = await rows<{ t: string | null; p: string | null }>("select tech_fields as t, tech_props as p from variants where id = ?", variantId);
  return { fields: JSON.parse(row.t ?? "{}") as Record<string, unknown>, props: JSON.parse(row.p ?? "{}") as Record<string, unknown> };
}

describe("audio and video technical data (mediabunny in the media Worker)", () => {
  it("WAV and MP3: container, codec, sample rate, channels, duration and bit rate", async () => {
    const user = await signIn();
    const wav = makeWav({ seconds: 2, sampleRate: 22050, channels: 2, bits: 16 });
    const a = await uploadFile(user.bearer, { name: "запись.wav", mime: "audio/wav", bytes: wav });
    const { fields, props } = await techOf(a.assetId, a.variantId);
    expect(fields).toMatchObject({ container: "WAVE", sample_rate: 22050, channels: 2, codecs: ["pcm-s16"] });
    expect(fields.duration).toBeCloseTo(2, 2);
    expect(fields.bit_rate).toBeCloseTo(22050 * 2 * 16, -3);
    expect(props.duration).toBeCloseTo(2, 2);
    expect((fields.processing as { tech: unknown }).tech).toEqual({ state: "done" });

    // An MP3 with no ID3 or Xing header: its length comes from counting its frames.
    const b = await uploadFile(user.bearer, { name: "песня.mp3", mime: "audio/mpeg", bytes: makeMp3(2) });
    const mp3 = (await techOf(b.assetId, b.variantId)).fields;
    expect(mp3).toMatchObject({ container: "MP3", codecs: ["mp3"], sample_rate: 44100, channels: 2 });
    expect(mp3.duration).toBeCloseTo((77 * 1152) / 44100, 2);
    expect(mp3.bit_rate).toBeCloseTo(128_000, -3);
  });

  it("MP4 (H.264 + AAC) and a MediaRecorder-style WebM without a duration header get every field", async () => {
    const user = await signIn();
    const mp4 = await makeAvFile({ container: "mp4", seconds: 2, fps: 24, width: 640, height: 360, audio: true });
    const a = await uploadFile(user.bearer, { name: "ролик.mp4", mime: "video/mp4", bytes: mp4 });
    const m = (await techOf(a.assetId, a.variantId)).fields;
    expect(m).toMatchObject({ container: "MP4", width: 640, height: 360, frame_rate: 24, sample_rate: 48000, channels: 2, codecs: ["avc1.42001e", "mp4a.40.2"] });
    expect(m.duration).toBeCloseTo(2, 1);
    expect(m.bit_rate).toBeGreaterThan(0);

    const webm = await makeAvFile({ container: "webm", seconds: 4, fps: 30, audio: true, appendOnly: true });
    const b = await uploadFile(user.bearer, { name: "звонок.webm", mime: "video/webm", bytes: webm });
    const w = (await techOf(b.assetId, b.variantId)).fields;
    expect(w).toMatchObject({ container: "WebM", width: 320, height: 240, frame_rate: 30, codecs: ["vp8", "opus"] });
    // The header says nothing; the real length comes from the last cluster.
    expect(w.duration).toBeCloseTo(4, 1);
  });

  it("the crafted 518-byte WebM that looped mediabunny forever ends within seconds, its stage failed with «нет данных»", async () => {
    const user = await signIn();
    const started = Date.now();
    for (const [name, bytes] of [
      ["петля.webm", makeLoopingWebm()],
      ["найдено-фаззером.webm", fuzzedLoopingWebm()],
    ] as const) {
      const a = await uploadFile(user.bearer, { name, mime: "video/webm", bytes });
      const { fields } = await techOf(a.assetId, a.variantId, 15_000);
      const tech = (fields.processing as { tech: { state: string; reason: string } }).tech;
      expect(tech.state, name).toBe("failed");
      expect(tech.reason, name).toMatch(/нет данных/);
      expect(fields.duration, name).toBeUndefined();
    }
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
