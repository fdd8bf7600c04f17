import { describe, expect, it } from "vitest";
import { json } from "./asset-fixtures";
import { call, signIn } from "./factories";
import { endedTaskOf, uploadFile } from "./task-fixtures";
import { makeWav } from "../fixtures/media-makers";
import { fuzzedLoopingWebm, makeAvFile, makeLoopingWebm, makeMp3 } from "../fixtures/av-makers";

/**
 * Issue 38: audio and video get their technical data in the processing pipeline — mediabunny's demuxers in the media
 * Worker's tech-fields task, every demux bounded (workers/services/media/av-probe.ts) — and the viewer reads them
 * from GET /api/asset/tech-fields/{asset}/{variant}, as asserted here.
 */

type Stage = { state: string; reason?: string | null };

/** Uploads a file, waits for its tech-fields task to end, and answers what the viewer's request answers. */
async function uploadAndRead(bearer: string, name: string, mime: string, bytes: Uint8Array<ArrayBuffer>, timeout = 30_000) {
  const { assetId, variantId } = await uploadFile(bearer, { name, mime, bytes });
  const ended = await endedTaskOf(assetId, "tech-fields", ["done", "error"], timeout);
  const fields = await json<Record<string, unknown> & { processing: { tech: Stage } }>(
    await call(`/api/asset/tech-fields/${assetId}/${variantId}`, { bearer }),
  );
  const props = await json<Record<string, unknown>>(await call(`/api/asset/variant-tech-props/${variantId}`, { bearer }));
  return { fields, props, task: ended };
}

describe("audio and video technical data (mediabunny in the media Worker's tech-fields task)", () => {
  it("WAV and MP3: container, codec, sample rate, channels, duration and bit rate", async () => {
    const user = await signIn();
    const wav = await uploadAndRead(user.bearer, "запись.wav", "audio/wav", makeWav({ seconds: 2, sampleRate: 22050, channels: 2, bits: 16 }));
    expect(wav.fields).toMatchObject({ container: "WAVE", codecs: ["pcm-s16"], sample_rate: 22050, channels: 2, processing: { tech: { state: "done" } } });
    expect(wav.fields.duration).toBeCloseTo(2, 2);
    expect(wav.fields.bit_rate).toBeCloseTo(22050 * 2 * 16, -3);
    // The lists' numbers (tech_props) carry the duration too.
    expect(wav.props.duration).toBeCloseTo(2, 2);

    // No ID3 or Xing header: the length comes from counting the frames.
    const mp3 = await uploadAndRead(user.bearer, "песня.mp3", "audio/mpeg", makeMp3(2));
    expect(mp3.fields).toMatchObject({ container: "MP3", codecs: ["mp3"], sample_rate: 44100, channels: 2, processing: { tech: { state: "done" } } });
    expect(mp3.fields.duration).toBeCloseTo((77 * 1152) / 44100, 2);
    expect(mp3.fields.bit_rate).toBeCloseTo(128_000, -3);
  });

  it("an MP4 (H.264 + AAC) and a MediaRecorder-style WebM without a duration header get every field", async () => {
    const user = await signIn();
    const mp4 = await makeAvFile({ container: "mp4", seconds: 2, fps: 24, width: 640, height: 360, audio: true });
    const m = (await uploadAndRead(user.bearer, "ролик.mp4", "video/mp4", mp4)).fields;
    expect(m).toMatchObject({
      container: "MP4",
      codecs: ["avc1.42001e", "mp4a.40.2"],
      width: 640,
      height: 360,
      frame_rate: 24,
      sample_rate: 48000,
      channels: 2,
      processing: { tech: { state: "done" } },
    });
    expect(m.duration).toBeCloseTo(2, 1);
    expect(m.bit_rate).toBe(Math.round((mp4.byteLength * 8) / (m.duration as number)));

    const webm = await makeAvFile({ container: "webm", seconds: 4, fps: 30, audio: true, appendOnly: true });
    const w = (await uploadAndRead(user.bearer, "звонок.webm", "video/webm", webm)).fields;
    expect(w).toMatchObject({ container: "WebM", codecs: ["vp8", "opus"], width: 320, height: 240, frame_rate: 30, sample_rate: 48000, channels: 2 });
    // The header says nothing; the real length comes from the last cluster.
    expect(w.duration).toBeCloseTo(4, 1);
  });

  it("a MediaRecorder WebM larger than the 16 MiB the task reads first is measured to its end through range reads", async () => {
    const user = await signIn();
    // 6 s at 30 fps of 96 KiB packets: about 17 MiB, so its last clusters lie past the head.
    const webm = await makeAvFile({ container: "webm", seconds: 6, fps: 30, appendOnly: true, packetBytes: 96 * 1024 });
    expect(webm.byteLength).toBeGreaterThan(16 * 1024 * 1024);
    const { fields } = await uploadAndRead(user.bearer, "длинный звонок.webm", "video/webm", webm, 60_000);
    expect(fields).toMatchObject({ container: "WebM", codecs: ["vp8"], width: 320, height: 240, processing: { tech: { state: "done" } } });
    expect(fields.duration).toBeCloseTo(6, 1);
  });

  it("a video cut before its index, and bytes that only claim to be video, fail the stage with why", async () => {
    const user = await signIn();
    // A camera's MP4 keeps its index (moov) after the media data: the first half of the file has no tracks to read.
    const whole = await makeAvFile({ container: "mp4", seconds: 2, fps: 25, audio: true, moovLast: true });
    const cut = whole.slice(0, Math.floor(whole.byteLength / 2));
    const noise = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) & 0xff);
    for (const [name, bytes] of [
      ["обрезанный.mp4", cut],
      ["не видео.mp4", noise],
    ] as const) {
      const { fields, task } = await uploadAndRead(user.bearer, name, "video/mp4", bytes);
      expect(fields.processing.tech, name).toEqual({
        state: "failed",
        reason: "дорожки аудио или видео не прочитаны: файл повреждён, обрезан или в формате, который сервер не разбирает",
      });
      expect(fields.duration, name).toBeUndefined();
      expect(fields.codecs, name).toBeUndefined();
      // The file is kept and the task ends; only the stage says what went wrong.
      expect(task.status, name).toBe("done");
    }
  });

  it("the crafted WebMs that looped mediabunny forever end within seconds, their stage failed with «нет данных»", async () => {
    const user = await signIn();
    const started = Date.now();
    for (const [name, bytes] of [
      ["петля.webm", makeLoopingWebm()],
      ["найдено-фаззером.webm", fuzzedLoopingWebm()],
    ] as const) {
      const { fields, task } = await uploadAndRead(user.bearer, name, "video/webm", bytes, 15_000);
      expect(fields.processing.tech.state, name).toBe("failed");
      expect(fields.processing.tech.reason, name).toMatch(/разбор контейнера .* — нет данных$/);
      expect(fields.duration, name).toBeUndefined();
      // A budget is a limit: the task names the file and is not retried into the same wall.
      expect(task).toMatchObject({ status: "error", attempts: 0 });
    }
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
