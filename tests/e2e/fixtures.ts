/**
 * End-to-end fixtures: Debian Chromium through playwright-core against the dev server started by
 * tests/e2e/global-setup.ts.
 *
 * @example
 *   import { expect, login, test } from "./fixtures";
 *
 *   test("the administrator signs in", async ({ page, server }) => {
 *     await login(page, server.adminLogin, server.adminPassword);
 *     await expect.poll(() => new URL(page.url()).pathname).toBe("/mam");
 *   });
 *
 *   test("a wrong password shows a toast", async ({ page, pageErrors }) => {
 *     pageErrors.expect(/status of 401/); // the browser logs the failed request as a console error
 *     ...
 *   });
 */
import { type Browser, type BrowserContext, type BrowserContextOptions, type Page, chromium } from "playwright-core";
import { test as base, expect, inject, onTestFinished } from "vitest";

export { expect };

/** The running product and its administrator, as provided by the global setup. */
export interface E2EServer {
  baseUrl: string;
  adminLogin: string;
  adminPassword: string;
}

/** Flags that keep Chromium quiet and offline: without the networking ones it keeps trying unreachable hosts. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The values provided by tests/e2e/global-setup.ts. */
export function e2eServer(): E2EServer {
  return { baseUrl: inject("baseUrl"), adminLogin: inject("adminLogin"), adminPassword: inject("adminPassword") };
}

/**
 * Launches Debian Chromium (`CHROMIUM_PATH` or /usr/bin/chromium). Playwright gives the browser a fresh temporary
 * user-data dir and removes it on close; every `newPage` also gets its own context (cookies, localStorage).
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
    timeout: 30_000,
  });
}

/** Console errors and uncaught exceptions of one page; the test fails on any that were not declared. */
export interface PageErrors {
  /** Everything recorded so far, expected or not. */
  readonly all: readonly string[];
  /** Declares an error this test provokes on purpose; each declaration must match at least one recorded error. */
  expect(pattern: RegExp | string): void;
  /** Errors that match no declaration. */
  unexpected(): string[];
}

export interface TrackedPage {
  page: Page;
  context: BrowserContext;
  errors: PageErrors;
  /** Closes the context, then throws if an undeclared error happened or a declared one did not. Idempotent. */
  finish(): Promise<void>;
}

function matches(pattern: RegExp | string, message: string): boolean {
  return typeof pattern === "string" ? message.includes(pattern) : pattern.test(message);
}

/**
 * Opens a page in a fresh browser context whose `baseURL` is the dev server, so `page.goto("/login")` works.
 * Records `console` messages of type error and `pageerror`s. Called inside a test, it registers `finish` to run when
 * the test finishes: the context is closed and the test fails if an undeclared error happened or a declared one did
 * not. Pass `autoFinish: false` to call `finish()` yourself (e.g. from a fixture's cleanup), and `contextOptions`
 * for a device (a phone's viewport, touch).
 */
export async function newPage(
  browser: Browser,
  {
    server = e2eServer(),
    autoFinish = true,
    contextOptions = {},
    duplicateCheck = false,
  }: { server?: E2EServer; autoFinish?: boolean; contextOptions?: BrowserContextOptions; duplicateCheck?: boolean } = {},
): Promise<TrackedPage> {
  const context = await browser.newContext({ ...contextOptions, baseURL: server.baseUrl, locale: "ru-RU" });
  // Every test uploads the same fixture files again: the «Такой файл уже есть» question is asked only where a test
  // wants it (tests/e2e/duplicates.e2e.ts); app/lib/upload-file.ts DUPLICATE_CHECK_KEY.
  // Init scripts run in every frame, also in frames without storage (an opaque-origin preview, where it is null, or a
  // refused frame's error page, where reading it throws).
  if (!duplicateCheck)
    await context.addInitScript(() => {
      try {
        window.localStorage?.setItem("mam.uploads.duplicateCheck", "off");
      } catch {
        // no storage in this frame: nothing to turn off
      }
    });
  context.setDefaultTimeout(15_000);
  context.setDefaultNavigationTimeout(30_000);
  const page = await context.newPage();

  const all: string[] = [];
  const declared: (RegExp | string)[] = [];
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const { url, lineNumber } = message.location();
    // Chromium probes /favicon.ico on its own for pages without an icon link: browser behaviour, not the page's.
    if (new URL(url || "about:blank").pathname === "/favicon.ico") return;
    all.push(`console.error: ${message.text()}${url ? ` (${url}:${lineNumber})` : ""}`);
  });
  page.on("pageerror", (error) => all.push(`pageerror: ${error.stack ?? error.message}`));

  const errors: PageErrors = {
    get all() {
      return all;
    },
    expect(pattern) {
      declared.push(pattern);
    },
    unexpected() {
      return all.filter((message) => !declared.some((pattern) => matches(pattern, message)));
    },
  };

  let finished: Promise<void> | undefined;
  const finish = () => {
    finished ??= (async () => {
      await context.close().catch(() => {});
      const unmet = declared.filter((pattern) => !all.some((message) => matches(pattern, message)));
      const problems = [
        ...errors.unexpected().map((message) => `unexpected ${message}`),
        ...unmet.map((pattern) => `declared page error never happened: ${String(pattern)}`),
      ];
      if (problems.length > 0) throw new Error(`Browser errors on the page:\n${problems.join("\n")}`);
    })();
    return finished;
  };
  if (autoFinish) onTestFinished(finish);

  return { page, context, errors, finish };
}

