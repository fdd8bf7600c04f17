import { describe, expect, it } from "vitest";
import { createChannel, createEngineBus } from "../../app/lib/upload-engine/bus";
import type { EngineEvent } from "../../app/lib/upload-engine/messages";

// The engine's message line (SPEC §7): delivery like postMessage (asynchronous, in order, buffered until the
// engine listens), so the engine behaves the same in the page or in a Web Worker.

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("engine message channel", () => {
  it("delivers asynchronously and in order", async () => {
    const channel = createChannel<number>();
    const seen: number[] = [];
    channel.subscribe((n) => seen.push(n));
    channel.post(1);
    channel.post(2);
    expect(seen).toEqual([]);
    await tick();
    channel.post(3);
    await tick();
    expect(seen).toEqual([1, 2, 3]);
  });

  it("keeps messages posted before anyone listens for the first listener", async () => {
    const { toEngine } = createEngineBus();
    toEngine.post({ type: "init", bearer: "t", serverId: null, maxParallel: 2 });
    toEngine.post({ type: "notClose" });
    await tick();
    const seen: string[] = [];
    toEngine.subscribe((m) => seen.push(m.type));
    await tick();
    expect(seen).toEqual(["init", "notClose"]);
  });

  it("stops delivering to a listener that unsubscribed, and one failing listener does not stop the others", async () => {
    const channel = createChannel<EngineEvent>();
    const seen: string[] = [];
    const off = channel.subscribe((e) => seen.push(`a:${e.type}`));
    const original = console.warn;
    console.warn = () => undefined;
    channel.subscribe(() => {
      throw new Error("broken");
    });
    channel.subscribe((e) => seen.push(`c:${e.type}`));
    channel.post({ type: "cancelUpload", id: "x", assetId: null });
    await tick();
    off();
    channel.post({ type: "uploadError", id: "x", message: "m" });
    await tick();
    console.warn = original;
    expect(seen).toEqual(["a:cancelUpload", "c:cancelUpload", "c:uploadError"]);
  });
});
