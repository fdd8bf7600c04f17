import { adminApi, ROOT } from "./admin-seed";
import { expect, login, test } from "./fixtures";

// The audit log in Russian (issue 28): details in words («Вход по паролю», «Права: чтение», «Администратор: нет»),
// ids shown as the names of users and folders, with links.

test("audit log: details in Russian, users and folders by name with links", async ({ page, server }) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const folder = `Папка аудита ${stamp}`;
  const folderId = await api.createGroup(ROOT, folder);
  const person = `Аудируемый ${stamp}`;
  const { user_id } = await api.call<{ user_id: string }>("/api/user", {
    json: { user_name: person, user_login: `audited-${stamp}`, user_passwd: "пароль-надёжный-1", enabled: true },
  });
  await api.call("/api/user/acl", { json: { subj: user_id, obj: folderId, acl: ["read"] } });

  await login(page, server.adminLogin, server.adminPassword);
  await page.goto("/admin/audit");
  const rule = page.locator('tr[data-action="acl.create"]', { hasText: folder }).first();
  await rule.waitFor();
  expect(await rule.textContent()).toContain("Права: чтение");
  expect(await rule.getByRole("link", { name: folder }).getAttribute("href")).toBe(`/mam/${folderId}`);
  expect(await rule.getByRole("link", { name: person }).getAttribute("href")).toBe(`/admin/user/${user_id}/assets`);

  const created = page.locator('tr[data-action="user.create"]', { hasText: person }).first();
  await created.waitFor();
  expect(await created.textContent()).toContain("Администратор: нет");
  expect(await created.textContent()).not.toContain("is_admin");

  await page.getByLabel("Действие").selectOption("auth.login");
  const signIn = page.locator('tr[data-action="auth.login"]').first();
  await expect.poll(() => signIn.textContent()).toContain("Вход по паролю");
  expect(await signIn.textContent()).not.toMatch(/session|method/);
  // No raw JSON anywhere in the details.
  expect(await page.locator("td.adm-details").allTextContents()).not.toContainEqual(expect.stringContaining("["));
});
