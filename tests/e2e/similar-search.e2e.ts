import { adminApi, ROOT } from "./admin-seed";
import { expect, login, test } from "./fixtures";

// «Похожие по смыслу» (issue 28): the vector search as a tab on /search, and «Найти похожие» in the viewer, which
// lists files near the open one in meaning, leaving the file itself out. Results are filtered by the reader's rights:
// a similar file in a folder the reader cannot open is never listed.

/** A word nobody else uses in this run (letters only). */
function uniqueWord(): string {
  const letters = "бвгдзклмнпрстфх";
  return `прибой${[...String(Date.now()).slice(-6)].map((d) => letters[Number(d)]).join("")}`;
}

test("similar files: the tab on /search and «Найти похожие» from the viewer, only what the reader may open", async ({ page, server }) => {
  const word = uniqueWord();
  const stamp = Date.now();
  const api = await adminApi(server);
  const shared = await api.createGroup(ROOT, `Побережье ${stamp}`);
  const secret = await api.createGroup(ROOT, `Закрытое ${stamp}`);
  const open = `${word} закат.txt`;
  const near = `${word} рассвет.txt`;
  const hidden = `${word} тайна.txt`;
  const openId = await api.uploadAsset(shared, open, Buffer.from("море\n"), "text/plain");
  await api.uploadAsset(shared, near, Buffer.from("море\n"), "text/plain");
  await api.uploadAsset(secret, hidden, Buffer.from("море\n"), "text/plain");
  const reader = { login: `similar-${stamp}`, password: "пароль-читателя-1" };
  const { user_id } = await api.call<{ user_id: string }>("/api/user", {
    json: { user_name: `Читатель ${stamp}`, user_login: reader.login, user_passwd: reader.password, enabled: true },
  });
  await api.call("/api/user/acl", { json: { subj: user_id, obj: shared, acl: ["read"] } });

  await login(page, reader.login, reader.password);
  // The viewer's «Найти похожие»: the other file of the shared folder, not the open one, not the hidden one.
  await page.goto(`/mam/${shared}/asset/${openId}`);
  await page.getByRole("link", { name: "Найти похожие" }).click();
  await expect.poll(() => page.locator("h1").textContent(), { timeout: 10_000 }).toBe(`Похожие на «${open}»`);
  const hits = page.getByTestId("similar-results").getByTestId("search-hits");
  await hits.getByRole("link", { name: near }).waitFor();
  const names = await hits.locator(".search-hit-name").allTextContents();
  expect(names).not.toContain(open);
  expect(names).not.toContain(hidden);

  // The tab on /search with a typed query; the administrator, who may read everything, sees the hidden one too.
  await page.goto(`/search?q=${encodeURIComponent(word)}`);
  await page.getByRole("button", { name: "Похожие по смыслу" }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get("tab")).toBe("similar");
  await hits.getByRole("link", { name: open }).waitFor();
  expect(await hits.getByRole("link", { name: hidden }).count()).toBe(0);
  const all = await api.call<{ hits: { name: string }[] }>(`/api/search/vector/${encodeURIComponent(word)}`);
  expect(all.hits.map((h) => h.name)).toContain(hidden);
});
