import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startDevServer } from "../../scripts/dev-server.mjs";
import { expect, login, newPage, test, type E2EServer } from "./fixtures";

// Browser error tracking (decision 015). Without SENTRY_DSN (the shared e2e server) the page loads no SDK at all.
// With one (a second `wrangler dev` of our own, its DSN pointing at a local capture server that answers like
// Sentry's ingest), a React render error reaches the capture server as an event, with the buffered session replay
// that replaysOnErrorSampleRate 1 sends, and traces sampled at 1.

const BASE_PORT = Number(process.env.E2E_PORT ?? 8799);
const APP_PORT = BASE_PORT + 1;
const CAPTURE_PORT = BASE_PORT + 2;
const DSN = `http://browserkey@127.0.0.1:${CAPTURE_PORT}/7`;

interface Item {
  type: string;
  payload: Record<string, unknown>;
}
interface Envelope {
  header: { trace?: { sample_rate?: string; sampled?: string; replay_id?: string } };
  items: Item[];
}

const envelopes: Envelope[] = [];
let capture: Server;
let tracked: E2EServer;
let stopApp: (() => Promise<void>) | undefined;
let persistDir: string;

/** Sentry envelopes: a JSON header line, then item header and payload lines (replay recordings are binary). */
function parseEnvelope(raw: Buffer): Envelope {
  const text = raw.toString("latin1");
  const lines = text.split("\n");
  const header = JSON.parse(lines[0]) as Envelope["header"];
  const items: Item[] = [];
  for (let i = 1; i + 1 < lines.length; i += 2) {
    try {
      const itemHeader = JSON.parse(lines[i]) as { type: string };
      const payload =
        itemHeader.type === "replay_recording"
          ? {}
          : (JSON.parse(Buffer.from(lines[i + 1], "latin1").toString("utf8")) as Record<string, unknown>);
      items.push({ type: itemHeader.type, payload });
      if (itemHeader.type === "replay_recording") break; // binary payload: nothing readable after it
    } catch {
      break;
    }
  }
  return { header, items };
}

beforeAll(async () => {
  capture = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url?.startsWith("/api/7/envelope/")) envelopes.push(parseEnvelope(Buffer.concat(chunks)));
      // the browser posts from the app's origin: answer like Sentry's ingest, CORS included
      res.writeHead(200, { "access-control-allow-origin": "*", "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => capture.listen(CAPTURE_PORT, "127.0.0.1", resolve));
  persistDir = await mkdtemp(join(tmpdir(), "mam-e2e-sentry-"));
  const app = await startDevServer({ port: APP_PORT, persistDir, vars: { SENTRY_DSN: DSN } });
  stopApp = app.stop;
  tracked = { baseUrl: app.url, adminLogin: app.adminLogin, adminPassword: app.adminPassword };
}, 180_000);

afterAll(async () => {
  await stopApp?.();
  await new Promise((resolve) => capture?.close(resolve));
  await rm(persistDir, { recursive: true, force: true, maxRetries: 3 });
});

test("without SENTRY_DSN the page loads no error tracking and sends nothing", async ({ page, server }) => {
  const requested: string[] = [];
  page.on("request", (r) => requested.push(r.url()));
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto("/admin/survey");
  await page.getByTestId("admin-survey").waitFor();
  expect(await page.evaluate(() => "__SENTRY__" in window)).toBe(false);
  expect(requested.filter((url) => !url.startsWith(server.baseUrl))).toEqual([]);
});

test(
  "with SENTRY_DSN a React render error reaches the capture server with its replay and traces at rate 1",
  { timeout: 120_000 },
  async ({ browser }) => {
    const { page, errors } = await newPage(browser, { server: tracked });
    // The error boundary logs what it caught, and the malformed answer is the point of the test.
    errors.expect(/Cannot read properties of undefined/);
    await login(page, tracked.adminLogin, tracked.adminPassword);
    await page.goto("/mam");
    await expect.poll(() => page.evaluate(() => "__SENTRY__" in window), { timeout: 20_000 }).toBe(true);

    // A summary answer without its fields: /admin/survey fails while rendering it.
    await page.route("**/api/pqi/summary*", (route) => route.fulfill({ status: 200, contentType: "application/json", body: "{}" }));
    await page.getByRole("link", { name: "Администрирование" }).click();
    await page.getByRole("link", { name: "Опрос", exact: true }).click();
    await page.getByText("Что-то пошло не так").waitFor();

    const errorEvent = () =>
      envelopes
        .flatMap((e) => e.items.filter((i) => i.type === "event").map((i) => ({ envelope: e, event: i.payload })))
        .find(({ event }) => JSON.stringify(event.exception ?? "").includes("Cannot read properties of undefined"));
    await expect.poll(() => errorEvent() !== undefined, { timeout: 30_000 }).toBe(true);
    const { envelope, event } = errorEvent()!;
    expect(envelope.header.trace).toMatchObject({ sample_rate: "1", sampled: "true" });
    expect(JSON.stringify(event)).not.toContain(await page.evaluate(() => localStorage.getItem("accessToken")!));

    // The running client has SPEC §9's rates (read through the SDK's global carrier and its public getters).
    const rates = await page.evaluate(() => {
      const carrier = (window as unknown as { __SENTRY__: Record<string, unknown> & { version: string } }).__SENTRY__;
      const scope = (carrier[carrier.version] as { defaultCurrentScope: { getClient(): { getOptions(): Record<string, number> } } })
        .defaultCurrentScope;
      const o = scope.getClient().getOptions();
      return [o.tracesSampleRate, o.replaysSessionSampleRate, o.replaysOnErrorSampleRate];
    });
    expect(rates).toEqual([1, 0.1, 1]);

    // A replay goes with the error: the buffered one (replay on error, rate 1), or the whole session (1 in 10).
    const replay = () => envelopes.flatMap((e) => e.items).find((i) => i.type === "replay_event");
    await expect.poll(() => replay() !== undefined, { timeout: 30_000 }).toBe(true);
    const replayEvent = replay()!.payload as { replay_type?: string; error_ids?: string[] };
    expect(["buffer", "session"]).toContain(replayEvent.replay_type);
    if (replayEvent.replay_type === "buffer") expect(replayEvent.error_ids).toContain(event.event_id);
    await page.context().close();
  },
);
