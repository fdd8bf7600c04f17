import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Page, Route } from "playwright-core";
import { onTestFinished } from "vitest";
import { emptyUploadQueue, expect, login, newPage, test, type E2EServer } from "./fixtures";
import { openNewFolder, scratchFiles, type ScratchFile } from "./library-steps";

// Uploads end to end (SPEC §2 status panel, §4 upload statuses, §7 upload worker protocol): the Uppy Dashboard
// queues files, the engine sends them (multipart above 5 MiB) while the panel shows every status, the files appear
// in their folder with the same bytes; a reload in the middle of a large upload resumes from the stored parts after
// the file is picked again; a cancel removes the item and deletes the asset; a picked folder recreates its
// sub-folders.

const MiB = 1024 * 1024;
const makeFile = scratchFiles("mam-uploads-e2e-");

/**
 * Slows every S3 request that carries bytes (parts and single PUTs), so uploads are seen mid-flight. On the context:
 * the upload Service Worker's requests are not the page's.
 */
async function throttleUploads(page: Page, delayMs: number, seen: string[] = []) {
  // Small files go in one request (POST /api/asset/upload): counted as "one-request" and held as long.
  await page.context().route("**/api/asset/upload?**", async (route: Route) => {
    seen.push("one-request");
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    await route.continue().catch(() => undefined);
  });
  await page.context().route("**/api/s3/**", async (route: Route) => {
    const request = route.request();
    if (request.method() === "PUT") {
      seen.push(new URL(request.url()).searchParams.get("partNumber") ?? "single");
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    await route.continue().catch(() => undefined);
  });
  return seen;
}

/** Records every status each panel row shows, by file name. */
async function recordStatuses(page: Page) {
  await page.evaluate(() => {
    const seen: Record<string, string[]> = {};
    (window as unknown as { __uploadStatuses: typeof seen }).__uploadStatuses = seen;
    const note = () => {
      for (const row of document.querySelectorAll<HTMLElement>(".upload-row")) {
        const name = row.getAttribute("aria-label") ?? "";
        const status = row.dataset.status ?? "";
        const list = (seen[name] ??= []);
        if (list.at(-1) !== status) list.push(status);
      }
    };
    new MutationObserver(note).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["data-status"],
    });
    note();
  });
  return () => page.evaluate(() => (window as unknown as { __uploadStatuses: Record<string, string[]> }).__uploadStatuses);
}

const row = (page: Page, name: string) => page.locator(".upload-row", { has: page.locator(".upload-name", { hasText: name }) });

async function downloadFromViewer(page: Page, name: string): Promise<Buffer> {
  const tile = page.locator("[data-member]", { hasText: name });
  await tile.getByRole("link", { name }).click();
  await expect.poll(() => page.locator("h1").textContent(), { timeout: 15_000 }).toBe(name);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Скачать" }).first().click()]);
  expect(download.suggestedFilename()).toBe(name);
  return readFile((await download.path())!);
}

