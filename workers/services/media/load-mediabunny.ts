type Mediabunny = typeof import("mediabunny");

let loading: Promise<Mediabunny> | undefined;

/**
 * mediabunny (the audio/video demuxers, about 2 MB of code), loaded by the first audio or video probe of an isolate
 * instead of with the media Worker: pictures and documents never need it. Deployed, wrangler's esbuild bundles this
 * literal import into the Worker's one script, evaluated on first call.
 *
 * The integration tier replaces this import with one Vite does not follow (tests/setup/mediabunny-on-demand.ts):
 * a module Vite links into the product's graph is sent whole to every later test file's worker in one WebSocket
 * message, and mediabunny would push that message past workerd's 32 MiB limit (decision 032). The promise is kept
 * because the test runner asks its host about every `import()` it evaluates, even of a module it has loaded: a probe
 * still running after a test file's last test would ask a host that has stopped serving that file.
 */
export function loadMediabunny(): Promise<Mediabunny> {
  loading ??= import("mediabunny").catch((error: unknown) => {
    // A failed load (a deploy in progress, a memory limit) is tried again by the next probe.
    loading = undefined;
    throw error;
  });
  return loading;
}
