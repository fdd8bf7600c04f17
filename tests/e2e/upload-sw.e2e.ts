import { readFile } from "node:fs/promises";
import type { BrowserContext, Page, Route } from "playwright-core";
import { emptyUploadQueue, expect, login, newPage, test, type E2EServer } from "./fixtures";
import { openNewFolder, scratchFiles } from "./library-steps";

// The upload engine in the Service Worker (SPEC §7 background upload worker, §8 missing registration, §9 keep-alive):
// a multipart upload started in one tab goes on while that tab loads three other screens and a second tab opens,
// finishes once (one asset, one version, each part sent once) and both tabs' status panels show the same; a token
// refreshed in a tab reaches the worker within a keep-alive tick; a cancel from the tab that did not pick the file
// stops the worker's upload; with Service Workers blocked the page raises 'No service worker registration' once and
// uploads on its own.

const MiB = 1024 * 1024;
const makeFile = scratchFiles("mam-upload-sw-e2e-");

/**
 * Slows every S3 request that carries bytes and records which parts went. On the context, so the Service Worker's
 * requests are seen too (a page's route only sees the page's own).
 */
async function throttleUploads(
  context: BrowserContext,
  delayMs: number,
  seen: string[] = [],
  hold?: { part: string; until: Promise<void> },
) {
  await context.route("**/api/s3/**", async (route: Route) => {
    const request = route.request();
    if (request.method() === "PUT") {
      const part = new URL(request.url()).searchParams.get("partNumber") ?? "single";
      seen.push(part);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (hold?.part === part) await hold.until;
    }
    await route.continue().catch(() => undefined);
  });
  return seen;
}

const row = (page: Page, name: string) => page.locator(".upload-row", { has: page.locator(".upload-name", { hasText: name }) });

/** What a tab's status panel shows for one file: status, status text, the "needs the file" flag, the summary. */
async function panelState(page: Page, name: string) {
  const item = row(page, name);
  return {
    status: await item.getAttribute("data-status"),
    text: (await item.locator(".upload-status").textContent())?.trim(),
    needsFile: await item.getAttribute("data-needs-file"),
    summary: (await page.getByTestId("upload-summary").textContent())?.trim(),
  };
}

async function api(page: Page, server: E2EServer, path: string) {
  const bearer = await page.evaluate(() => localStorage.getItem("accessToken"));
  return fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${bearer}`, "x-api-version": "1.0" } });
}

const workerActive = (page: Page) =>
  page.evaluate(async () => {
    const registration = await navigator.serviceWorker?.getRegistration("/");
    return registration?.active?.scriptURL ?? null;
  });

test(
  "a multipart upload in the Service Worker goes on across three screens and a second tab, and finishes once",
  { timeout: 240_000 },
  async ({ page, tracked, server }) => {
    const stamp = Date.now();
    const big = await makeFile(`Хроника ${stamp}.mp4`, 40 * MiB + 4_321);
    await login(page, server.adminLogin, server.adminPassword);
    const folderId = await openNewFolder(page, `Фон ${stamp}`);
    // The signed-in shell registers the upload worker; it is served from the site root as JavaScript.
    await expect.poll(() => workerActive(page), { timeout: 20_000 }).toMatch(/\/upload-sw\.js$/);
    const script = await fetch(`${server.baseUrl}/upload-sw.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    // The last part waits until the second tab is open, so the upload is under way through everything below.
    let release!: () => void;
    const parts = await throttleUploads(tracked.context, 1_000, [], {
      part: "3",
      until: new Promise<void>((resolve) => (release = resolve)),
    });
    const prompts: string[] = [];
    page.on("dialog", (dialog) => {
      prompts.push(dialog.type());
      void dialog.accept();
    });

    await page.getByTestId("upload-input").setInputFiles(big.path);
    await expect.poll(() => row(page, big.name).getAttribute("data-status"), { timeout: 30_000 }).toBe("uploading");

    // Three other screens, each a full page load: the upload goes on in the worker, the panel follows it, and
    // nothing asks for the file again.
    for (const path of ["/search", "/jobs", "/mam"]) {
      await page.goto(path);
      await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
      await row(page, big.name).waitFor({ timeout: 20_000 });
      await expect.poll(() => row(page, big.name).getAttribute("data-needs-file"), { timeout: 10_000 }).not.toBe("true");
      expect(await row(page, big.name).getAttribute("data-status")).toBe("uploading");
    }
    // The worker holds the bytes: leaving a page was never a loss to warn about.
    expect(prompts).not.toContain("beforeunload");

    // A second tab shows the same upload, moving, without asking for the file.
    const second = await tracked.context.newPage();
    const secondErrors: string[] = [];
    second.on("console", (m) => m.type() === "error" && secondErrors.push(m.text()));
    await second.goto(`/mam/${folderId}`);
    await row(second, big.name).waitFor({ timeout: 20_000 });
    expect(await row(second, big.name).getAttribute("data-needs-file")).not.toBe("true");
    for (const tab of [page, second]) expect(await row(tab, big.name).getAttribute("data-status")).toBe("uploading");

    // A token refresh in a tab reaches the worker: its calls after the next keep-alive tick carry the new bearer.
    const fresh = await second.evaluate(async () => {
      const answer = await fetch("/api/auth/refresh", { headers: { "x-api-version": "1.0" }, credentials: "same-origin" });
      const tokens = (await answer.json()) as { bearer: string; expire: string };
      localStorage.setItem("accessToken", tokens.bearer);
      localStorage.setItem("expireToken", tokens.expire);
      return tokens.bearer;
    });
    await page.waitForTimeout(3_500);
    const workerBearers: string[] = [];
    await tracked.context.route("**/api/upload/**", async (route: Route) => {
      if (route.request().serviceWorker()) workerBearers.push(route.request().headers()["authorization"] ?? "");
      await route.continue().catch(() => undefined);
    });
    release();

    for (const tab of [page, second]) {
      await expect.poll(() => row(tab, big.name).getAttribute("data-status"), { timeout: 150_000 }).toBe("completed");
    }
    expect(workerBearers.length).toBeGreaterThan(0);
    expect(new Set(workerBearers)).toEqual(new Set([`Bearer ${fresh}`]));
    // One panel state in both tabs.
    await expect
      .poll(async () => JSON.stringify(await panelState(second, big.name)), { timeout: 10_000 })
      .toBe(JSON.stringify(await panelState(page, big.name)));
    expect((await panelState(page, big.name)).text).toBe("Готово");

    // Finished once: each part went once, one queue item, one asset in the folder, one version of it.
    expect([...parts].sort()).toEqual(["1", "2", "3"]);
    type Queue = { items: { fileName: string; assetId: string | null; status: string }[] };
    const ours = async () =>
      ((await (await api(page, server, "/api/uploads")).json()) as Queue).items.filter((i) => i.fileName === big.name);
    // The worker's report reaches the server's queue a moment after the tabs heard the event.
    await expect.poll(async () => (await ours()).map((i) => i.status), { timeout: 15_000 }).toEqual(["completed"]);
    const items = await ours();
    const versions = (await (await api(page, server, `/api/asset/versions/${items[0].assetId}`)).json()) as { version: number }[];
    expect(new Set(versions.map((v) => v.version)).size).toBe(1);
    await second.goto(`/mam/${folderId}`);
    await second.locator("[data-member]", { hasText: big.name }).first().waitFor();
    expect(await second.locator("[data-member]", { hasText: big.name }).count()).toBe(1);

    // The bytes arrived intact.
    await second.locator("[data-member]", { hasText: big.name }).getByRole("link", { name: big.name }).click();
    await expect.poll(() => second.locator("h1").textContent(), { timeout: 15_000 }).toBe(big.name);
    const [download] = await Promise.all([
      second.waitForEvent("download"),
      second.getByRole("button", { name: "Скачать" }).first().click(),
    ]);
    expect(Buffer.compare(await readFile((await download.path())!), big.bytes)).toBe(0);
    expect(secondErrors).toEqual([]);
  },
);

