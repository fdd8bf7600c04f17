import type { Page } from "playwright-core";
import { expect, login, test } from "./fixtures";

// Search end to end (SPEC §2 /search, §7 search calls): the top bar's box suggests as you type, Enter opens
// /search, a facet refines, a hit opens its viewer; the "Спросить" tab answers from an uploaded text document
// (its text is extracted by the background task) and its citation opens that document.

const heading = (page: Page) => page.locator("h1").textContent();

/** A word nobody else uses in this run: letters only, so it is one search word. */
function uniqueWord(): string {
  const letters = "бвгдзклмнпрстфх";
  return `бриз${[...String(Date.now()).slice(-6)].map((d) => letters[Number(d)]).join("")}`;
}

async function openNewFolder(page: Page, name: string) {
  await page.getByRole("button", { name: "Создать папку" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Создать папку" });
  await dialog.getByLabel("Название папки").fill(name);
  await dialog.getByRole("button", { name: "Создать" }).click();
  await dialog.waitFor({ state: "detached" });
  await page.getByRole("link", { name }).click();
  await expect.poll(() => heading(page), { timeout: 10_000 }).toBe(name);
}

test(
  "top-bar search with a suggestion, a facet and a hit; a RAG answer whose citation opens the document",
  { timeout: 120_000 },
  async ({ page, server }) => {
    const word = uniqueWord();
    await login(page, server.adminLogin, server.adminPassword);
    await openNewFolder(page, `Море ${word}`);
    await page.getByTestId("upload-input").setInputFiles([
      { name: `Фото-${word}.jpg`, mimeType: "image/jpeg", buffer: Buffer.from([0xff, 0xd8, 0xff, 0xd9]) },
      {
        name: `Отчёт ${word}.txt`,
        mimeType: "text/plain",
        buffer: Buffer.from(`Поездка ${word}.\n\nНа пляже песок был белый, а вода тёплая. Мы сделали много фотографий.`),
      },
    ]);
    await page.locator("[data-member]", { hasText: `Отчёт ${word}.txt` }).waitFor();
    await page.locator("[data-member]", { hasText: `Фото-${word}.jpg` }).waitFor();

    // Type in the top bar: suggestions appear; ↓ and Enter open the first one (a name: that folder or file).
    const box = page.getByRole("combobox", { name: "Поиск по файлам" });
    await box.fill(word.slice(0, 7));
    const list = page.getByRole("listbox", { name: "Подсказки" });
    await list.waitFor();
    expect(await list.getByRole("option").count()).toBeGreaterThan(0);
    const first = (await list.getByRole("option").first().textContent())!;
    expect(first.toLowerCase()).toContain(word.slice(0, 7));
    await box.press("ArrowDown");
    await expect.poll(() => list.getByRole("option").first().getAttribute("aria-selected")).toBe("true");
    await box.press("Enter");
    await expect.poll(() => heading(page), { timeout: 10_000 }).toBe(first);
    expect(new URL(page.url()).pathname).toMatch(/^\/(mam|asset)\/[0-9a-f]{32}$/);

    // Search the word itself: the folder and both files; the 'Папки' facet narrows to the folder, 'Файлы' to the files.
    await box.fill(word);
    await box.press("Enter");
    await expect.poll(() => new URL(page.url()).searchParams.get("q"), { timeout: 10_000 }).toBe(word);
    const hits = page.getByTestId("search-hits").locator(".search-hit");
    await expect.poll(() => hits.count()).toBe(3);
    await page.locator(".search-facet-value", { hasText: "Папки" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("type")).toBe("group");
    await expect.poll(() => hits.count()).toBe(1);
    await page.locator(".search-facet-value", { hasText: "Папки" }).click();
    await expect.poll(() => hits.count()).toBe(3);
    await page.locator(".search-facet-value", { hasText: "Файлы" }).click();
    await expect.poll(() => hits.count()).toBe(2);
    expect(await hits.locator("mark").first().textContent()).toBe(word);

    // Open a hit: the viewer of that file.
    await hits.getByRole("link", { name: `Фото-${word}.jpg` }).click();
    await expect.poll(() => heading(page), { timeout: 10_000 }).toBe(`Фото-${word}.jpg`);

    // Ask: the text is extracted in the background, so ask until the answer cites the report.
    await page.goto(`${server.baseUrl}/search?tab=ask`);
    const question = page.getByRole("textbox", { name: "Задайте вопрос по доступным документам" });
    await question.fill(`Какой песок на пляже в поездке ${word}?`);
    const answer = page.getByTestId("rag-answer");
    await expect
      .poll(
        async () => {
          await page.getByRole("button", { name: "Спросить" }).last().click();
          await answer.waitFor();
          return answer.textContent();
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toContain("песок был белый");
    expect(await answer.textContent()).toContain("Ответ составлен из цитат документов");
    await answer.getByRole("link", { name: new RegExp(`Отчёт ${word}\\.txt`) }).click();
    await expect.poll(() => heading(page), { timeout: 10_000 }).toBe(`Отчёт ${word}.txt`);

    // "Search in this folder": the folder's button opens /search limited to it; the top bar's query keeps the limit.
    await page.goto(`${server.baseUrl}/mam`);
    await page.getByRole("link", { name: `Море ${word}` }).click();
    await expect.poll(() => heading(page), { timeout: 10_000 }).toBe(`Море ${word}`);
    await page.getByRole("link", { name: "Искать в этой папке" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("group")).toMatch(/^[0-9a-f]{32}$/);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("combobox");
    await page.keyboard.type(word);
    await page.keyboard.press("Enter");
    await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe(word);
    expect(new URL(page.url()).searchParams.get("group")).toMatch(/^[0-9a-f]{32}$/);
    // The folder itself is not inside itself: its two files only.
    await expect.poll(() => hits.count()).toBe(2);
    expect(await page.locator(".search-active-filters").textContent()).toContain(`В папке: Море ${word}`);
  },
);
