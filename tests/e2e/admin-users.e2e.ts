import type { Page } from "playwright-core";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, test } from "./fixtures";

/** The row of a user in the current list, found through the search box (the list pages by 25). */
async function findUser(page: Page, loginName: string) {
  await page.getByRole("searchbox", { name: "Поиск по имени или логину" }).fill(loginName);
  const row = page.locator(`tr[data-user="${loginName}"]`);
  await row.waitFor();
  return row;
}

test("users: create, duplicate login refused in place, disable, last administrator refused, delete", async ({
  page,
  pageErrors,
  server,
}) => {
  pageErrors.expect(/status of 409/); // the refusals below are answered 409 and logged by the browser
  const stamp = Date.now();
  const person = { name: `Анна Проверкина ${stamp}`, login: `anna-${stamp}` };
  await login(page, server.adminLogin, server.adminPassword);

  // The admin entry is in the navigation; the admin screen opens on its tabs.
  await page.getByRole("link", { name: "Администрирование" }).click();
  await page
    .getByRole("navigation", { name: "Администрирование" })
    .getByRole("link", { name: "Активные пользователи", exact: true })
    .click();
  await page.locator("tr[data-user]").first().waitFor();

  // Create a user. An empty form is answered by the app's own Russian messages, not the browser's bubbles.
  await page.getByRole("button", { name: "Новый пользователь" }).click();
  let dialog = page.getByRole("dialog", { name: "Новый пользователь" });
  await dialog.getByRole("button", { name: "Создать" }).click();
  expect(await dialog.locator(".field-error").allTextContents()).toEqual(["Заполните это поле", "Заполните это поле", "Заполните это поле"]);
  expect(await dialog.getByLabel("Имя").evaluate((el) => el === document.activeElement)).toBe(true);
  await dialog.getByLabel("Пароль").fill("коротко");
  await dialog.getByRole("button", { name: "Создать" }).click();
  await dialog.locator(".field-error", { hasText: "Не короче 8 символов" }).waitFor();
  await dialog.getByLabel("Имя").fill(person.name);
  await dialog.getByLabel("Логин").fill(person.login);
  await dialog.getByLabel("Пароль").fill("пароль-анны-1");
  await dialog.getByRole("button", { name: "Создать" }).click();
  await dialog.waitFor({ state: "detached" });
  const row = await findUser(page, person.login);
  expect(await row.textContent()).toContain(person.name);
  expect(await row.textContent()).toContain("Пользователь");

  // The same login in another case is refused, and the dialog says why.
  await page.getByRole("button", { name: "Новый пользователь" }).click();
  dialog = page.getByRole("dialog", { name: "Новый пользователь" });
  await dialog.getByLabel("Имя").fill("Двойник");
  await dialog.getByLabel("Логин").fill(person.login.toUpperCase());
  await dialog.getByLabel("Пароль").fill("пароль-двойника-1");
  await dialog.getByRole("button", { name: "Создать" }).click();
  await dialog.getByRole("alert").filter({ hasText: "уже занят" }).waitFor();
  await dialog.getByRole("button", { name: "Отмена" }).click();

  // The last administrator cannot be disabled: the refusal stays in the dialog. (Only when the bootstrapped
  // administrator is the only one, which it is unless another test file made more.)
  const api = await adminApi(server);
  const admins = await api.call<unknown[]>("/api/user?enabled=true&is_admin=true");
  if (admins.length === 1) {
    const adminRow = await findUser(page, server.adminLogin);
    await adminRow.getByRole("button", { name: /^Отключить: / }).click();
    dialog = page.getByRole("dialog", { name: "Отключить пользователя" });
    await dialog.getByRole("button", { name: "Отключить" }).click();
    await dialog.getByRole("alert").filter({ hasText: "последнего активного администратора" }).waitFor();
    await dialog.getByRole("button", { name: "Отмена" }).click();
  }

  // Disable the new user: it leaves the active list and shows among the inactive ones.
  await (await findUser(page, person.login)).getByRole("button", { name: `Отключить: ${person.name}` }).click();
  await page.getByRole("dialog", { name: "Отключить пользователя" }).getByRole("button", { name: "Отключить" }).click();
  await page.locator(`tr[data-user="${person.login}"]`).waitFor({ state: "detached" });
  await page.getByRole("link", { name: "Неактивные пользователи" }).click();
  const inactive = await findUser(page, person.login);
  expect(await inactive.textContent()).toContain(person.name);

  // A disabled user cannot sign in any more (the API says so too).
  const refused = await fetch(new URL("/api/auth/login", server.baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: person.login, passwd: "пароль-анны-1" }),
  });
  expect(refused.status).toBe(401);

  // Delete it; it owns nothing, so no new owner is needed.
  await inactive.getByRole("button", { name: `Удалить: ${person.name}` }).click();
  await page.getByRole("dialog", { name: "Удалить пользователя" }).getByRole("button", { name: "Удалить" }).click();
  await page.locator(`tr[data-user="${person.login}"]`).waitFor({ state: "detached" });
  const left = await api.call<unknown[]>(`/api/user?q=${encodeURIComponent(person.login)}`);
  expect(left).toEqual([]);

  // The audit log shows what happened, filtered by action.
  await page.getByRole("link", { name: "Журнал аудита" }).click();
  await page.locator("tr[data-action]").first().waitFor();
  await page.getByLabel("Действие").selectOption("user.delete");
  await page.locator('tr[data-action="user.delete"]').first().waitFor();
  // the unfiltered rows stay until the filtered page arrives: wait for them to go
  await expect.poll(() => page.locator('tr[data-action]:not([data-action="user.delete"])').count()).toBe(0);
  expect(await page.locator("tr[data-action]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-action")))).toEqual(
    expect.arrayContaining(["user.delete"]),
  );
  await page.getByLabel("Действие").selectOption("user.*");
  await page.locator('tr[data-action="user.create"]').first().waitFor();
  await page.locator('tr[data-action="user.disable"]').first().waitFor();
});

