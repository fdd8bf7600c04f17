import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

/** Opens the 'Доступ' dialog of the folder or file on screen. */
async function openAccess(page: Page, name: string) {
  await page.getByRole("button", { name: "Доступ", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: `Доступ: ${name}` });
  await dialog.getByTestId("access-editor").locator(".acc-switch").waitFor();
  return dialog;
}

test("access rules: a read rule on one folder, download granted later, delete refused, inheritance switched off below", async ({
  page,
  browser,
  server,
}) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const shared = `Доступ для Бориса ${stamp}`;
  const other = `Чужая папка ${stamp}`;
  const sharedId = await api.createGroup(ROOT, shared);
  const subId = await api.createGroup(sharedId, "Вложенная");
  await api.createGroup(ROOT, other);
  const bytes = Buffer.from(`отчёт ${stamp}\n`.repeat(64));
  const assetId = await api.uploadAsset(sharedId, "отчёт.bin", bytes);
  await api.uploadAsset(subId, "план.bin", Buffer.from("план"));

  // The administrator creates the user on the admin screen.
  const boris = { name: `Борис Читатель ${stamp}`, login: `boris-${stamp}`, password: "пароль-бориса-1" };
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto("/admin/active-users");
  await page.getByRole("button", { name: "Новый пользователь" }).click();
  const form = page.getByRole("dialog", { name: "Новый пользователь" });
  await form.getByLabel("Имя").fill(boris.name);
  await form.getByLabel("Логин").fill(boris.login);
  await form.getByLabel("Пароль").fill(boris.password);
  await form.getByRole("button", { name: "Создать" }).click();
  await form.waitFor({ state: "detached" });

  // … and gives him read on one folder through the folder's 'Доступ' dialog.
  await page.goto(`/mam/${sharedId}`);
  let access = await openAccess(page, shared);
  await access.getByRole("textbox", { name: "Выдать доступ пользователю или группе" }).fill(boris.name);
  await access.getByRole("option", { name: new RegExp(boris.name) }).click();
  const rule = access.locator(`.acc-rule[data-subject="${boris.name}"]`);
  expect(await rule.getByRole("checkbox", { name: "Просмотр" }).isChecked()).toBe(true);
  expect(await rule.getByRole("checkbox", { name: "Скачивание" }).isChecked()).toBe(false);
  await access.getByRole("button", { name: "Сохранить права" }).click();
  await rule.locator(".adm-badge", { hasText: "новое" }).waitFor({ state: "detached" });
  await access.getByRole("button", { name: "Закрыть" }).click();

  // Boris signs in elsewhere: no admin entry, /admin sends him to /mam, and he sees that one folder only.
  const user = await newPage(browser, { server });
  const bp = user.page;
  await login(bp, boris.login, boris.password);
  expect(await bp.getByRole("link", { name: "Администрирование" }).count()).toBe(0);
  await bp.goto("/admin/active-users");
  await bp.waitForURL((url) => url.pathname === "/mam");
  await bp.getByRole("link", { name: shared }).waitFor();
  expect(await bp.getByRole("link", { name: other }).count()).toBe(0);
  expect(await bp.locator(".content table tbody tr").count()).toBe(1);

  // He opens it and the file; there is no 'Доступ' for him, the download and the delete are offered disabled, with
  // the reason, and the API refuses the delete all the same.
  await bp.getByRole("link", { name: shared }).click();
  await bp.locator("[data-member]", { hasText: "Вложенная" }).waitFor();
  await bp.locator("[data-member]", { hasText: "отчёт.bin" }).getByRole("link", { name: "отчёт.bin" }).click();
  await bp.locator("h1", { hasText: "отчёт.bin" }).waitFor();
  expect(await bp.getByRole("button", { name: "Доступ", exact: true }).count()).toBe(0);
  const refusedDownload = bp.getByRole("button", { name: "Скачать" }).first();
  expect(await refusedDownload.getAttribute("aria-disabled")).toBe("true");
  expect(await refusedDownload.getAttribute("title")).toBe("Нет права на скачивание этого файла");
  const refusedDelete = bp.getByRole("button", { name: "Удалить" });
  expect(await refusedDelete.getAttribute("title")).toBe("Нет права на удаление этого файла");
  await refusedDelete.click({ force: true }); // a click on it does nothing
  expect(await bp.getByRole("dialog").count()).toBe(0);
  const borisDelete = await fetch(`${server.baseUrl}/api/asset/${assetId}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${await bp.evaluate(() => localStorage.getItem("accessToken"))}`, "x-api-version": "1.0" },
  });
  expect(borisDelete.status).toBe(403);
  expect(await api.status(`/api/asset/${assetId}`, api.bearer)).toBe(200);
  const stillThere = await api.call<{ name: string }>(`/api/asset/${assetId}`);
  expect(stillThere.name).toBe("отчёт.bin");

  // The administrator adds 'Скачивание' to the rule; now Boris downloads the same bytes.
  access = await openAccess(page, shared);
  await access.locator(`.acc-rule[data-subject="${boris.name}"]`).getByRole("checkbox", { name: "Скачивание" }).check();
  await access.getByRole("button", { name: "Сохранить права" }).click();
  await access.getByText("Есть несохранённые изменения").waitFor({ state: "detached" });
  await access.getByRole("button", { name: "Закрыть" }).click();
  await bp.reload();
  await bp.locator("h1", { hasText: "отчёт.bin" }).waitFor();
  const [download] = await Promise.all([bp.waitForEvent("download"), bp.getByRole("button", { name: "Скачать" }).first().click()]);
  expect(Buffer.compare(await readFile((await download.path())!), bytes)).toBe(0);

  // The subfolder inherits the rule (shown as inherited, from the folder above) until inheritance is switched off.
  await bp.goto(`/mam/${subId}`);
  await bp.locator("[data-member]", { hasText: "план.bin" }).waitFor();
  await page.goto(`/mam/${subId}`);
  access = await openAccess(page, "Вложенная");
  const inherited = access.locator(`.acc-rule.inherited[data-subject="${boris.name}"]`);
  expect(await inherited.textContent()).toContain(`от «${shared}»`);
  await access.locator(".acc-switch").click();
  await access.getByText("Наследование выключено").waitFor();
  expect(await inherited.count()).toBe(0);
  expect(await access.getByRole("switch").isChecked()).toBe(false);

  // Boris loses the subfolder: it leaves the listing and its API answers 404, while the folder above stays his.
  await bp.goto(`/mam/${sharedId}`);
  await bp.locator("[data-member]", { hasText: "отчёт.bin" }).waitFor();
  expect(await bp.locator("[data-member]", { hasText: "Вложенная" }).count()).toBe(0);
  const borisBearer = await bp.evaluate(() => localStorage.getItem("accessToken"));
  expect(await api.status(`/api/group/get/${subId}`, borisBearer!)).toBe(404);
  expect(await api.status(`/api/group/get/${sharedId}`, borisBearer!)).toBe(200);
  await user.finish();
});

