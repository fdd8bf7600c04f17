import { describe, expect, it } from "vitest";
import { createStartFilter, startBanner } from "../../scripts/start-output.mjs";

/** What `wrangler dev` printed before the address on a fresh `npm start` (abridged: one binding row per kind). */
const TRANSCRIPT = [
  " ⛅️ wrangler 4.156.2 (update available 4.164.0)",
  "───────────────────────────────────────────────",
  "edge-mam has access to the following bindings:",
  "Binding                                                 Resource                  Mode",
  "env.DB (edge-mam)                                       D1 Database               local",
  'env.JWT_SECRET ("(hidden)")                             Environment Variable      local',
  "❓ Your types might be out of date. Re-run `wrangler types` to ensure your types are correct.",
  "▲ [WARNING] Scheduled Workers are not automatically triggered during local development.",
  "  To manually trigger a scheduled event, run:",
  '    curl "http://127.0.0.1:8799/cdn-cgi/local/scheduled"',
  "⎔ Starting local server...",
  "\u001b[33m▲ [WARNING]\u001b[0m Couldn't load fs",
  "▲ [WARNING] Couldn't load zlib",
  '[edge-mam-media] {"level":"info","queue":"edge-mam-tasks","op":"task-wakeup","summary":"no runnable task"}',
  "[wrangler:info] Ready on http://0.0.0.0:8787",
  "",
].join("\n");

describe("npm start output", () => {
  it("sends the bindings table, the fs/zlib warnings and the types notice to the log only", () => {
    const filter = createStartFilter();
    // Chunks split mid-line, as a pipe delivers them.
    const shown = [...filter.push(TRANSCRIPT.slice(0, 100)), ...filter.push(TRANSCRIPT.slice(100)), ...filter.flush()];
    expect(shown).toEqual([]);
  });

  it("still shows errors with their indented details", () => {
    const filter = createStartFilter();
    const shown = filter.push(
      [
        "env.DB (edge-mam)   D1 Database   local",
        "✘ [ERROR] Address already in use (127.0.0.1:8787). Please check that you are not already running a server.",
        "    at listen (node:net:1)",
        "▲ [WARNING] Couldn't load zlib",
        '[edge-mam] {"level":"error","message":"boom"}',
        "",
      ].join("\n"),
    );
    expect(shown).toEqual([
      "✘ [ERROR] Address already in use (127.0.0.1:8787). Please check that you are not already running a server.",
      "    at listen (node:net:1)",
      '[edge-mam] {"level":"error","message":"boom"}',
    ]);
  });

  it("ends with the framed block: address, login and the log file", () => {
    const banner: string = startBanner("8805", { ADMIN_LOGIN: "admin", ADMIN_PASSWORD: "secret" });
    expect(banner).toContain("http://localhost:8805");
    expect(banner).toContain("admin");
    expect(banner).toContain(".wrangler/logs/start.log");
    expect(banner.trim().split("\n")[0]).toMatch(/^┌─+┐$/);
    expect(banner.trim().split("\n").at(-1)).toMatch(/^└─+┘$/);
  });
});
