/// <reference lib="webworker" />
import { FetchXMLHttpRequest } from "./fetch-xhr";
import { uploadClientPreview } from "../lib/client-preview";
import { startUploadEngine } from "../lib/upload-engine/engine";
import { TabLocks } from "../lib/upload-engine/tab-locks";
import { WorkerApi } from "../lib/upload-engine/worker-api";
import { UploadWorkerHost } from "../lib/upload-engine/worker-host";

/**
 * The upload Service Worker (/upload-sw.js, built by vite.sw.config.ts): hosts the upload engine for every tab of the
 * app and speaks SPEC §7's messages with them. It has no fetch handler: it never stands between the app and the
 * network, it only moves upload bytes.
 */
declare const self: ServiceWorkerGlobalScope;

// Uppy's S3 client sends through XMLHttpRequest, which workers lack; it also waits for `window`'s `online` event
// when the network drops (the worker's global scope is the closest thing it has).
const scope = self as unknown as Record<string, unknown>;
scope.XMLHttpRequest ??= FetchXMLHttpRequest;
scope.window ??= self;

const api = new WorkerApi(self.location.origin);
const host = new UploadWorkerHost({
  api,
  locks: new TabLocks(),
  startEngine: (bus) =>
    startUploadEngine(bus, {
      api: (path, options) => api.request(path, options),
      uploadPreview: (assetId, file) => uploadClientPreview(assetId, file, (path, options) => api.request(path, options)),
    }),
  broadcast: (event) => {
    void self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((clients) => {
      for (const client of clients) client.postMessage(event);
    });
  },
});

// No skipWaiting: a new version waits until every tab of the app is closed, so it never cuts off the uploads of the
// one running now (the tabs keep posting to the active worker).
self.addEventListener("message", (event) => host.receive(event.data));