test("robots: create one, issue a token shown once with a copy button, use it, revoke it", async ({ page, tracked, server }) => {
  await tracked.context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const stamp = Date.now();
  const robot = { name: `Робот выгрузки ${stamp}`, login: `robot-${stamp}` };
  const api = await adminApi(server);
  const scope = await api.createGroup(ROOT, `Область робота ${stamp}`);
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto("/admin/active-users");

  // A robot needs no password: the form says so.
  await page.getByRole("button", { name: "Новый робот" }).click();
  const dialog = page.getByRole("dialog", { name: "Новый робот" });
  await dialog.getByText("Роботы входят только по токенам API").waitFor();
  await dialog.getByLabel("Имя").fill(robot.name);
  await dialog.getByLabel("Логин").fill(robot.login);
  await dialog.getByRole("button", { name: "Создать" }).click();
  await dialog.waitFor({ state: "detached" });
  const row = await findUser(page, robot.login);
  expect(await row.textContent()).toContain("Робот");

  // Its page has a tokens tab.
  await row.getByRole("link", { name: robot.name }).click();
  await page.getByRole("link", { name: "Токены API" }).click();
  await page.getByText("Токенов нет").waitFor();
  await page.getByRole("button", { name: "Новый токен" }).click();
  const create = page.getByRole("dialog", { name: "Новый токен" });
  await create.getByLabel("Название").fill("CI");
  await create.getByLabel("Действует до").fill("2099-12-31");
  await create.getByRole("textbox", { name: "Только в группах" }).fill(`Область робота ${stamp}`);
  await create.getByRole("option", { name: new RegExp(`Область робота ${stamp}`) }).click();
  await create.locator(".adm-chip", { hasText: `Область робота ${stamp}` }).waitFor();
  await create.getByRole("button", { name: "Создать" }).click();

  // The token is shown once, with a copy button.
  const shown = page.getByRole("dialog", { name: "Токен создан" });
  const token = await shown.getByLabel("Токен").inputValue();
  expect(token).toMatch(/^mamr_/);
  await shown.getByRole("button", { name: "Копировать" }).click();
  await shown.getByRole("button", { name: "Скопировано" }).waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  await shown.getByRole("button", { name: "Готово" }).click();
  const tokenRow = page.locator('tr[data-token="CI"]');
  expect(await tokenRow.textContent()).toContain("Действует");
  expect(await tokenRow.textContent()).toContain(token.slice(0, 10));
  expect(await tokenRow.textContent()).not.toContain(token);

  // The robot calls the API with it; the list shows the scope and the expiry.
  const whoami = await api.call<{ name: string }>("/api/auth/whoami", { bearer: token });
  expect(whoami.name).toBe(robot.name);
  const [listed] = await api.call<{ scope_groups: string[]; expires_at: string }[]>(
    `/api/user/${new URL(page.url()).pathname.split("/")[3]}/tokens`,
  );
  expect(listed.scope_groups).toEqual([scope]);
  expect(listed.expires_at.startsWith("2099-12-31")).toBe(true);

  // Revoked, it stops working at once.
  await tokenRow.getByRole("button", { name: "Отозвать" }).click();
  await page.getByRole("dialog", { name: "Отозвать токен" }).getByRole("button", { name: "Отозвать" }).click();
  await tokenRow.getByText("Отозван").waitFor();
  expect(await api.status("/api/auth/whoami", token)).toBe(401);
});

