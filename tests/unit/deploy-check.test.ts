import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { bindingsOf, bundleSize, PAID_GZIP_LIMIT, undocumented } from "../../scripts/deploy-check.mjs";

/** The pieces of scripts/deploy-check.mjs that decide pass or fail (the script itself runs in `npm test`). */
describe("deploy check", () => {
  const listing = [
    "Your Worker has access to the following bindings:",
    "Binding                                  Resource",
    "env.UPLOADS (UploadQueueDO)              Durable Object",
    "env.DB (edge-mam)                        D1 Database",
    'env.ADMIN_LOGIN ("admin")                Environment Variable',
    "--dry-run: exiting now.",
  ].join("\n");

  it("reads the binding names from wrangler's dry-run listing", () => {
    expect(bindingsOf(listing)).toEqual(["UPLOADS", "DB", "ADMIN_LOGIN"]);
    expect(bindingsOf("no bindings here")).toEqual([]);
  });

  it("names every binding the README does not mention in backticks", () => {
    const readme = "| `DB` | D1 | records |\nUPLOADS without backticks does not count";
    expect(undocumented(["UPLOADS", "DB", "ADMIN_LOGIN"], readme)).toEqual(["UPLOADS", "ADMIN_LOGIN"]);
  });

  it("sums raw and gzip sizes of the uploaded modules, leaving out source maps and wrangler's README", () => {
    const dir = mkdtempSync(join(tmpdir(), "deploy-check-test-"));
    try {
      const js = Buffer.from("export default {};\n".repeat(1000));
      const wasm = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251));
      writeFileSync(join(dir, "app.js"), js);
      writeFileSync(join(dir, "codec.wasm"), wasm);
      writeFileSync(join(dir, "app.js.map"), "x".repeat(100_000));
      writeFileSync(join(dir, "README.md"), "wrangler's note");
      const size = bundleSize(dir);
      expect(size.raw).toBe(js.length + wasm.length);
      expect(size.gzip).toBe(gzipSync(js).length + gzipSync(wasm).length);
      expect(size.modules.map((m: { file: string }) => m.file).sort()).toEqual(["app.js", "codec.wasm"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails above the Workers Paid plan's 10 MiB gzip limit", () => {
    expect(PAID_GZIP_LIMIT).toBe(10 * 1024 * 1024);
  });
});