/**
 * Signs in through the /login form (fields `user` and `passwd`, button 'Войти') and waits until the page has left
 * /login. The page's context must have the dev server as `baseURL` (pages from `newPage` do).
 */
export async function login(page: Page, user: string, password: string): Promise<void> {
  if (new URL(page.url()).pathname !== "/login") await page.goto("/login");
  await page.locator('input[name="user"]').fill(user);
  await page.locator('input[name="passwd"]').fill(password);
  await page.getByRole("button", { name: "Войти" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/login"), { timeout: 15_000 });
  await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 15_000 });
}

/**
 * Empties the administrator's upload queue. Every file shares that account, and its queue lives on the server: the
 * status panel of one test's uploads would otherwise sit over the next test's screens (and a test that failed
 * mid-upload would leave an interrupted item holding an upload slot).
 */
export async function emptyUploadQueue(server: E2EServer): Promise<void> {
  const signIn = await fetch(`${server.baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: server.adminLogin, passwd: server.adminPassword }),
  });
  if (!signIn.ok) throw new Error(`emptying the upload queue: sign-in answered ${signIn.status}`);
  const headers = { authorization: `Bearer ${((await signIn.json()) as { bearer: string }).bearer}` };
  const queue = (await (await fetch(`${server.baseUrl}/api/uploads`, { headers })).json()) as { items: { id: string }[] };
  for (const item of queue.items) {
    const removed = await fetch(`${server.baseUrl}/api/uploads/${encodeURIComponent(item.id)}`, { method: "DELETE", headers });
    if (!removed.ok && removed.status !== 404) throw new Error(`emptying the upload queue: DELETE answered ${removed.status}`);
  }
}

/**
 * The e2e `test`: fixtures
 * - `server` (per worker): base URL and administrator credentials;
 * - `browser` (per worker): one Chromium for every file of the run (files run one after another in one worker, and each
 *   page has its own context: cookies, storage, cache and Service Workers are never shared); a launch costs ~1 s of CPU;
 * - `closeLeftContexts` (per file, automatic): closes the contexts a file left open;
 * - `tracked` (per test): `{ page, context, errors }` from `newPage`; afterwards the administrator's upload queue is emptied;
 * - `page`, `pageErrors` (per test): shortcuts to `tracked.page` and `tracked.errors`.
 */
export const test = base
  .extend("server", { scope: "worker" }, async ({}) => e2eServer())
  .extend("browser", { scope: "worker" }, async ({}, { onCleanup }) => {
    const browser = await launchBrowser();
    onCleanup(() => browser.close());
    return browser;
  })
  // What a file left open (a page still polling, a stream) is closed before the next file, as a browser of its own was.
  .extend("closeLeftContexts", { scope: "file", auto: true }, async ({ browser }, { onCleanup }) => {
    onCleanup(async () => {
      await Promise.all(browser.contexts().map((context) => context.close().catch(() => undefined)));
    });
  })
  .extend("tracked", async ({ browser, server }, { onCleanup }) => {
    const tracked = await newPage(browser, { server, autoFinish: false });
    onCleanup(async () => {
      try {
        await tracked.finish();
      } finally {
        await emptyUploadQueue(server);
      }
    });
    return tracked;
  })
  .extend("page", async ({ tracked }) => tracked.page)
  .extend("pageErrors", async ({ tracked }) => tracked.errors);
