import { deflateSync } from "node:zlib";
import type { Page } from "playwright-core";
import { ROOT_GROUP_ID } from "../../workers/lib/ids";
import { expect, login, newPage, test, type E2EServer } from "./fixtures";
import { EDITOR } from "./seed";

/** Well-formed ids that no row has. */
const NO_FOLDER = "0000000000007000800000000000dead";
const NO_FILE = "0000000000007000800000000000beef";

const unavailable = (page: Page) => page.getByTestId("unavailable-page");

async function apiSignIn(server: E2EServer, user: string, passwd: string): Promise<string> {
  const response = await fetch(`${server.baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user, passwd }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { bearer: string }).bearer;
}

/** The not-found page: its Russian title, no folder actions, no toast, and the way back to «Доступные Файлы». */
async function expectUnavailable(page: Page, title: string) {
  await unavailable(page).waitFor();
  expect(await unavailable(page).locator("h1").textContent()).toBe(title);
  expect(await page.getByRole("button", { name: "Создать папку" }).count()).toBe(0);
  expect(await page.getByRole("button", { name: "Загрузить" }).count()).toBe(0);
  expect(await page.locator(".toast").count()).toBe(0);
  // The shell stays: the navigation is still there.
  expect(await page.getByRole("link", { name: "Файлы", exact: true }).count()).toBeGreaterThan(0);
}

test("a folder that does not exist shows «Папка не найдена или нет доступа» with the way back", async ({ page, pageErrors, server }) => {
  pageErrors.expect(/status of 404/);
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto(`/mam/${NO_FOLDER}`);
  await expectUnavailable(page, "Папка не найдена или нет доступа");
  await page.getByRole("link", { name: "К доступным файлам" }).click();
  await page.waitForURL((url) => url.pathname === "/mam");
  await expect.poll(() => page.locator("h1").first().textContent()).toBe("Доступные Файлы");
});

test("a malformed folder address answers with the same page inside the shell (the route's error boundary)", async ({ page, pageErrors, server }) => {
  pageErrors.expect(/status of 404/);
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto("/mam/not-a-folder-id");
  await expectUnavailable(page, "Папка не найдена или нет доступа");
});

test("an address no screen answers shows «Страница не найдена» inside the shell, without hydration errors", async ({ page, pageErrors, server }) => {
  pageErrors.expect(/status of 404/);
  await login(page, server.adminLogin, server.adminPassword);
  // /admin/… matches the admin layout but no screen: it used to hydrate another tree than the server rendered.
  for (const path of ["/admin/no-such-screen", "/shop/no/such/screen", "/no-such-page"]) {
    await page.goto(path);
    await expectUnavailable(page, "Страница не найдена");
  }
});

test("a folder the user may not see shows the same page as a missing one", async ({ browser, server }) => {
  const bearer = await apiSignIn(server, server.adminLogin, server.adminPassword);
  const created = await fetch(`${server.baseUrl}/api/group/create`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ parent: ROOT_GROUP_ID, group_name: `Закрытая папка ${Date.now()}` }),
  });
  expect(created.status).toBe(200);
  const { group_id } = (await created.json()) as { group_id: string };
  // The editor has no rule on the administrator's new folder: the server refuses it.
  const editorBearer = await apiSignIn(server, EDITOR.login, EDITOR.password);
  const refused = await fetch(`${server.baseUrl}/api/group/get/${group_id}`, { headers: { authorization: `Bearer ${editorBearer}` } });
  expect([403, 404]).toContain(refused.status);

  const editor = await newPage(browser, { server });
  editor.errors.expect(new RegExp(`status of ${refused.status}`));
  await login(editor.page, EDITOR.login, EDITOR.password);
  await editor.page.goto(`/mam/${group_id}`);
  await expectUnavailable(editor.page, "Папка не найдена или нет доступа");
});

test("a file that does not exist shows «Файл не найден или нет доступа», not «Загрузка…» forever", async ({ page, pageErrors, server }) => {
  pageErrors.expect(/status of 404/);
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto(`/asset/${NO_FILE}`);
  await expectUnavailable(page, "Файл не найден или нет доступа");
  expect(await page.getByText("Загрузка…").count()).toBe(0);

  await page.goto(`/mam/${NO_FOLDER}/asset/${NO_FILE}`);
  await expectUnavailable(page, "Файл не найден или нет доступа");
  await page.getByRole("link", { name: "К доступным файлам" }).click();
  await page.waitForURL((url) => url.pathname === "/mam");

  // Opening by id: a malformed id gets the app's own message, not the browser's bubble.
  await page.goto("/asset");
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await page.getByLabel("Идентификатор файла").fill("не-идентификатор");
  await page.getByRole("button", { name: "Открыть" }).click();
  expect(await page.getByRole("alert").textContent()).toBe("Идентификатор файла — 32 шестнадцатеричных символа (0–9, a–f)");
  expect(new URL(page.url()).pathname).toBe("/asset");
});

test("a screen that crashes while rendering shows «Что-то пошло не так» inside the shell, with a retry and the way back", async ({ page, pageErrors, server }) => {
  // The boundary logs what it caught; the malformed answer below is the point of the test.
  pageErrors.expect(/Cannot read properties of undefined/);
  await login(page, server.adminLogin, server.adminPassword);
  // A survey summary without its fields: /admin/survey fails while rendering it.
  await page.route("**/api/pqi/summary*", (route) => route.fulfill({ status: 200, contentType: "application/json", body: "{}" }));
  await page.goto("/admin/survey");
  await unavailable(page).waitFor();
  expect(await unavailable(page).locator("h1").textContent()).toBe("Что-то пошло не так");
  expect(await unavailable(page).textContent()).toContain("Экран не удалось показать");
  expect(await page.getByRole("link", { name: "Файлы", exact: true }).count()).toBeGreaterThan(0);
  expect(await page.getByRole("button", { name: "Попробовать ещё раз" }).count()).toBe(1);

  // The way back works: «Доступные Файлы» opens as usual.
  await page.unroute("**/api/pqi/summary*");
  await unavailable(page).getByRole("link", { name: "К доступным файлам" }).click();
  await expect.poll(() => new URL(page.url()).pathname).toBe("/mam");
  await expect.poll(() => unavailable(page).count()).toBe(0);
});

test("the wrong-password toast does not survive the successful sign-in that follows", async ({ page, pageErrors, server }) => {
  pageErrors.expect(/status of 401/);
  await page.goto("/login");
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  // Empty fields: the form's own Russian message, no browser bubble and no request.
  await page.getByRole("button", { name: "Войти" }).click();
  expect(await page.getByTestId("login-error").textContent()).toBe("Введите логин и пароль");

  await page.locator('input[name="user"]').fill(server.adminLogin);
  await page.locator('input[name="passwd"]').fill("definitely-wrong");
  await page.getByRole("button", { name: "Войти" }).click();
  await page.locator(".toast", { hasText: "Неверный логин или пароль" }).waitFor();

  await page.locator('input[name="passwd"]').fill(server.adminPassword);
  await page.getByRole("button", { name: "Войти" }).click();
  await page.waitForURL((url) => url.pathname === "/mam");
  await expect.poll(() => page.locator("h1").first().textContent()).toBe("Доступные Файлы");
  expect(await page.locator(".toast").count()).toBe(0);
});

test("human type names, the folder's item count, «Копировать сюда», a named delete confirmation and one highlighted sidebar item", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  const folder = `Типы файлов ${Date.now()}`;
  await page.getByRole("button", { name: "Создать папку" }).first().click();
  const create = page.getByRole("dialog", { name: "Создать папку" });
  await create.getByLabel("Название папки").fill(folder);
  await create.getByRole("button", { name: "Создать" }).click();
  await create.waitFor({ state: "detached" });
  await page.getByRole("link", { name: folder }).click();
  await page.getByTestId("folder-count").waitFor();
  await expect.poll(() => page.getByTestId("folder-count").textContent(), { timeout: 10_000 }).toBe("Пусто");

  await page.getByTestId("upload-input").setInputFiles({ name: "заметка.txt", mimeType: "text/plain", buffer: Buffer.from("Привет, медиатека") });
  const tile = page.locator("[data-member]", { hasText: "заметка.txt" });
  await tile.waitFor();
  await expect.poll(() => page.getByTestId("folder-count").textContent(), { timeout: 10_000 }).toBe("1 элемент");
  await expect.poll(() => tile.locator(".tile-sub").textContent()).toMatch(/^Текст · /);

  // The list view shows the type column in words too.
  await page.getByRole("button", { name: "Список" }).click();
  const row = page.locator("tr[data-member]", { hasText: "заметка.txt" });
  await row.waitFor();
  expect(await row.locator("td").nth(2).textContent()).toBe("Текст");
  await page.getByRole("button", { name: "Плитка" }).click();

  // The viewer: the type in words with the MIME type beside it, and the copy dialog's button.
  await page.locator("[data-member]", { hasText: "заметка.txt" }).getByRole("link", { name: "заметка.txt", exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "заметка.txt" }).waitFor();
  await page.getByText("Текст (text/plain)").waitFor();
  await page.getByRole("button", { name: "Копировать", exact: true }).click();
  const copy = page.getByRole("dialog", { name: "Копировать в папку" });
  await copy.getByRole("button", { name: "Копировать сюда" }).waitFor();
  expect(await copy.getByRole("button", { name: "Переместить сюда" }).count()).toBe(0);
  await copy.getByRole("button", { name: "Отмена" }).click();
  // The delete confirmation names the file.
  await page.getByRole("button", { name: "Удалить", exact: true }).click();
  const confirm = page.getByRole("dialog", { name: "Удалить «заметка.txt»?" });
  await confirm.waitFor();
  await confirm.getByRole("button", { name: "Отмена" }).click();

  // In the trash only «Корзина» is highlighted, in a folder only «Файлы».
  const current = () => page.locator('nav a[aria-current="page"]').allTextContents();
  await expect.poll(current).toEqual(["Файлы"]);
  await page.goto("/mam/trash");
  await expect.poll(current).toEqual(["Корзина"]);
  expect(await page.locator("nav a.nav-link.active").count()).toBe(1);
});

/** A real PNG of one grey colour, so the tech-fields task has dimensions to read. */
function solidPng(width: number, height: number): Buffer {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([head, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0; // filter byte of each row
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}

test("the viewer shows «Технические данные» the tech-fields task read from the file", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  const folder = `Техданные ${Date.now()}`;
  await page.getByRole("button", { name: "Создать папку" }).first().click();
  const create = page.getByRole("dialog", { name: "Создать папку" });
  await create.getByLabel("Название папки").fill(folder);
  await create.getByRole("button", { name: "Создать" }).click();
  await create.waitFor({ state: "detached" });
  await page.getByRole("link", { name: folder }).click();
  await page.getByTestId("upload-input").setInputFiles({ name: "кадр.png", mimeType: "image/png", buffer: solidPng(80, 60) });
  const tile = page.locator("[data-member]", { hasText: "кадр.png" });
  await tile.waitFor();
  await tile.getByRole("link", { name: "кадр.png", exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "кадр.png" }).waitFor();
  await page.getByTestId("tech-data").getByText("Технические данные").waitFor();
  // The task runs in the background after the upload: reopen the file until it has answered.
  await expect
    .poll(
      async () => {
        await page.reload();
        await page.getByTestId("tech-data").waitFor();
        return page.locator('[data-tech="dimensions"]').count();
      },
      { timeout: 30_000, interval: 1_000 },
    )
    .toBe(1);
  expect(await page.locator('[data-tech="dimensions"]').textContent()).toBe("80 × 60 пикс.");
  expect(await page.getByText("Изображение PNG (image/png)").count()).toBe(1);
});

test("the trash deletes one item for good or empties itself, each after a confirmation that names what goes", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  const folder = `Корзина ${Date.now()}`;
  await page.getByRole("button", { name: "Создать папку" }).first().click();
  const create = page.getByRole("dialog", { name: "Создать папку" });
  await create.getByLabel("Название папки").fill(folder);
  await create.getByRole("button", { name: "Создать" }).click();
  await create.waitFor({ state: "detached" });
  await page.getByRole("link", { name: folder }).click();
  await page.getByTestId("upload-input").setInputFiles([
    { name: "черновик.txt", mimeType: "text/plain", buffer: Buffer.from("черновик") },
    { name: "копия.txt", mimeType: "text/plain", buffer: Buffer.from("копия") },
  ]);
  for (const name of ["черновик.txt", "копия.txt"]) {
    const tile = page.locator("[data-member]", { hasText: name });
    await tile.waitFor();
    // A tile's single actions are in its menu (its hover cluster is the star and «⋯»).
    await tile.click({ button: "right" });
    await page.getByRole("menu", { name: `Действия: ${name}` }).getByRole("menuitem", { name: "Удалить" }).click();
    const confirm = page.getByRole("dialog", { name: `Удалить «${name}»?` });
    await confirm.getByRole("button", { name: "Удалить" }).click();
    await tile.waitFor({ state: "detached" });
  }

  await page.goto("/mam/trash");
  const row = (name: string) => page.locator("tr[data-member]", { hasText: name });
  await row("черновик.txt").waitFor();
  expect(await row("черновик.txt").locator("td").nth(1).textContent()).toBe("Текст");
  // Where it was: the folder, as a link back to it.
  expect(await row("черновик.txt").getByTestId("trash-location").textContent()).toBe(folder);
  await page.getByRole("button", { name: "Удалить навсегда: черновик.txt" }).click();
  const purge = page.getByRole("dialog", { name: "Удалить «черновик.txt» навсегда?" });
  await purge.getByRole("button", { name: "Удалить навсегда" }).click();
  await row("черновик.txt").waitFor({ state: "detached" });
  expect(await row("копия.txt").count()).toBe(1);
  // The purge task ran in the background: after a reload the file is still gone, the other one still there.
  await expect
    .poll(
      async () => {
        await page.reload();
        await row("копия.txt").waitFor();
        return row("черновик.txt").count();
      },
      { timeout: 30_000, interval: 1_000 },
    )
    .toBe(0);

  const listed = await page.locator("tr[data-member]").count();
  await page.getByRole("button", { name: "Очистить корзину" }).click();
  const empty = page.getByRole("dialog", { name: new RegExp(`^Удалить навсегда ${listed} элемент`) });
  await empty.getByRole("button", { name: "Очистить корзину" }).click();
  await page.getByText("Корзина пуста").waitFor();
  await expect
    .poll(
      async () => {
        await page.reload();
        // Loaded: either the rows or the empty state are on screen.
        await page.locator("tr[data-member], .panel.empty").first().waitFor();
        return page.getByText("Корзина пуста").count();
      },
      { timeout: 60_000, interval: 2_000 },
    )
    .toBe(1);
}, 150_000);

test("an empty folder name gets the app's Russian message; the Uppy picker shows sizes in Russian units", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  const folder = `Размеры ${Date.now()}`;
  await page.getByRole("button", { name: "Создать папку" }).first().click();
  const create = page.getByRole("dialog", { name: "Создать папку" });
  // An empty name: the app's own Russian message, not the browser's bubble.
  await create.getByRole("button", { name: "Создать" }).click();
  expect(await create.getByRole("alert").textContent()).toBe("Введите название");
  expect(await create.getByLabel("Название папки").getAttribute("aria-invalid")).toBe("true");
  await create.getByLabel("Название папки").fill(folder);
  await create.getByRole("button", { name: "Создать" }).click();
  await create.waitFor({ state: "detached" });
  await page.getByRole("link", { name: folder }).click();
  await page.getByRole("button", { name: "Загрузить" }).click();
  await page.locator(".uppy-Dashboard-inner").waitFor();
  await page
    .locator(".uppy-Dashboard-input")
    .first()
    .setInputFiles({ name: "смета.csv", mimeType: "text/csv", buffer: Buffer.alloc(4096, 0x41) });
  await expect.poll(() => page.locator(".uppy-Dashboard-Item-statusSize").first().textContent()).toBe("4 КБ");
});
