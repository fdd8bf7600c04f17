import type { Page } from "playwright-core";
import { billionLaughsXml, docxOf } from "../hostile/corpus.mjs";
import { makeAvFile } from "../fixtures/av-makers";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, test, type E2EServer } from "./fixtures";

/**
 * Issue 25, honest processing states: the viewer's «Технические данные» ends as done, not applicable (with why) or
 * failed (with why) once the tech-fields task has ended — never «Ещё не извлечены» for a plain-text file whose job
 * says «Выполнена», and a hostile document names the limit that stopped it.
 */

async function upload(server: E2EServer, bearer: string, group: string, name: string, mime: string, body: Uint8Array<ArrayBuffer>) {
  const response = await fetch(`${server.baseUrl}/api/asset/upload?${new URLSearchParams({ in_group: group, name })}`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": mime },
    body,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { asset_id: string }).asset_id;
}

/** A new top-level folder, and the administrator's bearer to fill it with. */
async function newFolder(server: E2EServer, name: string) {
  const api = await adminApi(server);
  return { bearer: api.bearer, group_id: await api.createGroup(ROOT, name) };
}

/** Reopens the file until the tech-fields task has ended with it (its stage has a state), then answers the text. */
async function techNote(page: Page, path: string): Promise<string> {
  await expect
    .poll(
      async () => {
        await page.goto(path);
        await page.getByTestId("tech-data").waitFor();
        return page.locator('[data-testid="tech-data"] [data-stage="text"]').count();
      },
      { timeout: 30_000, interval: 1_000 },
    )
    .toBe(1);
  return (await page.getByTestId("tech-data").textContent()) ?? "";
}

test("a .txt ends as «Нет: …» with its text done, and a billion-laughs .docx names its limit", async ({ page, server }) => {
  const { bearer, group_id } = await newFolder(server, `Состояния ${Date.now()}`);
  const txt = await upload(server, bearer, group_id, "заметка.txt", "text/plain", new TextEncoder().encode("Просто текст"));
  const bomb = await upload(
    server,
    bearer,
    group_id,
    "смешки.docx",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    docxOf(billionLaughsXml()),
  );
  await login(page, server.adminLogin, server.adminPassword);

  const plain = await techNote(page, `/mam/${group_id}/asset/${txt}`);
  expect(plain).not.toContain("Ещё не извлечены");
  expect(plain).toContain("Нет: у файлов этого типа нет технических данных");
  expect(await page.locator('[data-stage="text"]').getAttribute("data-state")).toBe("done");
  // A text file gets a text-card preview (decision 029); the stage may still be running when the page opens.
  await expect.poll(async () => {
    await page.reload();
    return page.locator('[data-stage="preview"]').getAttribute("data-state");
  }, { timeout: 30_000, interval: 1_000 }).toBe("done");

  await techNote(page, `/mam/${group_id}/asset/${bomb}`);
  expect(await page.locator('[data-stage="text"]').getAttribute("data-state")).toBe("failed");
  expect(await page.locator('[data-stage="text"]').textContent()).toContain(
    "ошибка: Файл слишком сложно распаковать: XML объявляет сущности",
  );
});

test("a video lists its duration, size, codecs, frame rate and sound; an MP4 cut before its index says why it has none", async ({ page, server }) => {
  const { bearer, group_id } = await newFolder(server, `Видео ${Date.now()}`);
  const clip = await makeAvFile({ container: "mp4", seconds: 3, fps: 24, width: 640, height: 360, audio: true });
  const camera = await makeAvFile({ container: "mp4", seconds: 2, fps: 25, audio: true, moovLast: true });
  const video = await upload(server, bearer, group_id, "ролик.mp4", "video/mp4", clip);
  const cut = await upload(server, bearer, group_id, "обрезанный.mp4", "video/mp4", camera.slice(0, camera.byteLength >> 1));
  await login(page, server.adminLogin, server.adminPassword);

  await techNote(page, `/mam/${group_id}/asset/${video}`);
  const row = (key: string) => page.locator(`[data-tech="${key}"]`).textContent();
  const label = (key: string) => page.locator(`dt:has(+ [data-tech="${key}"])`).textContent();
  expect(await label("duration")).toBe("Длительность");
  expect(await row("duration")).toBe("0:03");
  expect(await row("dimensions")).toBe("640 × 360 пикс.");
  expect(await row("codecs")).toBe("avc1.42001e, mp4a.40.2");
  expect(await row("frame_rate")).toBe("24 кадр/с");
  expect(await row("sample_rate")).toBe("48 кГц");
  expect(await row("channels")).toBe("стерео");
  expect(await row("container")).toBe("MP4");
  expect(await page.locator('[data-testid="tech-data"] [data-stage="tech"]').count()).toBe(0);

  const note = await techNote(page, `/mam/${group_id}/asset/${cut}`);
  expect(await page.locator('[data-stage="tech"]').getAttribute("data-state")).toBe("failed");
  expect(note).toContain("Не извлечены. дорожки аудио или видео не прочитаны: файл повреждён, обрезан");
  expect(await page.locator('[data-tech="duration"]').count()).toBe(0);
});
