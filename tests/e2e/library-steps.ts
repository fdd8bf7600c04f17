import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

/** Creates a folder under the library root as a user would, opens it and answers its id. */
export async function openNewFolder(page: Page, name: string): Promise<string> {
  await page.goto("/mam");
  await page.getByRole("button", { name: "Создать папку" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Создать папку" });
  await dialog.getByLabel("Название папки").fill(name);
  await dialog.getByRole("button", { name: "Создать" }).click();
  await openRootFolder(page, name);
  await page.getByText("В этой папке пока ничего нет").waitFor();
  return new URL(page.url()).pathname.split("/").filter(Boolean).at(-1)!;
}

/**
 * Opens a top-level folder by its link in the library's root. The root lists 50 folders a page by name, and a whole
 * e2e run makes more than that, so a late name may be past the first page: every page is asked for.
 */
export async function openRootFolder(page: Page, name: string): Promise<void> {
  await page.getByRole("dialog").waitFor({ state: "detached" });
  await page.goto("/mam?pages=40");
  await page.getByRole("link", { name, exact: true }).click();
  await page.waitForURL(/\/mam\/[^/?]+$/);
}

export interface ScratchFile {
  path: string;
  bytes: Buffer;
  name: string;
}

/**
 * Files of random bytes on disk for the test file that calls it (Playwright takes at most 50 MB of in-memory
 * buffers); the folder is made before the tests and removed after them.
 * @example const makeFile = scratchFiles("mam-uploads-e2e-"); const big = await makeFile("Клип.mp4", 34 * MiB)
 */
export function scratchFiles(prefix: string): (name: string, size: number, subfolder?: string) => Promise<ScratchFile> {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return async (name, size, subfolder) => {
    const bytes = randomBytes(size);
    const under = subfolder ? join(dir, subfolder) : dir;
    await mkdir(under, { recursive: true });
    const path = join(under, name);
    await writeFile(path, bytes);
    return { path, bytes, name };
  };
}
