/**
 * mediabunny (the audio/video demuxers, about 2 MB of code), loaded by the first audio or video probe of an isolate
 * instead of with the media Worker: pictures and documents never need it. Deployed, wrangler's esbuild bundles this
 * literal import into the Worker's one script, evaluated on first call.
 *
 * The integration tier replaces this import with one Vite does not follow (tests/setup/mediabunny-on-demand.ts):
 * a module Vite links into the product's graph is sent whole to every later test file's worker in one WebSocket
 * message, and mediabunny would push that message past workerd's 32 MiB limit (decision 032).
 */
export function loadMediabunny(): Promise<typeof import("mediabunny")> {
  return import("mediabunny");
}
