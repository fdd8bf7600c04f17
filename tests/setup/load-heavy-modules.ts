import { loadMediabunny } from "../../workers/services/media/load-mediabunny";

// mediabunny and unpdf are loaded here, in every test file's setup, because the module graph no longer brings them
// (heavy-modules-on-demand.ts): a file whose upload of a video or a PDF is still being processed when its last test
// ends would otherwise fetch their modules after the pool has stopped that file's worker, which fails the whole run.
// The specifier is not a literal, so that this file does not link unpdf into the graph either.
await Promise.all([loadMediabunny(), import(/* @vite-ignore */ String("unpdf"))]);
