import { describe, expect, it } from "vitest";
import { BufferSource, Input, ALL_FORMATS } from "mediabunny";
import { guardReads, probeAv } from "../../workers/services/media/av-probe";
import { ParseLimitError } from "../../workers/services/media/extract/parse-limit";
import { fuzzedLoopingWebm, makeAvFile, makeLoopingWebm } from "../fixtures/av-makers";

const whole = (bytes: Uint8Array) => ({ size: bytes.length, head: bytes, read: async () => null });

describe("audio/video technical data (mediabunny, bounded)", () => {
  it("an MP4 with H.264 and AAC: container, codecs, size, frame rate, sample rate, channels, duration, bit rate", async () => {
    const mp4 = await makeAvFile({ container: "mp4", seconds: 2, fps: 25, width: 640, height: 360, audio: true });
    const f = await probeAv(whole(mp4));
    expect(f).toMatchObject({ container: "MP4", width: 640, height: 360, frame_rate: 25, sample_rate: 48000, channels: 2 });
    expect(f!.codecs).toEqual(["avc1.42001e", "mp4a.40.2"]);
    expect(f!.duration).toBeCloseTo(2, 1);
    expect(f!.bit_rate).toBe(Math.round((mp4.length * 8) / f!.duration!));
  });

  it("a MediaRecorder-style WebM (append-only, no duration header) gets its real duration from the last cluster", async () => {
    const webm = await makeAvFile({ container: "webm", seconds: 3, fps: 30, audio: true, appendOnly: true });
    const header = await new Input({ source: new BufferSource(webm), formats: ALL_FORMATS }).getDurationFromMetadata();
    expect(header ?? 0).toBe(0);
    const f = await probeAv(whole(webm));
    expect(f).toMatchObject({ container: "WebM", width: 320, height: 240, frame_rate: 30, sample_rate: 48000, channels: 2 });
    expect(f!.codecs).toEqual(["vp8", "opus"]);
    expect(f!.duration).toBeCloseTo(3, 1);
  });

  it("the crafted 518-byte WebM that spun mediabunny forever ends within a second with «нет данных»", async () => {
    const started = Date.now();
    const error = await probeAv(whole(makeLoopingWebm())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParseLimitError);
    expect((error as ParseLimitError).reason).toMatch(/нет данных/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("the fuzzer's 518-byte WebM (getPrimaryVideoTrack never returned) ends within a second with «нет данных»", async () => {
    const bytes = fuzzedLoopingWebm();
    expect(bytes.length).toBe(518);
    const started = Date.now();
    const error = await probeAv(whole(bytes)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParseLimitError);
    expect((error as ParseLimitError).reason).toMatch(/нет данных/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("the read guard throws past its budget, and refuses a source without the slice reader it hooks", () => {
    const guarded = guardReads(new BufferSource(new Uint8Array(8)), 2) as unknown as { _read: (a: number, b: number) => unknown };
    guarded._read(0, 1);
    guarded._read(0, 1);
    expect(() => guarded._read(0, 1)).toThrow(ParseLimitError);
    expect(() => guardReads({} as never, 1)).toThrow(ParseLimitError);
  });

  it("bytes that are no media are no media (null), not an error", async () => {
    expect(await probeAv(whole(new TextEncoder().encode("просто текст, не видео".repeat(20))))).toBeNull();
  });
});
