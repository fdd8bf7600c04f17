// UI upload benchmark (issue 13): 500 small files handed to the folder screen's upload input in Debian Chromium, timed
// from the hand-over until every file is committed in the folder, beside floors from the same run: /api/ping and the
// same 500 files sent straight to the API (one request each, six at a time, as the engine does) from Node. Beside the
// last commit it prints when the folder's grid showed the last file's tile (issue 28: tiles appear as files commit).
//
//   node bench/ui-uploads.mjs            (builds first; SKIP_BUILD=1 to reuse build/)
//   UI_UPLOAD_FILES=200 node bench/ui-uploads.mjs
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { buildUnlessSkipped, printTable } from "./lib/measure.mjs";

const ROOT_GROUP = "f".repeat(32);
const FILES = Math.max(1, Math.min(2_000, Number(process.env.UI_UPLOAD_FILES ?? 500)));
const FILE_BYTES = 10 * 1000;
/** what the engine runs at once for small files (app/lib/upload-engine/queue-rules.ts) */
const ENGINE_PARALLEL = 6;
const TARGET_SECONDS = 30;
const DONE_TIMEOUT_MS = 10 * 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function api(base, path, { method = "GET", bearer, json, body, headers = {} } = {}, expected = 200) {
  const h = { ...headers };
  if (bearer) h.authorization = `Bearer ${bearer}`;
  if (json !== undefined) h["content-type"] = "application/json";
  const response = await fetch(`${base}${path}`, { method, headers: h, body: json !== undefined ? JSON.stringify(json) : body });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
}

/** How many files the folder lists (members pages of 500). */
async function filesIn(base, bearer, groupId) {
  let count = 0;
  for (let skip = 0; ; skip += 500) {
    const page = await api(base, `/api/group/members/${groupId}?type=asset&take=500&skip=${skip}`, { bearer });
    count += page.length;
    if (page.length < 500) return count;
  }
}

/** `n` calls of `one`, `parallel` at a time; answers the elapsed milliseconds. */
async function timed(n, parallel, one) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let i = next++; i < n; i = next++) await one(i);
    }),
  );
  return performance.now() - started;
}

