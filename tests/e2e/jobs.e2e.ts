import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect, login, test, type E2EServer } from "./fixtures";
import { openRootFolder } from "./library-steps";

// Background work in the browser: an uploaded image gets a server-made preview that appears in its folder's grid;
// /jobs lists the preview task (filters in the URL), and its page shows the details and the log.

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function api<T>(page: Page, server: E2EServer, path: string): Promise<T> {
  const bearer = await page.evaluate(() => localStorage.getItem("accessToken"));
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${bearer}`, "x-api-version": "1.0" } });
  expect(res.status, path).toBe(200);
  return res.json() as Promise<T>;
}

test(
  "an uploaded image gets a preview in the folder grid, made by a task listed in /jobs with its log",
  { timeout: 180_000 },
  async ({ page, server }) => {
    const stamp = Date.now();
    const folder = `Превью ${stamp}`;
    await login(page, server.adminLogin, server.adminPassword);
    await page.goto("/mam");
    await page.getByRole("button", { name: "Создать папку" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Создать папку" });
    await dialog.getByLabel("Название папки").fill(folder);
    await dialog.getByRole("button", { name: "Создать" }).click();
    await openRootFolder(page, folder);
    await page.getByText("В этой папке пока ничего нет").waitFor();
    const folderId = new URL(page.url()).pathname.split("/")[2];

    await page.getByTestId("upload-input").setInputFiles(join(FIXTURES, "photo-1600x1200.jpg"));
    const uploaded = page.locator(".tile, tr").filter({ hasText: "photo-1600x1200.jpg" }).first();
    await uploaded.waitFor({ timeout: 60_000 });
    const assetId = (await uploaded.getAttribute("data-member"))!;

    // The server's preview task finishes; its asset is the uploaded one.
    type Task = { job_id: string; status: string; operation_class: string; affected: { id: string }[]; name: string };
    await expect
      .poll(
        async () =>
          (
            await api<Task[]>(page, server, `/api/tasklist/current?op=preview&name=${encodeURIComponent("photo-1600x1200.jpg")}`)
          )
            .filter((t) => t.affected.some((a) => a.id === assetId))
            .map((t) => t.status),
        {
          timeout: 90_000,
        },
      )
      .toContain("done");
    const [task] = (
      await api<Task[]>(page, server, `/api/tasklist/current?op=preview&status=done&name=${encodeURIComponent("photo-1600x1200.jpg")}`)
    ).filter((t) => t.status === "done" && t.affected.some((a) => a.id === assetId)); // other tests upload this file too

    // The folder grid shows the preview image (fetched with the bearer into a blob URL).
    await page.goto(`/mam/${folderId}`);
    const tile = page.locator(".tile", { hasText: "photo-1600x1200.jpg" });
    await expect.poll(async () => (await tile.locator(".thumb img").getAttribute("src")) ?? "", { timeout: 30_000 }).toMatch(/^blob:/);
    await shot(page, "group-grid-preview");

    // /jobs lists it under the operation filter, with its status and a full progress bar.
    await page.goto("/jobs");
    await page.locator("select[name=op]").selectOption("preview");
    await expect.poll(() => new URL(page.url()).searchParams.get("op")).toBe("preview");
    // Narrowed to this file (other tests' tasks may push it off the first page).
    await page.goto(`/jobs?op=preview&asset=${assetId}`);
    const row = page.locator(`tr[data-task="${task.job_id}"]`);
    await expect.poll(() => row.getAttribute("data-status")).toBe("done");
    expect(await row.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("100");
    await shot(page, "jobs-list");

    // Its page: details and the log with the preview line.
    await row.getByRole("link").click();
    await page.waitForURL(`**/jobs/${task.job_id}`);
    await page.locator(".job-log-line", { hasText: "Превью для «photo-1600x1200.jpg»" }).waitFor();
    await expect.poll(() => page.locator(".job-info").getAttribute("data-status")).toBe("done");
    await shot(page, "job-detail");

    // A finished task offers 'restart' only; restarting queues it again and it finishes again.
    await page.getByRole("button", { name: "Перезапустить" }).click();
    await expect.poll(() => page.locator(".job-info").getAttribute("data-status"), { timeout: 60_000 }).toBe("done");
    await page.locator(".job-log-line", { hasText: "Перезапущена по команде" }).waitFor();
  },
);
