import { adminApi, ROOT } from "./admin-seed";
import { expect, login, test } from "./fixtures";
import { EDITOR } from "./seed";
import { atTwoWidths } from "./two-widths";

// /admin/libraries (decision 044): an administrator sees each library's size beside what one database holds and
// moves one into a database of its own; the move runs as a task and the row follows it to «Отдельная база №N».
// Someone who is not an administrator never reaches the screen. Screenshots at 1440×900 and 390×844 go to
// E2E_SCREENSHOTS when it is set.

test(
  "libraries: sizes beside the 10 GB of a database, a move into a database of its own followed to the end",
  { timeout: 120_000 },
  async ({ page, server }) => {
    const api = await adminApi(server);
    const name = `Фотобанк ${Date.now()}`;
    const library = await api.createGroup(ROOT, name);
    const sub = await api.createGroup(library, "Репортажи");
    await api.uploadAsset(sub, "площадь.txt", Buffer.from(`Репортаж с площади ${name}\n`), "text/plain");

    await login(page, server.adminLogin, server.adminPassword);
    await page.goto("/admin/libraries");
    await page.getByRole("link", { name: "Библиотеки" }).waitFor();
    const row = page.getByTestId("library-row").filter({ hasText: name });
    await expect.poll(() => row.getByTestId("library-where").textContent()).toBe("В общей базе");
    // Two folders (the library and its subfolder), one file; the estimate is shown against the 10 GB.
    await expect.poll(() => row.locator("td").nth(1).textContent()).toBe("2");
    await expect.poll(() => row.locator("td").nth(2).textContent()).toBe("1");
    expect(await row.textContent()).toContain("от 10 ГБ");
    expect(await page.getByTestId("catalog-size").textContent()).toContain("Общая база:");
    await atTwoWidths(page, "libraries");

    await row.getByRole("button", { name: `Перенести библиотеку «${name}» в отдельную базу` }).click();
    const dialog = page.getByRole("dialog", { name: "Перенос в отдельную базу" });
    await expect.poll(() => dialog.textContent()).toContain(`Библиотека «${name}» будет скопирована`);
    await dialog.getByRole("button", { name: "Перенести" }).click();
    await dialog.waitFor({ state: "detached" });
    // The task runs in the background; the row follows it until the library lives in its own database.
    await expect.poll(() => row.getByTestId("library-where").textContent(), { timeout: 60_000 }).toMatch(/^Отдельная база №\d+с /);
    expect(await row.getByRole("button").count()).toBe(0);
    await atTwoWidths(page, "libraries-moved");

    // Its files still open and answer from their new home.
    await page.goto(`/mam/${sub}`);
    await page.locator("[data-member]", { hasText: "площадь.txt" }).waitFor();
  },
);

test("libraries: someone who is not an administrator is sent away and refused by the API", async ({ page, server }) => {
  await login(page, EDITOR.login, EDITOR.password);
  await page.goto("/admin/libraries");
  await page.waitForURL(/\/mam/);
  const bearer = await page.evaluate(() => localStorage.getItem("accessToken"));
  const api = await adminApi(server);
  expect(await api.status("/api/library-shards/plan", bearer!)).toBe(403);
});
