import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { flush } from "@sentry/cloudflare";
import app from "../../workers/app";
import { expectConsoleError } from "../setup/fail-on-console-error";
import { ORIGIN, REFRESH_COOKIE, signIn } from "./factories";

/**
 * Error tracking in the Worker (decision 015) against a local capture endpoint: every outbound fetch of the isolate
 * is observed, and the DSN's host answers like Sentry's ingest (200 to an envelope). Storage is broken on purpose
 * (a D1 whose every statement fails), so the errors are the Worker's own, not thrown by the test.
 */
const DSN = "https://publickey123@errors.mam.test/42";
const ENVELOPE_URL = "https://errors.mam.test/api/42/envelope/";

interface Envelope {
  header: { event_id?: string; dsn?: string; trace?: { sample_rate?: string; sampled?: string; public_key?: string } };
  items: { type: string; payload: Record<string, unknown> }[];
  raw: string;
}

function parseEnvelope(raw: string): Envelope {
  const lines = raw.split("\n").filter(Boolean);
  const header = JSON.parse(lines[0]) as Envelope["header"];
  const items: Envelope["items"] = [];
  for (let i = 1; i + 1 < lines.length; i += 2) {
    const itemHeader = JSON.parse(lines[i]) as { type: string };
    items.push({ type: itemHeader.type, payload: JSON.parse(lines[i + 1]) as Record<string, unknown> });
  }
  return { header, items, raw };
}

/**
 * Records every outbound request of the isolate; the capture endpoint answers 200, anything else goes out as usual.
 * Vitest restores spies before each test, so each test installs its own, and the SDK is flushed before it goes.
 */
function captureOutbound() {
  const realFetch = globalThis.fetch;
  const outbound: { url: string; body: string }[] = [];
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    outbound.push({ url: request.url, body: await request.clone().text() });
    if (request.url.startsWith(ENVELOPE_URL)) return new Response("{}", { status: 200 });
    return realFetch(input, init);
  });
  return {
    outbound,
    envelopes: () => outbound.filter((o) => o.url.startsWith(ENVELOPE_URL)).map((o) => parseEnvelope(o.body)),
    restore: () => spy.mockRestore(),
  };
}

let capture: ReturnType<typeof captureOutbound> | undefined;
afterEach(async () => {
  await flush(2000);
  capture?.restore();
});

/** A D1 database whose every statement fails, as when the binding is down. */
const brokenDb = new Proxy(
  {},
  {
    get: () => () => {
      throw new Error("D1_ERROR: database unavailable (test)");
    },
  },
) as unknown as D1Database;

async function fetchWorker(path: string, vars: Partial<Env>, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const request = new Request(`${ORIGIN}${path}`, init) as Request<unknown, IncomingRequestCfProperties>;
  const settled = await Promise.resolve()
    .then(() => app.fetch(request, { ...env, ...vars } as unknown as Env, ctx))
    .then(
      (response: Response) => ({ response, error: undefined }),
      (error: unknown) => ({ response: undefined, error }),
    );
  await waitOnExecutionContext(ctx);
  return settled;
}

const exceptionOf = (e: Envelope) =>
  e.items.find((i) => i.type === "event")?.payload as
    | { exception?: { values?: { value?: string }[] }; request?: { headers?: Record<string, string> }; release?: string }
    | undefined;