test("users: edit with a chroot group, and delete one who owns files by choosing the new owner", async ({ page, pageErrors, server }) => {
  pageErrors.expect(/status of 409/); // the delete without a new owner is refused first
  const stamp = Date.now();
  const api = await adminApi(server);
  const fedor = { name: `Фёдор Уходящий ${stamp}`, login: `fedor-${stamp}`, password: "пароль-фёдора-1" };
  const fedorId = (
    await api.call<{ user_id: string }>("/api/user", {
      json: { user_name: fedor.name, user_login: fedor.login, user_passwd: fedor.password, enabled: true },
    })
  ).user_id;
  const session = await api.call<{ bearer: string }>("/api/auth/login", { json: { user: fedor.login, passwd: fedor.password } });
  const folder = `Папка Фёдора ${stamp}`;
  const folderId = (
    await api.call<{ group_id: string }>("/api/group/create", { json: { parent: ROOT, group_name: folder }, bearer: session.bearer })
  ).group_id;
  const confine = await api.createGroup(ROOT, `Ограничение ${stamp}`);

  // Edit: a new name and a chroot group picked by name.
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto("/admin/active-users");
  await (await findUser(page, fedor.login)).getByRole("button", { name: `Изменить: ${fedor.name}` }).click();
  const edit = page.getByRole("dialog", { name: "Изменить пользователя" });
  await edit.getByLabel("Имя").fill(`${fedor.name} (архив)`);
  await edit.getByRole("textbox", { name: "Ограничить группами" }).fill(`Ограничение ${stamp}`);
  await edit.getByRole("option", { name: new RegExp(`Ограничение ${stamp}`) }).click();
  await edit.getByRole("button", { name: "Сохранить" }).click();
  await edit.waitFor({ state: "detached" });
  const row = await findUser(page, fedor.login);
  await row.getByText("Ограничен группами").waitFor();
  const saved = await api.call<{ user_name: string; chroot_groups: string[] }>(`/api/user/${fedorId}`);
  expect(saved).toMatchObject({ user_name: `${fedor.name} (архив)`, chroot_groups: [confine] });

  // His page shows what he owns.
  await row.getByRole("link", { name: `${fedor.name} (архив)` }).click();
  await page.locator(`tr[data-owned="${folder}"]`).waitFor();

  // Disabled from his page, then deleted: first refused (he owns a folder), then with the administrator as new owner.
  await page.getByRole("button", { name: "Отключить", exact: true }).click();
  await page.getByRole("dialog", { name: "Отключить пользователя" }).getByRole("button", { name: "Отключить" }).click();
  await page.getByText("Отключён", { exact: true }).waitFor();
  await page.getByRole("button", { name: "Удалить", exact: true }).click();
  const remove = page.getByRole("dialog", { name: "Удалить пользователя" });
  await remove.getByRole("button", { name: "Удалить" }).click();
  await remove.getByRole("alert").filter({ hasText: "Укажите нового владельца" }).waitFor();
  const admin = await api.call<{ id: string; name: string }>("/api/auth/whoami");
  await remove.getByRole("textbox", { name: "Новый владелец его файлов и папок" }).fill(admin.name);
  await remove
    .getByRole("option", { name: new RegExp(admin.name) })
    .first()
    .click();
  await remove.getByRole("button", { name: "Удалить" }).click();
  await page.waitForURL((url) => url.pathname === "/admin/inactive-users");
  expect(await api.status(`/api/user/${fedorId}`, api.bearer)).toBe(404);
  const moved = await api.call<{ group_owner: string }>(`/api/group/get/${folderId}`);
  expect(moved.group_owner).toBe(admin.id);
});
