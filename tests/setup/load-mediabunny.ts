import { loadMediabunny } from "../../workers/services/media/load-mediabunny";

// mediabunny is loaded here, in every test file's setup, because the module graph no longer brings it
// (mediabunny-on-demand.ts): a file whose upload of a video is still being processed when its last test ends would
// otherwise fetch mediabunny's modules after the pool has stopped that file's worker, which fails the whole run.
await loadMediabunny();