test(
  "cancelled from a second tab, the worker's upload stops and the item and its asset go in both tabs",
  { timeout: 120_000 },
  async ({ page, tracked, server }) => {
    const stamp = Date.now();
    const big = await makeFile(`Отменить ${stamp}.mp4`, 24 * MiB);
    await login(page, server.adminLogin, server.adminPassword);
    const folderId = await openNewFolder(page, `Отмена из вкладки ${stamp}`);
    await expect.poll(() => workerActive(page), { timeout: 20_000 }).toMatch(/\/upload-sw\.js$/);
    // The second part never finishes on its own: only the cancel ends this upload.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await throttleUploads(tracked.context, 500, [], { part: "2", until: held });

    await page.getByTestId("upload-input").setInputFiles(big.path);
    await expect.poll(() => row(page, big.name).getAttribute("data-status"), { timeout: 30_000 }).toBe("uploading");
    type Queue = { items: { fileName: string; assetId: string | null }[] };
    const assetId = ((await (await api(page, server, "/api/uploads")).json()) as Queue).items.find((i) => i.fileName === big.name)?.assetId;
    expect(assetId).toMatch(/^[0-9a-f]{32}$/);

    const second = await tracked.context.newPage();
    await second.goto(`/mam/${folderId}`);
    const item = row(second, big.name);
    await expect.poll(() => item.getAttribute("data-status"), { timeout: 20_000 }).toBe("uploading");
    await item.getByRole("button", { name: `Отменить загрузку: ${big.name}` }).click();
    await item.waitFor({ state: "detached", timeout: 30_000 });
    await row(page, big.name).waitFor({ state: "detached", timeout: 15_000 });
    release();
    expect((await api(page, server, `/api/asset/${assetId}`)).status).toBe(404);
    const after = (await (await api(page, server, "/api/uploads")).json()) as Queue;
    expect(after.items.some((i) => i.fileName === big.name)).toBe(false);
  },
);

test(
  "with Service Workers blocked the page says 'No service worker registration' once and uploads on its own",
  { timeout: 120_000 },
  async ({ browser, server }) => {
    const blocked = await newPage(browser, { server, contextOptions: { serviceWorkers: "block" } });
    const page = blocked.page;
    const warnings: string[] = [];
    page.on("console", (m) => m.type() === "warning" && warnings.push(m.text()));
    try {
      const stamp = Date.now();
      const file = await makeFile(`Запасной ${stamp}.mov`, 12 * MiB + 99);
      await login(page, server.adminLogin, server.adminPassword);
      await openNewFolder(page, `Без воркера ${stamp}`);
      const raised = () => warnings.filter((w) => w === "No service worker registration").length;
      // Raised once per page: a fresh load raises it again, an upload does not.
      await page.reload();
      await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
      const before = raised();
      expect(before).toBeGreaterThanOrEqual(1);
      const parts = await throttleUploads(blocked.context, 300);

      await page.getByTestId("upload-input").setInputFiles(file.path);
      await expect.poll(() => row(page, file.name).getAttribute("data-status"), { timeout: 60_000 }).toBe("completed");
      expect(await workerActive(page)).toBeNull();
      expect(raised()).toBe(before);
      // The in-page engine sent the file as a multipart upload (one 16 MiB part; files under 8 MiB go in one request).
      expect([...parts].sort()).toEqual(["1"]);
      await page.locator("[data-member]", { hasText: file.name }).waitFor();
    } finally {
      await emptyUploadQueue(server);
    }
  },
);
