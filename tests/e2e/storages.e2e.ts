import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, test } from "./fixtures";

// /admin/storages (issue 28): an administrator adds an S3-compatible storage, which is saved only after the
// connection check passes, then edits it; keys never come back to the page. The S3 endpoint is a tiny local HTTP
// server standing in for the external system: it answers a listing of `media` for the key GOODKEY, «no such bucket»
// for other buckets and «invalid key» for other keys.

interface FakeEndpoint {
  url: string;
  server: Server;
  seen: string[];
}

function fakeS3(): Promise<FakeEndpoint> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const credential = /Credential=([^/]+)\//.exec(req.headers.authorization ?? "")?.[1] ?? "";
    seen.push(`${req.method} ${req.url} ${credential}`);
    const error = (status: number, code: string) => {
      res.writeHead(status, { "content-type": "application/xml" });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`);
    };
    const bucket = (req.url ?? "").split("?")[0].split("/")[1];
    if (bucket !== "media") return error(404, "NoSuchBucket");
    if (credential !== "GOODKEY") return error(403, "InvalidAccessKeyId");
    res.writeHead(200, { "content-type": "application/xml" });
    res.end('<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>media</Name><KeyCount>0</KeyCount></ListBucketResult>');
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen })),
  );
}

test("storages: add with a connection check (refused keys and a missing bucket save nothing), edit, usage and folders", async ({ page, pageErrors, server }) => {
  // The browser logs each refused save (the failed checks) as a console error.
  pageErrors.expect(/status of 400 .*\/api\/storage\/create/);
  pageErrors.expect(/status of 400 .*\/api\/storage\/update\//);
  const s3 = await fakeS3();
  try {
    const stamp = Date.now();
    const name = `Архив S3 ${stamp}`;
    const api = await adminApi(server);
    const countBefore = (await api.call<unknown[]>("/api/storage/list")).length;

    await login(page, server.adminLogin, server.adminPassword);
    await page.goto("/admin/storages");
    // The built-in storage is listed as the default.
    const r2 = page.getByTestId("storage-row").filter({ hasText: "Встроенное R2" });
    await expect.poll(() => r2.getByText("По умолчанию").count()).toBe(1);

    await page.getByRole("button", { name: "Добавить хранилище" }).click();
    const form = page.getByRole("dialog", { name: "Новое S3-совместимое хранилище" });
    await form.getByLabel("Название").fill(name);
    await form.getByLabel("Адрес (endpoint)").fill(s3.url);
    await form.getByLabel("Бакет").fill("media");
    await form.getByLabel("Идентификатор ключа (access key id)").fill("BADKEY");
    await form.getByLabel("Секретный ключ").fill("secret-one");
    await form.getByRole("button", { name: "Проверить и сохранить" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("Неверные ключи доступа");

    await form.getByLabel("Идентификатор ключа (access key id)").fill("GOODKEY");
    await form.getByLabel("Бакет").fill("missing");
    await form.getByRole("button", { name: "Проверить и сохранить" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("Бакет не найден");
    // Nothing was saved by either failed attempt.
    expect((await api.call<unknown[]>("/api/storage/list")).length).toBe(countBefore);

    await form.getByLabel("Бакет").fill("media");
    await form.getByRole("button", { name: "Проверить и сохранить" }).click();
    await form.waitFor({ state: "detached" });
    const row = page.getByTestId("storage-row").filter({ hasText: name });
    await row.getByText("••• задан").waitFor();
    await expect.poll(() => row.getByTestId("storage-files").textContent()).toBe("0");
    // The secret never reaches the page.
    expect(await page.content()).not.toContain("secret-one");

    // A folder that sends its files there is listed with a link.
    const storage = (await api.call<{ storage_id: string; storage_name: string }[]>("/api/storage/list")).find((s) => s.storage_name === name)!;
    const folder = `Папка в S3 ${stamp}`;
    const folderId = await api.createGroup(ROOT, folder);
    await api.call(`/api/group/update/${folderId}`, { method: "PATCH", json: { default_storage: storage.storage_id } });

    // Editing: the key fields stay empty («••• задан»); a rename with the stored keys is checked and saved.
    await page.reload();
    await row.getByRole("link", { name: folder }).waitFor();
    await row.getByRole("button", { name: `Изменить «${name}»` }).click();
    const edit = page.getByRole("dialog", { name: `Хранилище «${name}»` });
    await expect.poll(() => edit.getByLabel("Секретный ключ").inputValue()).toBe("");
    expect(await edit.getByLabel("Секретный ключ").getAttribute("placeholder")).toContain("••• задан");
    await edit.getByLabel("Название").fill(`${name} (основной)`);
    await edit.getByRole("button", { name: "Проверить и сохранить" }).click();
    await edit.waitFor({ state: "detached" });
    await page.getByTestId("storage-row").filter({ hasText: `${name} (основной)` }).waitFor();
    // Every check was a signed listing of the bucket; the last one used the stored key.
    expect(s3.seen.at(-1)).toBe("GET /media?list-type=2&max-keys=1 GOODKEY");

    // Choosing the default: the badge moves to the new storage, then back to the built-in one.
    const renamed = page.getByTestId("storage-row").filter({ hasText: `${name} (основной)` });
    await page.getByRole("button", { name: `Сделать «${name} (основной)» основным хранилищем` }).click();
    await renamed.getByText("По умолчанию").waitFor();
    expect(await r2.getByText("По умолчанию").count()).toBe(0);
    await page.getByRole("button", { name: "Сделать «R2» основным хранилищем" }).click();
    await r2.getByText("По умолчанию").waitFor();
    expect(await renamed.getByText("По умолчанию").count()).toBe(0);

    // An endpoint that does not answer: a clear message, the storage unchanged.
    await page.getByRole("button", { name: `Изменить «${name} (основной)»` }).click();
    const broken = page.getByRole("dialog", { name: `Хранилище «${name} (основной)»` });
    await broken.getByLabel("Адрес (endpoint)").fill("http://127.0.0.1:9");
    await broken.getByRole("button", { name: "Проверить и сохранить" }).click();
    await expect.poll(() => broken.getByRole("alert").textContent(), { timeout: 15_000 }).toContain("Хранилище не отвечает");
    const after = (await api.call<{ storage_id: string; storage_setup: { url: string } }[]>("/api/storage/list")).find(
      (s) => s.storage_id === storage.storage_id,
    )!;
    expect(after.storage_setup.url).toBe(s3.url);
  } finally {
    // Every later test uploads to the default storage: make sure it is the built-in one again.
    const api = await adminApi(server);
    await api.call(`/api/storage/update/${"0".repeat(32)}`, { method: "PATCH", json: { default: true } });
    s3.server.close();
  }
});
