import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { devVarsText, MEDIA_CONFIG, mediaConfigFor } from "../../scripts/media-config.mjs";

const ROOT = new URL("../..", import.meta.url).pathname;
const config = readFileSync(join(ROOT, MEDIA_CONFIG), "utf8");

/** The media Worker's config as `wrangler dev` gets it next to its own .dev.vars (scripts/media-config.mjs). */
describe("media Worker dev config", () => {
  it("points main and the migrations at the repository from wherever it is written", () => {
    const out = mediaConfigFor(config, join(ROOT, ".wrangler", "media-worker"));
    expect(out).toContain('main = "../../workers/media/media-worker.ts"');
    expect(out).toContain('migrations_dir = "../../migrations"');
    expect(out).toContain('name = "edge-mam-media"');
    expect(out).not.toContain("[images]");
  });

  it("consumes the queue and its dead-letter queue, with a CPU limit", () => {
    expect(config).toMatch(/\[limits\]\ncpu_ms = \d+/);
    expect(config).toContain('[[queues.consumers]]\nqueue = "edge-mam-tasks"\n');
    expect(config).toContain('[[queues.consumers]]\nqueue = "edge-mam-tasks-dlq"\n');
    // the API Worker no longer consumes anything
    expect(readFileSync(join(ROOT, "wrangler.toml"), "utf8")).not.toContain("[[queues.consumers]]");
  });

  it("adds the Images binding when asked, and refuses a config whose paths it cannot rewrite", () => {
    expect(mediaConfigFor(config, "/tmp/x", { images: true })).toMatch(/\[images\]\nbinding = "IMAGES"\n$/);
    expect(() => mediaConfigFor(config.replace('main = "media-worker.ts"', 'main = "other.ts"'), "/tmp/x")).toThrow(/main = "media-worker.ts"/);
  });

  it("binds the search index's shards the API Worker binds, each once (decision 042)", () => {
    expect(mediaConfigFor(config, "/tmp/x")).not.toContain("SEARCH_1");
    const four = mediaConfigFor(config, "/tmp/x", { searchShards: 4 });
    for (const shard of ["SEARCH_1", "SEARCH_2", "SEARCH_3"]) expect(four.split(`binding = "${shard}"`)).toHaveLength(2);
    expect(four).not.toContain("SEARCH_4");
    // a media config that binds some already (an install with shards) gets only the others
    const withOne = config.replace('binding = "SEARCH"', 'binding = "SEARCH_1"\n[[d1_databases]]\nbinding = "SEARCH"');
    expect(mediaConfigFor(withOne, "/tmp/x", { searchShards: 4 }).split('binding = "SEARCH_1"')).toHaveLength(2);
  });

  it("has the same [vars] as the API Worker (both read one configuration, workers/lib/config.ts)", () => {
    /** The `NAME = "value"` lines of a config's [vars] table, comments left out. */
    const varsOf = (text: string) => {
      const table = text.slice(text.indexOf("\n[vars]\n") + 8);
      return table
        .slice(0, table.search(/\n\[/))
        .split("\n")
        .filter((line) => /^[A-Z][A-Z0-9_]* = /.test(line));
    };
    const api = varsOf(readFileSync(join(ROOT, "wrangler.toml"), "utf8"));
    expect(api.length).toBeGreaterThan(5);
    expect(varsOf(config)).toEqual(api);
  });

  it("writes the secrets as .dev.vars lines", () => {
    expect(devVarsText({ JWT_SECRET: "s".repeat(40), ADMIN_PASSWORD: "p" })).toBe(`JWT_SECRET=${"s".repeat(40)}\nADMIN_PASSWORD=p\n`);
  });
});
