/**
 * Reads a video's container in a Web Worker with a deadline before the proxy maker touches it on the page: a demuxer
 * that loops (mediabunny's WebM reader did on a crafted 518-byte file) would otherwise freeze the tab for good. The
 * worker is terminated at the deadline, whatever it is doing.
 */

/** What the probe worker answers. */
export type ProbeAnswer = { ok: true; seconds: number } | { ok: false; why: "noVideoTrack" | "unreadable" };

/** The probe's outcome: the worker's answer, or `timeout` when it was terminated at the deadline. */
export type ProbeOutcome = ProbeAnswer | { ok: false; why: "timeout" };

/** How long the container read may take (a Range request or two for a healthy file, even a large one). */
export const PROBE_DEADLINE_MS = 20_000;

/** The part of a Worker the probe uses (a stand-in in unit tests). */
export interface ProbeWorker {
  postMessage(message: { link: string }): void;
  terminate(): void;
  onmessage: ((event: MessageEvent<ProbeAnswer>) => void) | null;
  onerror: ((event: Event) => void) | null;
}

/** Runs the probe in `worker`, terminating it at `deadlineMs` or when `signal` aborts; the worker never outlives it. */
export function probeWithDeadline(worker: ProbeWorker, link: string, deadlineMs = PROBE_DEADLINE_MS, signal?: AbortSignal): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: ProbeOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      worker.terminate();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ ok: false, why: "timeout" }), deadlineMs);
    const onAbort = () => finish({ ok: false, why: "unreadable" });
    signal?.addEventListener("abort", onAbort);
    worker.onmessage = (event) => finish(event.data);
    worker.onerror = () => finish({ ok: false, why: "unreadable" });
    worker.postMessage({ link });
  });
}

/** The probe in a fresh module worker (bundled by Vite from video-probe.worker.ts). */
export function probeVideo(link: string, signal?: AbortSignal): Promise<ProbeOutcome> {
  const worker = new Worker(new URL("./video-probe.worker.ts", import.meta.url), { type: "module" });
  return probeWithDeadline(worker as unknown as ProbeWorker, link, PROBE_DEADLINE_MS, signal);
}
