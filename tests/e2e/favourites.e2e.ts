import { adminApi, ROOT } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

// Favourites (issue 28): a star on the folder header, on tiles and in the viewer; «Избранное» in the sidebar lists
// them through the server-side bookmarks (so another browser sees the same); a favourite of something deleted since
// is dropped silently.

test("favourites: star a folder and a file, open from the sidebar, unstar in the viewer; deleted ones disappear", async ({ page, browser, server }) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const folder = `Избранная папка ${stamp}`;
  const folderId = await api.createGroup(ROOT, folder);
  const doomed = `Временная ${stamp}`;
  const doomedId = await api.createGroup(ROOT, doomed);
  const file = `заметка-${stamp}.txt`;
  await api.uploadAsset(folderId, file, Buffer.from("избранное\n"), "text/plain");

  await login(page, server.adminLogin, server.adminPassword);
  const sidebar = page.getByTestId("favourites-nav");

  // The folder header's star; then the star on a tile.
  await page.goto(`/mam/${doomedId}`);
  await page.getByRole("button", { name: `Добавить «${doomed}» в избранное` }).click();
  await page.goto(`/mam/${folderId}`);
  await page.getByRole("button", { name: `Добавить «${folder}» в избранное` }).click();
  await expect.poll(() => page.getByRole("button", { name: `Убрать «${folder}» из избранного` }).getAttribute("aria-pressed")).toBe("true");
  const tile = page.locator("[data-member]", { hasText: file });
  await tile.hover();
  await tile.getByRole("button", { name: `Добавить «${file}» в избранное` }).click();
  await sidebar.getByRole("link", { name: file }).waitFor();
  await sidebar.getByRole("link", { name: folder }).waitFor();

  // Another browser (a second device) sees the same favourites; the trashed folder is gone from them.
  await api.call(`/api/group/delete/${doomedId}`, { method: "DELETE" });
  const other = await newPage(browser, { server });
  await login(other.page, server.adminLogin, server.adminPassword);
  const otherSidebar = other.page.getByTestId("favourites-nav");
  await otherSidebar.getByRole("link", { name: file }).waitFor();
  await otherSidebar.getByRole("link", { name: folder }).waitFor();
  expect(await otherSidebar.getByRole("link", { name: doomed }).count()).toBe(0);

  // Open the file from the sidebar; its star in the viewer is on; unstar it there.
  await sidebar.getByRole("link", { name: file }).click();
  await expect.poll(() => page.locator("h1").textContent(), { timeout: 10_000 }).toBe(file);
  // The sidebar drops the star at once; the reload waits for the server to have stored it.
  const stored = page.waitForResponse((r) => r.url().includes("/api/user/bookmarks") && r.request().method() === "PATCH" && r.ok());
  await page.getByRole("button", { name: `Убрать «${file}» из избранного` }).click();
  await sidebar.getByRole("link", { name: file }).waitFor({ state: "detached" });
  await stored;
  await page.reload();
  await sidebar.getByRole("link", { name: folder }).waitFor();
  expect(await sidebar.getByRole("link", { name: file }).count()).toBe(0);
  expect(await sidebar.getByRole("link", { name: doomed }).count()).toBe(0);
  // The administrator's account is shared by every e2e file: leave no favourites behind.
  await api.call("/api/user/bookmarks", { method: "PATCH", json: { [folderId]: null, [doomedId]: null } });
});