async function main() {
  buildUnlessSkipped();
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "mam-bench-ui-uploads-"));
  const filesDir = await mkdtemp(join(tmpdir(), "mam-bench-ui-files-"));
  console.log(`> wrangler dev on 127.0.0.1:${port} (state in ${persistDir})`);
  const server = await startDevServer({ port, persistDir });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });
  const rows = [];
  try {
    const base = server.url;
    const { bearer } = await api(base, "/api/auth/login", { method: "POST", json: { user: server.adminLogin, passwd: server.adminPassword } });
    const makeGroup = (name) => api(base, "/api/group/create", { method: "POST", bearer, json: { parent: ROOT_GROUP, group_name: name } });

    const paths = [];
    for (let i = 0; i < FILES; i++) {
      const path = join(filesDir, `заметка-${String(i).padStart(4, "0")}.txt`);
      await writeFile(path, randomBytes(FILE_BYTES));
      paths.push(path);
    }

    // Floors from the same run: the cheapest call, and the same files straight to the API as the engine sends them.
    const pingMs = await timed(FILES, ENGINE_PARALLEL, () => api(base, "/api/ping"));
    const floorGroup = await makeGroup(`Пол ${Date.now()}`);
    const body = randomBytes(FILE_BYTES);
    const apiMs = await timed(FILES, ENGINE_PARALLEL, (i) =>
      api(base, `/api/asset/upload?in_group=${floorGroup.group_id}&name=api-${i}.txt`, { method: "POST", bearer, body }, 201),
    );
    console.log(`> floors: ${FILES} × /api/ping ${(pingMs / 1000).toFixed(1)} s; ${FILES} files straight to the API ${(apiMs / 1000).toFixed(1)} s`);

    // UI_UPLOAD_IN_PAGE=1: Service Workers blocked, so the page's own engine uploads (the fallback).
    const context = await browser.newContext({
      baseURL: base,
      viewport: { width: 1440, height: 900 },
      serviceWorkers: process.env.UI_UPLOAD_IN_PAGE === "1" ? "block" : "allow",
    });
    // UI_UPLOAD_TRACE=1: how many requests of each kind the drop made (the page's and the upload worker's).
    const tally = new Map();
    if (process.env.UI_UPLOAD_TRACE === "1") {
      context.on("requestfinished", (r) => {
        const key = `${r.method()} ${new URL(r.url()).pathname.replace(/[0-9a-f]{32}/g, ":id")}`;
        const t = r.timing();
        const entry = tally.get(key) ?? { n: 0, ms: 0 };
        entry.n += 1;
        entry.ms += Math.max(0, t.responseEnd - t.requestStart);
        tally.set(key, entry);
      });
    }
    const page = await context.newPage();
    await page.goto("/login");
    await page.locator('input[name="user"]').fill(server.adminLogin);
    await page.locator('input[name="passwd"]').fill(server.adminPassword);
    await page.getByRole("button", { name: "Войти" }).click();
    await page.waitForURL((url) => !url.pathname.startsWith("/login"));
    const group = await makeGroup(`Папка на ${FILES} файлов ${Date.now()}`);
    await page.goto(`/mam/${group.group_id}`);
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    if (process.env.UI_UPLOAD_STILL === "1") await page.addStyleTag({ content: "*, *::before { animation: none !important; transition: none !important; }" });

    console.log(`> ${FILES} files of ${FILE_BYTES / 1000} KB handed to the folder's upload input in Chromium`);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable");
    const mainThread = async () => {
      const { metrics } = await cdp.send("Performance.getMetrics");
      const of = (name) => metrics.find((m) => m.name === name)?.value ?? NaN;
      return { task: of("TaskDuration"), script: of("ScriptDuration"), layout: of("LayoutDuration") + of("RecalcStyleDuration") };
    };
    // Every tile's first appearance in the grid (wall clock, shared with Node), and whether the grid ever emptied.
    await page.evaluate(() => {
      const seen = (window.__tiles = { at: {}, most: 0, blanked: 0 });
      new MutationObserver(() => {
        const tiles = document.querySelectorAll(".member-grid [data-member]");
        const now = Date.now();
        for (const tile of tiles) seen.at[tile.dataset.member] ??= now;
        if (tiles.length < seen.most) seen.blanked += 1;
        seen.most = Math.max(seen.most, tiles.length);
      }).observe(document.body, { subtree: true, childList: true });
    });
    const before = await mainThread();
    const startedAt = Date.now();
    const started = performance.now();
    await page.getByTestId("upload-input").setInputFiles(paths);
    let listed = 0;
    if (process.env.UI_UPLOAD_TRACE === "1") {
      await sleep(3000);
      const running = await page.evaluate(() =>
        document.getAnimations().map((a) => `${a.constructor.name}:${a.animationName ?? a.transitionProperty ?? ""}:${a.effect?.target?.className?.baseVal ?? a.effect?.target?.className ?? ""}`),
      );
      const counts = {};
      for (const r of running) counts[r] = (counts[r] ?? 0) + 1;
      console.log(`  animations 3 s in: ${JSON.stringify(counts)}`);
    }
    while (listed < FILES && performance.now() - started < DONE_TIMEOUT_MS) {
      await sleep(250);
      listed = await filesIn(base, bearer, group.group_id);
    }
    const uiMs = performance.now() - started;
    // The last tile: wait (up to 30 s more) until the grid has shown as many tiles as files.
    const tilesSeen = () => page.evaluate(() => ({ shown: Object.keys(window.__tiles.at).length, last: Math.max(0, ...Object.values(window.__tiles.at)), blanked: window.__tiles.blanked }));
    let grid = await tilesSeen();
    for (const until = performance.now() + 30_000; grid.shown < FILES && performance.now() < until; grid = await tilesSeen()) await sleep(250);
    const tileMs = grid.last - startedAt;
    console.log(`  the grid showed ${grid.shown} of ${FILES} tiles, the last ${(tileMs / 1000).toFixed(1)} s after the hand-over; it emptied ${grid.blanked} time(s)`);
    const panelDone = await page
      .getByTestId("upload-summary")
      .textContent()
      .catch(() => "");
    const after = await mainThread();
    console.log(
      `  the page's main thread was busy ${(after.task - before.task).toFixed(1)} s (script ${(after.script - before.script).toFixed(1)} s, style and layout ${(after.layout - before.layout).toFixed(1)} s)`,
    );
    for (const [key, { n, ms }] of [...tally].sort((a, b) => b[1].n - a[1].n).slice(0, 12)) {
      console.log(`    ${String(n).padStart(6)} × ${key.padEnd(40)} ${(ms / n).toFixed(0)} ms each`);
    }
    console.log(`  ${listed} of ${FILES} committed after ${(uiMs / 1000).toFixed(1)} s; panel: «${panelDone?.trim()}»`);

    rows.push(
      [`floor: ${FILES} × /api/ping, ${ENGINE_PARALLEL} at a time`, `${(pingMs / 1000).toFixed(1)} s`, "reported", "—"],
      [`floor: ${FILES} files straight to the API, ${ENGINE_PARALLEL} at a time`, `${(apiMs / 1000).toFixed(1)} s (${(FILES / (apiMs / 1000)).toFixed(1)} files/s)`, "reported", "—"],
      [
        `${FILES} × 10 KB through the UI, all committed`,
        `${(uiMs / 1000).toFixed(1)} s (${(listed / (uiMs / 1000)).toFixed(1)} files/s, ${listed}/${FILES})`,
        `< ${TARGET_SECONDS} s`,
        listed === FILES && uiMs < TARGET_SECONDS * 1000 ? "PASS" : "MISS",
      ],
      [
        `${FILES} × 10 KB through the UI, last tile shown in the grid`,
        `${(tileMs / 1000).toFixed(1)} s (${grid.shown}/${FILES} tiles, ${((tileMs - uiMs) / 1000).toFixed(1)} s after the last commit was seen)`,
        "≤ last commit + 1 s",
        grid.shown === FILES && grid.blanked === 0 && tileMs <= uiMs + 1000 ? "PASS" : "MISS",
      ],
    );
  } catch (error) {
    console.error(`benchmark failed: ${error.stack ?? error}`);
    console.error(`--- wrangler dev output (tail) ---\n${server.output()}`);
  } finally {
    await browser.close();
    await server.stop();
    await rm(persistDir, { recursive: true, force: true });
    await rm(filesDir, { recursive: true, force: true });
  }
  if (rows.length > 0) {
    console.log(`\nUI upload benchmark (Chromium → wrangler dev on loopback)`);
    printTable(rows);
  }
}

main();
