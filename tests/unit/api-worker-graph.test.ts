import { describe, expect, it } from "vitest";
import { importGraph, importsOf, remixServerEntries } from "../setup/import-graph";

/**
 * Decision 032: the API Worker (wrangler.toml `edge-mam`: workers/app.ts and the Remix server build it bundles)
 * parses no file's bytes; what a request needs parsed is asked of the media Worker over the DECODER binding. This is
 * the permanent guard: a new route (or a service it calls) that imports a parser fails here, naming the import chain,
 * instead of quietly linking a decoder into the Worker that answers requests.
 */
const FORBIDDEN: { pattern: RegExp; what: string }[] = [
  { pattern: /^pkg:@jsquash\//, what: "the JPEG/PNG/WebP codecs and the resizer (WebAssembly)" },
  { pattern: /^pkg:@resvg\//, what: "the SVG rasteriser resvg (WebAssembly)" },
  { pattern: /^pkg:fflate$/, what: "the inflater of ZIP/office/PDF/PNG/TIFF streams" },
  { pattern: /^pkg:(exifr|mediabunny|css-tree)(\/|$)/, what: "the EXIF, audio/video and CSS parsers" },
  { pattern: /^workers\/services\/imaging\/(?!pure\.ts$|perceptual-hash\.ts$)/, what: "imaging: decoders, encoders, rasterisers" },
  {
    pattern: /^workers\/services\/media\/(decode|image-info|preview-check|gif-frames|media-probe|av-probe|svg-probe|svg-document|wav-peaks|office-thumbnail|document-card)\.ts$/,
    what: "media's parsers (./decode face)",
  },
  { pattern: /^workers\/services\/media\/extract\/(?!limits\.ts$|parse-limit\.ts$)/, what: "the document text extractor (office, ZIP, PDF, XML)" },
  { pattern: /^workers\/services\/shop\/(decode|watermarked-jpeg)\.ts$/, what: "the shop's watermark codec work" },
  { pattern: /^workers\/services\/tasks\/(runner|task-runner)\.ts$|^workers\/services\/tasks\/processing\/registry\.ts$/, what: "the task runner" },
  { pattern: /^workers\/(media|queue\/(consumer|operations))\.ts$|^workers\/media\//, what: "the media Worker's code" },
];

const apiWorker = importGraph(["workers/app.ts", ...remixServerEntries()]);
const mediaWorker = importGraph(["workers/media/media-worker.ts"]);

describe("the API Worker's static import graph (decision 032)", () => {
  it("reaches no decoder, parser or task runner", () => {
    const reached = [...apiWorker.parents.keys()].flatMap((module) => {
      const rule = FORBIDDEN.find((f) => f.pattern.test(module));
      return rule ? [`${module} (${rule.what}): ${apiWorker.pathTo(module)!.join(" → ")}`] : [];
    });
    expect(reached).toEqual([]);
  });

  it("asks the media Worker instead: each service that needs a parse imports the DECODER client", () => {
    for (const service of [
      "workers/services/wopi/wopi.service.ts",
      "workers/services/shop/listing-preview.ts",
      "workers/services/media/waveform.service.ts",
      "workers/services/media/preview.service.ts",
    ]) {
      expect(apiWorker.parents.has(service), service).toBe(true);
      expect(importsOf(service), service).toContain("workers/lib/decoder.ts");
    }
  });

  it("walks real imports: the media Worker's graph reaches the decoders the API Worker's does not", () => {
    for (const module of [
      "pkg:@jsquash/jpeg/encode",
      "pkg:@resvg/resvg-wasm",
      "pkg:fflate",
      "workers/services/media/extract/office.ts",
      "workers/services/media/preview-check.ts",
      "workers/services/shop/watermarked-jpeg.ts",
      "workers/services/tasks/task-runner.ts",
    ]) {
      expect(mediaWorker.pathTo(module), module).not.toBeNull();
      expect(apiWorker.parents.has(module), module).toBe(false);
    }
  });
});