describe("error tracking with SENTRY_DSN", () => {
  it("a page that fails on the server is sent as an event, with traces sampled at 1 and the request's spans", async () => {
    const user = await signIn();
    capture = captureOutbound();
    expectConsoleError(); // Remix logs the failed loader
    const { error, response } = await fetchWorker("/mam", { SENTRY_DSN: DSN, DB: brokenDb } as unknown as Partial<Env>, {
      headers: { cookie: `${REFRESH_COOKIE}=${user.refresh}` },
    });
    // thrown out of the handler (the administrator bootstrap) or answered as a 500 page (the root loader)
    expect(error ? String(error) : response?.status).toEqual(error ? expect.stringContaining("database unavailable") : 500);
    const events = capture!.envelopes().filter((e) => exceptionOf(e));
    expect(events).toHaveLength(1);
    const [envelope] = events;
    expect(exceptionOf(envelope)!.exception!.values!.at(-1)!.value).toContain("database unavailable (test)");
    // The dynamic sampling context carries the traces sample rate of SPEC §9.
    expect(envelope.header.trace).toMatchObject({ sample_rate: "1", sampled: "true", public_key: "publickey123" });
    // …and the request is traced (rate 1: every request): its spans are streamed to the same endpoint
    const spans = capture!.envelopes().flatMap((e) => e.items.filter((i) => i.type === "span" || i.type === "transaction"));
    expect(spans.length).toBeGreaterThan(0);
  });

  it("a 500 answered by the API is reported, with the bearer token and cookies scrubbed", async () => {
    const user = await signIn();
    capture = captureOutbound();
    const logged = expectConsoleError();
    const { response } = await fetchWorker("/api/pqi", { SENTRY_DSN: DSN, DB: brokenDb } as unknown as Partial<Env>, {
      method: "POST",
      headers: { authorization: `Bearer ${user.bearer}`, cookie: `${REFRESH_COOKIE}=${user.refresh}`, "content-type": "application/json" },
      body: JSON.stringify({ rating: 9, comment: `мой пароль hunter2, токен ${user.bearer}` }),
    });
    expect(response?.status).toBe(500);
    expect(logged).toHaveBeenCalled();
    const events = capture!.envelopes().filter((e) => exceptionOf(e));
    expect(events).toHaveLength(1);
    const raw = events[0].raw;
    expect(exceptionOf(events[0])!.exception!.values!.at(-1)!.value).toContain("database unavailable (test)");
    for (const secret of [user.bearer, user.refresh, "hunter2"]) expect(raw).not.toContain(secret);
    expect(events[0].header.trace?.sample_rate).toBe("1");
  });

  it("an error thrown out of the scheduled handler is reported", async () => {
    capture = captureOutbound();
    const tasks = { sendBatch: () => Promise.reject(new Error("queue unavailable (test)")) } as unknown as Queue;
    const ctx = createExecutionContext();
    const controller = createScheduledController({ scheduledTime: Date.now(), cron: "17 * * * *" });
    await expect(app.scheduled(controller, { ...env, SENTRY_DSN: DSN, TASKS: tasks } as unknown as Env, ctx)).rejects.toThrow(
      "queue unavailable",
    );
    await waitOnExecutionContext(ctx);
    const values = capture!.envelopes().flatMap((e) => (exceptionOf(e)?.exception?.values ?? []).map((v) => v.value));
    expect(values).toContain("queue unavailable (test)");
  });
});

describe("error tracking without SENTRY_DSN", () => {
  it("sends nothing anywhere for the same failures, and the pages carry no DSN and no extra CSP origin", async () => {
    const user = await signIn();
    capture = captureOutbound();
    expectConsoleError(); // the API logs its 500
    const failed = await fetchWorker("/mam", { SENTRY_DSN: "", DB: brokenDb } as unknown as Partial<Env>, {
      headers: { cookie: `${REFRESH_COOKIE}=${user.refresh}` },
    });
    expect(failed.error ? String(failed.error) : failed.response?.status).toEqual(
      failed.error ? expect.stringContaining("database unavailable") : 500,
    );
    const answered = await fetchWorker("/api/pqi", { SENTRY_DSN: "", DB: brokenDb } as unknown as Partial<Env>, {
      method: "POST",
      headers: { authorization: `Bearer ${user.bearer}`, "content-type": "application/json" },
      body: JSON.stringify({ rating: 9 }),
    });
    expect(answered.response?.status).toBe(500);
    expect(capture!.outbound).toEqual([]);

    const page = await fetchWorker("/login", { SENTRY_DSN: "" } as unknown as Partial<Env>);
    const html = await page.response!.text();
    expect(html).not.toContain('errorTracking":{');
    expect(page.response!.headers.get("content-security-policy")).toMatch(/connect-src 'self'(;| )/);
    expect(page.response!.headers.get("content-security-policy")).not.toContain("errors.mam.test");
  });

  it("with a DSN the page hands it to the browser and allows its origin in connect-src only", async () => {
    capture = captureOutbound(); // the request's own spans go to the DSN
    const page = await fetchWorker("/login", { SENTRY_DSN: DSN } as unknown as Partial<Env>);
    const csp = page.response!.headers.get("content-security-policy")!;
    expect(csp).toMatch(/connect-src 'self' https:\/\/errors\.mam\.test(;| )/);
    expect(csp.replace(/connect-src[^;]*/, "")).not.toContain("errors.mam.test");
    expect(await page.response!.text()).toContain(DSN);
  });
});