test("groups of users: members added on the admin pages receive the group's rule, and lose it when removed", async ({
  page,
  pageErrors,
  browser,
  server,
}) => {
  pageErrors.expect(/status of 409/); // the refused batch below
  const stamp = Date.now();
  const api = await adminApi(server);
  const team = `Монтажёры ${stamp}`;
  const project = `Проект для группы ${stamp}`;
  const teamId = await api.createGroup(ROOT, team);
  const projectId = await api.createGroup(ROOT, project);
  const vera = { name: `Вера Монтажёр ${stamp}`, login: `vera-${stamp}`, password: "пароль-веры-1" };
  const veraId = (
    await api.call<{ user_id: string }>("/api/user", {
      json: { user_name: vera.name, user_login: vera.login, user_passwd: vera.password, enabled: true },
    })
  ).user_id;
  await login(page, server.adminLogin, server.adminPassword);

  // The folder becomes a group of users: found from /admin/groups, Vera added on its users tab.
  await page.goto("/admin/groups");
  await page.getByRole("textbox", { name: "Добавить группу пользователей" }).fill(team);
  await page.getByRole("option", { name: new RegExp(team) }).click();
  await page.waitForURL((url) => url.pathname === `/admin/group/${teamId}/users`);
  await page.getByText("В группе нет пользователей").waitFor();
  await page.getByRole("textbox", { name: "Добавить пользователя" }).fill(vera.name);
  await page.getByRole("option", { name: new RegExp(vera.name) }).click();
  await page.locator(`tr[data-user="${vera.login}"]`).waitFor();
  await page.goto("/admin/groups");
  expect(await page.locator(`tr[data-group="${team}"]`).textContent()).toContain("1");

  // The group gets read on the project through the project's 'Доступ' dialog. Another administrator gives the
  // group a rule there first: the batch is refused as a whole and the dialog shows the API's reason.
  await page.goto(`/mam/${projectId}`);
  let access = await openAccess(page, project);
  await access.getByRole("textbox", { name: "Выдать доступ пользователю или группе" }).fill(team);
  await access.getByRole("option", { name: new RegExp(team) }).click();
  await api.call("/api/user/acl", { json: { subj: teamId, obj: projectId, acl: ["download"] } });
  await access.getByRole("button", { name: "Сохранить права" }).click();
  await access.getByRole("alert").filter({ hasText: "уже есть правило" }).waitFor();
  await access.getByRole("button", { name: "Закрыть" }).click();
  access = await openAccess(page, project);
  const teamRule = access.locator(`.acc-rule[data-subject="${team}"]`);
  expect(await teamRule.getByRole("checkbox", { name: "Скачивание" }).isChecked()).toBe(true);
  await teamRule.getByRole("checkbox", { name: "Просмотр" }).check();
  await access.getByRole("button", { name: "Сохранить права" }).click();
  await access.getByText("Есть несохранённые изменения").waitFor({ state: "detached" });
  await access.getByRole("button", { name: "Закрыть" }).click();

  // The group's page lists the rule; Vera's page shows it as coming through the group.
  await page.goto(`/admin/group/${teamId}/assets`);
  await page.locator(`tr[data-object="${project}"]`).waitFor();
  await page.goto(`/admin/user/${veraId}/assets`);
  expect(await page.locator(`tr[data-object="${project}"]`).textContent()).toContain(`Через группу «${team}»`);

  // Vera sees the project.
  const member = await newPage(browser, { server });
  await login(member.page, vera.login, vera.password);
  await member.page.getByRole("link", { name: project }).waitFor();

  // Removed from the group on her groups tab, she loses it.
  await page.getByRole("link", { name: "Группы", exact: true }).click();
  await page.getByRole("button", { name: `Исключить из группы «${team}»` }).click();
  await page.getByText("Пользователь не состоит в группах").waitFor();
  await member.page.reload();
  await member.page.locator("h1").waitFor();
  expect(await member.page.getByRole("link", { name: project }).count()).toBe(0);
  await member.finish();
});