/** The API as the signed-in page calls it, from Node (so a 404 probe does not show as a page error). */
async function api(page: Page, server: E2EServer, path: string) {
  const bearer = await page.evaluate(() => localStorage.getItem("accessToken"));
  return fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${bearer}`, "x-api-version": "1.0" } });
}

test(
  "three files through the Dashboard: the panel goes waiting → uploading → completed, the bytes arrive intact",
  { timeout: 180_000 },
  async ({ page, server }) => {
    const stamp = Date.now();
    const big = await makeFile(`Интервью ${stamp}.mp4`, 34 * MiB + 12_345);
    const small = await makeFile(`Сценарий ${stamp}.txt`, 700_000);
    const tiny = await makeFile(`Смета ${stamp}.csv`, 4_096);
    await login(page, server.adminLogin, server.adminPassword);
    await openNewFolder(page, `Загрузки ${stamp}`);
    const statuses = await recordStatuses(page);
    const parts = await throttleUploads(page, 900);

    // 'Загрузить' opens the Uppy Dashboard (Russian, dark); its upload button hands the files to the queue.
    await page.getByRole("button", { name: "Загрузить" }).click();
    const dashboard = page.locator(".uppy-Dashboard-inner");
    await dashboard.waitFor();
    expect(await page.locator(".uppy-Dashboard").getAttribute("data-uppy-theme")).toBe("dark");
    await page.locator(".uppy-Dashboard-input").first().setInputFiles([big.path, small.path, tiny.path]);
    await page.getByRole("button", { name: "Загрузить 3 файла" }).click();
    await dashboard.waitFor({ state: "hidden" });

    // The panel: every item with its folder, the summary line counting up (a loaded machine may take a while to start).
    const panel = page.getByTestId("upload-panel");
    await panel.waitFor();
    await expect.poll(() => row(page, big.name).getAttribute("data-status"), { timeout: 30_000 }).toBe("uploading");
    expect(await row(page, big.name).textContent()).toContain(`в «Загрузки ${stamp}»`);
    for (const file of [big, small, tiny]) {
      await expect.poll(() => row(page, file.name).getAttribute("data-status"), { timeout: 90_000 }).toBe("completed");
    }
    expect(await row(page, big.name).locator(".upload-status").textContent()).toBe("Готово");
    expect(await page.getByTestId("upload-summary").textContent()).toMatch(/Загружено \d+ из \d+/);
    const seen = await statuses();
    expect(Object.values(seen).some((list) => list.includes("waiting"))).toBe(true);
    for (const file of [big, small, tiny]) {
      expect(seen[file.name]).toContain("uploading");
      expect(seen[file.name].at(-1)).toBe("completed");
    }
    // The large file went in parts (16 MiB each), the small ones in one request each (asset, version and bytes).
    expect(parts.filter((p) => /^\d+$/.test(p)).sort()).toEqual(["1", "2", "3"]);
    expect(parts.filter((p) => p === "one-request")).toHaveLength(2);

    // Each file appears in the open folder once its version is committed, and downloads byte for byte.
    for (const file of [big, small, tiny]) await page.locator("[data-member]", { hasText: file.name }).waitFor();
    expect(Buffer.compare(await downloadFromViewer(page, big.name), big.bytes)).toBe(0);
  },
);

test(
  "without the upload worker, a reload in the middle of a large upload: the file is picked again and the upload resumes from its stored parts",
  { timeout: 180_000 },
  async ({ browser, server }) => {
    // The page's own engine (Service Workers blocked: SPEC §8's fallback) loses the file with the page; with the
    // worker the upload simply goes on (upload-sw.e2e.ts).
    const { page } = await newPage(browser, { server, contextOptions: { serviceWorkers: "block" } });
    onTestFinished(() => emptyUploadQueue(server));
    const stamp = Date.now();
    const big = await makeFile(`Репортаж ${stamp}.mov`, 36 * MiB + 777);
    await login(page, server.adminLogin, server.adminPassword);
    await openNewFolder(page, `Обрыв ${stamp}`);
    const parts = await throttleUploads(page, 2_000);
    const prompts: string[] = [];
    page.on("dialog", (dialog) => {
      prompts.push(dialog.type());
      void dialog.accept();
    });

    await page.getByTestId("upload-input").setInputFiles(big.path);
    await page.waitForResponse((r) => r.url().includes("partNumber=1") && r.request().method() === "PUT" && r.ok(), { timeout: 60_000 });

    // Leaving the page during an upload asks first (SPEC §4); the reload goes ahead.
    await page.reload();
    expect(prompts).toContain("beforeunload");

    // After the reload the browser no longer has the file: the item waits for it, with what is stored so far.
    const item = row(page, big.name);
    await expect.poll(() => item.getAttribute("data-needs-file"), { timeout: 45_000 }).toBe("true");
    expect(await item.locator(".upload-status").textContent()).toBe("Прервано");
    parts.length = 0;
    await page.getByTestId("upload-repick-input").setInputFiles(big.path);

    await expect.poll(() => item.getAttribute("data-status"), { timeout: 90_000 }).toBe("completed");
    // Only the missing parts went again.
    expect(parts).not.toContain("1");
    expect(parts.sort()).toEqual(["2", "3"]);
    // The server committed the SHA-256 of the whole source file (parts from before and after the reload)…
    const queue = (await (await api(page, server, "/api/uploads")).json()) as { items: { fileName: string; assetId: string | null }[] };
    const assetId = queue.items.find((i) => i.fileName === big.name)?.assetId;
    const [version] = (await (await api(page, server, `/api/asset/versions/${assetId}`)).json()) as { variant_id: string }[];
    const status = (await (await api(page, server, `/api/upload/status/${version.variant_id}`)).json()) as { state: string; sha256: string };
    expect(status).toMatchObject({ state: "ready", sha256: createHash("sha256").update(big.bytes).digest("hex") });
    // …and the bytes downloaded are the source's.
    await page.locator("[data-member]", { hasText: big.name }).waitFor();
    expect(Buffer.compare(await downloadFromViewer(page, big.name), big.bytes)).toBe(0);
  },
);

test("forty small files dropped at once go in a few batch requests, each committed with its bytes", { timeout: 120_000 }, async ({ page, server }) => {
  const stamp = Date.now();
  const files: ScratchFile[] = [];
  for (let i = 0; i < 40; i++) files.push(await makeFile(`Заметка ${String(i).padStart(2, "0")} ${stamp}.txt`, 2_000 + i));
  await login(page, server.adminLogin, server.adminPassword);
  const groupId = await openNewFolder(page, `Пачка ${stamp}`);
  const requests: string[] = [];
  page.context().on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (r.method() === "POST" && (path === "/api/asset/upload-batch" || path === "/api/asset/upload")) requests.push(path);
  });

  await page.getByTestId("upload-input").setInputFiles(files.map((f) => f.path));
  await expect.poll(() => page.getByTestId("upload-summary").textContent(), { timeout: 90_000 }).toBe("Загружено 40 из 40");
  // Forty files, far fewer requests: the burst is spread over the six request slots.
  expect(requests.filter((p) => p.endsWith("upload-batch")).length).toBeGreaterThanOrEqual(2);
  expect(requests.length).toBeLessThanOrEqual(12);

  // Every file is in the folder and holds exactly its bytes.
  for (const file of [files[0], files[39]]) await page.locator("[data-member]", { hasText: file.name }).waitFor();
  const members = (await (await api(page, server, `/api/group/members/${groupId}?type=asset&take=50`)).json()) as {
    el_id: string;
    el_info: { name: string };
  }[];
  expect(members.map((m) => m.el_info.name)).toEqual(files.map((f) => f.name));
  const last = members.find((m) => m.el_info.name === files[39].name)!;
  const [version] = (await (await api(page, server, `/api/asset/versions/${last.el_id}`)).json()) as { variant_id: string }[];
  const status = (await (await api(page, server, `/api/upload/status/${version.variant_id}`)).json()) as { state: string; sha256: string };
  expect(status).toMatchObject({ state: "ready", sha256: createHash("sha256").update(files[39].bytes).digest("hex") });
});

test("cancelling an upload removes it from the panel and deletes its asset", { timeout: 120_000 }, async ({ page, server }) => {
  const stamp = Date.now();
  const file = await makeFile(`Черновик ${stamp}.mp4`, 24 * MiB);
  await login(page, server.adminLogin, server.adminPassword);
  await openNewFolder(page, `Отмена ${stamp}`);
  await throttleUploads(page, 2_500);

  await page.getByTestId("upload-input").setInputFiles(file.path);
  const item = row(page, file.name);
  await expect.poll(() => item.getAttribute("data-status"), { timeout: 30_000 }).toBe("uploading");
  const queue = (await (await api(page, server, "/api/uploads")).json()) as { items: { fileName: string; assetId: string | null }[] };
  const assetId = queue.items.find((i) => i.fileName === file.name)?.assetId;
  expect(assetId).toMatch(/^[0-9a-f]{32}$/);

  await item.getByRole("button", { name: `Отменить загрузку: ${file.name}` }).click();
  await item.waitFor({ state: "detached" });
  expect((await api(page, server, `/api/asset/${assetId}`)).status).toBe(404);
  const after = (await (await api(page, server, "/api/uploads")).json()) as { items: { fileName: string }[] };
  expect(after.items.some((i) => i.fileName === file.name)).toBe(false);
  await page.reload();
  await page.getByText("В этой папке пока ничего нет").waitFor();
});

test(
  "a folder picked in the Dashboard recreates its sub-folders and uploads each file into its own",
  { timeout: 120_000 },
  async ({ page, server }) => {
    const stamp = Date.now();
    const top = `Съёмка ${stamp}`;
    const plan = await makeFile("план.txt", 2_000, join(`folder-${stamp}`, top));
    const frame = await makeFile("кадр.bin", 6 * MiB + 1, join(`folder-${stamp}`, top, "День 1"));
    await login(page, server.adminLogin, server.adminPassword);
    await openNewFolder(page, `Папки ${stamp}`);

    await page.getByRole("button", { name: "Загрузить" }).click();
    await page.locator(".uppy-Dashboard-inner").waitFor();
    await page.locator(".uppy-Dashboard-input[webkitdirectory]").setInputFiles(dirname(plan.path));
    await page.getByRole("button", { name: "Загрузить 2 файла" }).click();

    for (const file of [plan, frame]) {
      await expect.poll(() => row(page, file.name).getAttribute("data-status"), { timeout: 60_000 }).toBe("completed");
    }
    expect(await row(page, frame.name).textContent()).toContain("в «День 1»");
    // The picked folder is now a sub-folder of the open one, with its own sub-folder and files inside.
    await page.locator("[data-member]", { hasText: top }).getByRole("link", { name: top }).first().click();
    await expect.poll(() => page.locator("h1").textContent(), { timeout: 15_000 }).toBe(top);
    await page.locator("[data-member]", { hasText: plan.name }).waitFor();
    await page.locator("[data-member]", { hasText: "День 1" }).getByRole("link", { name: "День 1" }).first().click();
    await expect.poll(() => page.locator("h1").textContent(), { timeout: 15_000 }).toBe("День 1");
    await page.locator("[data-member]", { hasText: frame.name }).waitFor();
    expect(Buffer.compare(await downloadFromViewer(page, frame.name), frame.bytes)).toBe(0);
  },
);
