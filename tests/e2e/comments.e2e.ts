import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect, login, newPage, test } from "./fixtures";
import { EDITOR } from "./seed";
import { openRootFolder } from "./library-steps";

// Comments pinned to a region and the bell (decision 035): the owner uploads a picture and gives a reader read on it;
// the reader draws a region on the picture by dragging and comments; the owner replies in the thread; the reader's
// bell shows the reply live, and the inbox leads back to the exact comment. Back in the folder, the file's tile shows
// its open comments (a speech bubble with the number), and resolving one lowers it. At 1440 and 390 px wide.

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
const SHOTS = process.env.E2E_SHOTS_DIR;
/** The machine is shared and the server cold: waits are generous. */
const WAIT = { timeout: 30_000 };
const LONG = { timeout: 60_000 };

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

async function bearerOf(baseUrl: string, user: string, passwd: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user, passwd }) });
  return ((await res.json()) as { bearer: string }).bearer;
}

for (const [label, viewport] of [
  ["1440", { width: 1440, height: 900 }],
  ["390", { width: 390, height: 844 }],
] as const) {
  test(`a reader comments on a drawn region, the owner replies, the reader's bell shows it (${label} px)`, { timeout: 240_000 }, async ({ page, server, browser }) => {
    await page.setViewportSize(viewport);
    const folder = `Отзывы ${label} ${Date.now()}`;
    await login(page, server.adminLogin, server.adminPassword);
    await page.goto("/mam");
    await page.getByRole("button", { name: "Создать папку" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Создать папку" });
    await dialog.getByLabel("Название папки").fill(folder);
    await dialog.getByRole("button", { name: "Создать" }).click();
    await openRootFolder(page, folder);
    await page.waitForURL(/\/mam\/[0-9a-f]{32}/);
    const folderUrl = new URL(page.url()).pathname;
    await page.getByTestId("upload-input").setInputFiles(join(FIXTURES, "photo-1600x1200.jpg"));
    await page.locator("[data-member]", { hasText: "photo-1600x1200.jpg" }).getByRole("link", { name: "photo-1600x1200.jpg", exact: true }).click();
    await page.waitForURL(/\/asset\/[0-9a-f]{32}/);
    const assetId = /\/asset\/([0-9a-f]{32})/.exec(page.url())![1];

    // The owner gives the reader read on the file (the access API, as the access dialog does).
    const admin = await bearerOf(server.baseUrl, server.adminLogin, server.adminPassword);
    const rule = await fetch(`${server.baseUrl}/api/user/acl`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${admin}` },
      body: JSON.stringify({ subj: EDITOR.id, obj: assetId, acl: ["read", "download"] }),
    });
    expect(rule.status).toBe(201);

    // The reader draws a region on the picture and comments on it.
    const reader = (await newPage(browser, { server, contextOptions: { viewport } })).page;
    await login(reader, EDITOR.login, EDITOR.password);
    await reader.goto(`/asset/${assetId}`);
    await reader.locator(".viewer-stage img").first().evaluate((img: HTMLImageElement) => img.decode());
    await reader.getByTestId("comments-tab").click();
    await reader.getByTestId("draw-region").click();
    const layer = reader.getByTestId("comment-layer");
    await layer.scrollIntoViewIfNeeded();
    await reader.waitForTimeout(300);
    const box = (await layer.boundingBox())!;
    await reader.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.2);
    await reader.mouse.down();
    await reader.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.45, { steps: 5 });
    await reader.mouse.up();
    await shot(reader, `comments-drawn-${label}`);
    await expect.poll(() => reader.getByTestId("composer-anchor").textContent(), WAIT).toContain("Область выбрана");
    await reader.getByTestId("comment-text").fill("Логотип обрезан справа");
    await reader.getByTestId("comment-send").click();
    await expect.poll(() => reader.getByTestId("comment-list").textContent(), WAIT).toContain("Логотип обрезан справа");
    await expect.poll(() => reader.getByRole("button", { name: "Отметка 1" }).isVisible(), WAIT).toBe(true);
    await shot(reader, `comments-reader-${label}`);

    // The reader starts from an empty inbox (the other width's run used the same reader).
    const readerBearer = await bearerOf(server.baseUrl, EDITOR.login, EDITOR.password);
    await fetch(`${server.baseUrl}/api/notifications/read`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${readerBearer}` },
      body: JSON.stringify({ all: true }),
    });

    // The owner replies in the thread.
    await page.reload();
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    await page.getByTestId("comments-tab").click();
    await shot(page, `comments-owner-before-${label}`);
    await expect.poll(() => page.getByTestId("comment-list").textContent(), WAIT).toContain("Логотип обрезан справа");
    await page.getByRole("button", { name: "Ответить" }).first().click();
    await page.getByTestId("comment-text").fill("Исправлю в версии 2");
    await page.getByTestId("comment-send").click();
    await expect.poll(() => page.getByTestId("comment-list").textContent(), WAIT).toContain("Исправлю в версии 2");
    await shot(page, `comments-owner-${label}`);

    // The reader's bell shows it without a reload, and the inbox leads to the comment.
    await expect.poll(() => reader.getByTestId("bell-count").textContent(), LONG).toBe("1");
    await reader.getByTestId("bell").click();
    await reader.waitForURL(/\/notifications/);
    const item = reader.getByTestId("inbox").locator("li").first();
    await expect.poll(() => item.textContent(), WAIT).toContain("ответил(а) на ваш комментарий");
    expect(await item.textContent()).toContain("Исправлю в версии 2");
    await shot(reader, `notifications-${label}`);
    await item.getByRole("link").click();
    await reader.waitForURL(new RegExp(`/asset/${assetId}\\?comment=`));
    await reader.waitForTimeout(1500);
    await shot(reader, `comments-linked-${label}`);
    await expect.poll(() => reader.locator(".comment.selected").textContent(), WAIT).toContain("Исправлю в версии 2");

    // The folder's tile counts the two open comments; resolving the reader's lowers the number, and says so in words.
    await page.goto(folderUrl);
    const tile = page.locator("[data-member]", { hasText: "photo-1600x1200.jpg" });
    const badge = tile.getByTestId("comment-count");
    await expect.poll(() => badge.getAttribute("aria-label"), WAIT).toBe("2 комментария, 2 открыты");
    expect(await badge.textContent()).toBe("2");
    await badge.scrollIntoViewIfNeeded();
    await shot(page, `comments-tile-${label}`);
    const listed = (await (
      await fetch(`${server.baseUrl}/api/asset/${assetId}/comments`, { headers: { authorization: `Bearer ${admin}` } })
    ).json()) as { items: { comment_id: string; parent_id: string | null }[] };
    const first = listed.items.find((c) => c.parent_id === null)!;
    const resolved = await fetch(`${server.baseUrl}/api/comments/${first.comment_id}/resolve`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${admin}` },
      body: JSON.stringify({ resolved: true }),
    });
    expect(resolved.status).toBe(200);
    await page.reload();
    await expect.poll(() => badge.getAttribute("aria-label"), WAIT).toBe("2 комментария, 1 открыт");
    expect(await badge.textContent()).toBe("1");
    await badge.scrollIntoViewIfNeeded();
    await shot(page, `comments-tile-resolved-${label}`);

    if (label === "1440") {
      // The list view's row and a search hit carry the same badge.
      await page.getByTitle("Список").click();
      const row = page.locator("tr[data-member]", { hasText: "photo-1600x1200.jpg" }).getByTestId("comment-count");
      await expect.poll(() => row.getAttribute("aria-label"), WAIT).toBe("2 комментария, 1 открыт");
      await shot(page, `comments-row-${label}`);
      await page.getByTitle("Плитка").click();
      const folderId = folderUrl.split("/").pop()!;
      await page.goto(`/search?q=photo&group=${folderId}`);
      const hit = page.getByTestId("search-hits").locator("li", { hasText: "photo-1600x1200" }).getByTestId("comment-count");
      await expect.poll(() => hit.getAttribute("aria-label"), WAIT).toBe("2 комментария, 1 открыт");
      await shot(page, `comments-hit-${label}`);
      // A collection's page draws the folder's tiles: the same badge.
      const auth = { "content-type": "application/json", authorization: `Bearer ${admin}` };
      const made = await fetch(`${server.baseUrl}/api/collections`, { method: "POST", headers: auth, body: JSON.stringify({ name: `Клиенту ${Date.now()}` }) });
      const { collection_id } = (await made.json()) as { collection_id: string };
      const added = await fetch(`${server.baseUrl}/api/collections/${collection_id}/items`, { method: "POST", headers: auth, body: JSON.stringify({ asset_ids: [assetId] }) });
      expect(added.status).toBe(200);
      await page.goto(`/collections/${collection_id}`);
      const item = page.locator("[data-member]", { hasText: "photo-1600x1200.jpg" }).getByTestId("comment-count");
      await expect.poll(() => item.getAttribute("aria-label"), WAIT).toBe("2 комментария, 1 открыт");
      await shot(page, `comments-collection-${label}`);
    }
  });
}
