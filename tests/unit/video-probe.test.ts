import { describe, expect, it, vi } from "vitest";
import { probeWithDeadline, type ProbeAnswer, type ProbeWorker } from "../../app/lib/video-probe";

/** A stand-in worker: answers `answer` after `afterMs`, or never (a demuxer spinning without awaiting). */
function fakeWorker(answer: ProbeAnswer | null, afterMs = 0) {
  const worker: ProbeWorker & { terminated: boolean; asked: string | null } = {
    terminated: false,
    asked: null,
    onmessage: null,
    onerror: null,
    postMessage(message) {
      worker.asked = message.link;
      if (answer) setTimeout(() => !worker.terminated && worker.onmessage?.({ data: answer } as MessageEvent<ProbeAnswer>), afterMs);
    },
    terminate() {
      worker.terminated = true;
    },
  };
  return worker;
}

describe("the browser's video probe (a Web Worker with a deadline)", () => {
  it("answers what the worker read, and terminates it", async () => {
    const worker = fakeWorker({ ok: true, seconds: 12.5 });
    expect(await probeWithDeadline(worker, "https://mam.test/v.webm", 1000)).toEqual({ ok: true, seconds: 12.5 });
    expect(worker.asked).toBe("https://mam.test/v.webm");
    expect(worker.terminated).toBe(true);
  });

  it("a worker that never answers (a looping demuxer) is terminated at the deadline", async () => {
    vi.useFakeTimers();
    try {
      const worker = fakeWorker(null);
      const outcome = probeWithDeadline(worker, "https://mam.test/loop.webm", 20_000);
      await vi.advanceTimersByTimeAsync(19_999);
      expect(worker.terminated).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await outcome).toEqual({ ok: false, why: "timeout" });
      expect(worker.terminated).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("an abort or a worker error ends it as unreadable", async () => {
    const controller = new AbortController();
    const worker = fakeWorker(null);
    const outcome = probeWithDeadline(worker, "x", 20_000, controller.signal);
    controller.abort();
    expect(await outcome).toEqual({ ok: false, why: "unreadable" });
    expect(worker.terminated).toBe(true);
    const failing = fakeWorker(null);
    const failed = probeWithDeadline(failing, "x", 20_000);
    failing.onerror?.(new Event("error"));
    expect(await failed).toEqual({ ok: false, why: "unreadable" });
  });
});
