/**
 * The demux of the browser's proxy maker, in a dedicated Web Worker (video-probe.ts): mediabunny reads the
 * container's metadata and the last packet's time here, so a file that makes a demuxer loop without awaiting (a
 * crafted WebM did) blocks this worker, which the page terminates at its deadline, never the page itself.
 */
import { ALL_FORMATS, Input, UrlSource } from "mediabunny";
import type { ProbeAnswer } from "./video-probe";

const post = (answer: ProbeAnswer) => (self as unknown as { postMessage: (a: ProbeAnswer) => void }).postMessage(answer);

self.onmessage = async (event: MessageEvent<{ link: string }>) => {
  const input = new Input({ source: new UrlSource(event.data.link), formats: ALL_FORMATS });
  try {
    const track = await input.getPrimaryVideoTrack();
    if (!track) return post({ ok: false, why: "noVideoTrack" });
    post({ ok: true, seconds: await input.computeDuration() });
  } catch {
    post({ ok: false, why: "unreadable" });
  } finally {
    input.dispose();
  }
};
