import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

/**
 * The browser's proxy maker (decision 029, «The proxy maker»): a video Chromium's `<video>` refuses but WebCodecs
 * decodes (H.264 in MPEG-TS, as AVCHD's .mts) is converted by the viewing browser, stored as the version's
 * `proxy_lowres` by a user without `update`, and played; a codec Chromium cannot decode (ProRes) gets the reason in
 * Russian and nothing is stored. Both source files are made in the browser by mediabunny itself.
 */

const SHOTS = process.env.E2E_SCREENSHOTS ?? "/tmp/videoproxy";
// The package's exports hide its bundles: read from the checkout (the e2e runner starts at the repository root).
const MEDIABUNNY = readFileSync(join(process.cwd(), "node_modules/mediabunny/dist/bundles/mediabunny.min.mjs"), "utf8");
/** A scratch origin of its own (localhost is a secure context, as WebCodecs needs), served by the test. */
const SCRATCH = "http://localhost:9";

/**
 * Makes a source file in a scratch page: `ts` — 12 s of 960 × 540 H.264 at 25 fps in MPEG-TS (moving shapes on a
 * changing background); `prores` — a MOV whose one track is declared ProRes 422 HQ (`apch`) with filler packets.
 * Also answers whether Chromium's `<video>` plays it (the point of the test is that it does not).
 */
async function makeSource(scratch: Page, kind: "ts" | "prores"): Promise<{ bytes: Buffer; plays: string }> {
  await scratch.route(`${SCRATCH}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    return path === "/mediabunny.mjs"
      ? route.fulfill({ body: MEDIABUNNY, contentType: "text/javascript" })
      : route.fulfill({ body: "<!doctype html><title>scratch</title><body></body>", contentType: "text/html" });
  });
  await scratch.goto(`${SCRATCH}/`);
  // A module script (not an `import()` in the evaluated function: the test runner would rewrite that one).
  await scratch.addScriptTag({ type: "module", content: 'import * as mb from "/mediabunny.mjs"; window.mb = mb;' });
  await scratch.waitForFunction(() => "mb" in window);
  const made = await scratch.evaluate(async (kind) => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const mb = (window as unknown as { mb: any }).mb;
    let bytes: Uint8Array;
    let type: string;
    if (kind === "ts") {
      const canvas = new OffscreenCanvas(960, 540);
      const ctx = canvas.getContext("2d")!;
      const output = new mb.Output({ format: new mb.MpegTsOutputFormat(), target: new mb.BufferTarget() });
      const source = new mb.CanvasSource(canvas, { codec: "avc", bitrate: 1_500_000 });
      output.addVideoTrack(source, { frameRate: 25 });
      await output.start();
      for (let i = 0; i < 300; i++) {
        ctx.fillStyle = `hsl(${(i * 2) % 360}, 60%, 35%)`;
        ctx.fillRect(0, 0, 960, 540);
        ctx.fillStyle = "#ffcc33";
        ctx.beginPath();
        ctx.arc(80 + ((i * 6) % 800), 270 + Math.sin(i / 10) * 150, 60, 0, Math.PI * 2);
        ctx.fill();
        ctx.fillStyle = "#fff";
        ctx.font = "bold 64px sans-serif";
        ctx.fillText(`AVCHD ${(i / 25).toFixed(1)} s`, 40, 90);
        await source.add(i / 25, 1 / 25);
      }
      await output.finalize();
      bytes = new Uint8Array(output.target.buffer!);
      type = "video/mp2t";
    } else {
      const output = new mb.Output({ format: new mb.MovOutputFormat(), target: new mb.BufferTarget() });
      const source = new mb.EncodedVideoPacketSource("prores");
      output.addVideoTrack(source, { frameRate: 25 });
      await output.start();
      for (let i = 0; i < 25; i++) {
        const packet = new mb.EncodedPacket(new Uint8Array(4000).fill(i), "key", i / 25, 1 / 25);
        await source.add(packet, i === 0 ? { decoderConfig: { codec: "apch", codedWidth: 1920, codedHeight: 1080 } } : undefined);
      }
      await output.finalize();
      bytes = new Uint8Array(output.target.buffer!);
      type = "video/quicktime";
    }
    const video = document.createElement("video");
    video.muted = true;
    video.src = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type }));
    const plays = await new Promise<string>((resolve) => {
      video.onerror = () => resolve(`error ${video.error?.code}`);
      video.onloadeddata = () => resolve("plays");
      setTimeout(() => resolve("timeout"), 10_000);
    });
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { base64: btoa(binary), plays };
  }, kind);
  return { bytes: Buffer.from(made.base64, "base64"), plays: made.plays };
}

/** A reader (`read` and `download` on the folder, no `update`) and the folder. */
async function readerAndFolder(api: Awaited<ReturnType<typeof adminApi>>) {
  const stamp = Date.now().toString(36);
  const folder = await api.createGroup(ROOT, `Прокси ${stamp}`);
  const reader = { login: `proxy-reader-${stamp}`, password: `proxy-reader-${stamp}-pass` };
  const { user_id } = await api.call<{ user_id: string }>("/api/user", {
    json: { user_name: `Зритель ${stamp}`, user_login: reader.login, user_passwd: reader.password, enabled: true },
  });
  await api.call("/api/user/acl", { json: { subj: user_id, obj: folder, acl: ["read", "download"] } });
  return { folder, reader };
}

const variantsOf = (api: Awaited<ReturnType<typeof adminApi>>, asset: string) =>
  api.call<{ variant_id: string; variant_type: string; mime_type: string; content_size: number }[]>(`/api/asset/variants/${asset}/1`);

test("a video the browser cannot play is converted by a reader's browser, stored as proxy_lowres and played", async ({ page, server }) => {
  const api = await adminApi(server);
  const { folder, reader } = await readerAndFolder(api);
  const scratch = await page.context().newPage();
  const source = await makeSource(scratch, "ts");
  await scratch.close();
  // Chromium's <video> refuses MPEG-TS (MEDIA_ERR_SRC_NOT_SUPPORTED): the case the proxy is for.
  expect(source.plays).toBe("error 4");
  const asset = await api.uploadAsset(folder, "съёмка.mts", source.bytes, "video/mp2t");

  // The original's range reads are slowed down a little so the progress can be seen and photographed.
  await page.route("**/api/asset/content/stream/**", async (route) => {
    await new Promise((r) => setTimeout(r, 250));
    await route.continue();
  });
  const uploads: number[] = [];
  page.on("response", (response) => {
    if (response.url().includes("/api/asset/upload-proxy/")) uploads.push(response.status());
  });
  await login(page, reader.login, reader.password);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/mam/${folder}/asset/${asset}`);
  const progress = page.getByTestId("video-proxy-progress");
  await expect.poll(() => progress.textContent().catch(() => ""), { timeout: 60_000 }).toMatch(/Готовим прокси для просмотра… \d+ %/);
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, "proxy-converting-1440.png") });
  await page.setViewportSize({ width: 390, height: 844 });
  // The layout switches to the phone's (its menu drawer slides away) before the picture is taken.
  await page.waitForTimeout(800);
  if (await progress.isVisible()) await page.screenshot({ path: join(SHOTS, "proxy-converting-390.png") });

  // Then it plays: the proxy's stream, with frames. The reader has no `update`: the proxy is his alone until the
  // administrator accepts it («Who sees a heal»), so it plays from the link signed for him and nobody else lists it.
  const video = page.locator('[data-testid="video-player"][data-proxy="true"]');
  await video.waitFor({ timeout: 120_000 });
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
  const pendingSrc = await video.evaluate((v: HTMLVideoElement) => v.currentSrc);
  const pendingId = /\/content\/stream\/([0-9a-f]{32})\?/.exec(pendingSrc)?.[1];
  expect(pendingId, pendingSrc).toBeDefined();
  expect((await variantsOf(api, asset)).map((v) => v.variant_type)).toEqual(["initial"]);
  const size = await video.evaluate((v: HTMLVideoElement) => ({ width: v.videoWidth, height: v.videoHeight, duration: v.duration }));
  expect(size).toMatchObject({ width: 640, height: 360 });
  expect(size.duration).toBeGreaterThan(11);
  expect(uploads).toEqual([201]);
  // The viewer tells its maker that it waits for acceptance.
  await expect.poll(() => page.getByTestId("heal-pending-mine").first().textContent().catch(() => ""), { timeout: 30_000 }).toMatch(
    /^Прокси сделал\(а\) Зритель .* · Ожидает подтверждения$/,
  );
  // The poster the original could not give is made from the proxy (heal on view) by this reader's browser: his too.
  const thumbFor = async (bearer: string) => {
    const res = await fetch(`${server.baseUrl}/api/asset/content/preview/${asset}/1/thumb`, { headers: { authorization: `Bearer ${bearer}` } });
    await res.arrayBuffer();
    return `${res.status} ${res.headers.get("x-preview-maker")}`;
  };
  const signedIn = await fetch(`${server.baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: reader.login, passwd: reader.password }),
  });
  const readerBearer = ((await signedIn.json()) as { bearer: string }).bearer;
  await expect.poll(() => thumbFor(readerBearer), { timeout: 30_000 }).toBe("200 browser");
  expect(await thumbFor(api.bearer)).toBe("404 null");
  await video.evaluate((v: HTMLVideoElement) => v.pause());
  await page.screenshot({ path: join(SHOTS, "proxy-playing-390.png") });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: join(SHOTS, "proxy-playing-1440.png") });

  // The next view plays his proxy at once: no conversion, no second upload.
  await page.reload();
  await video.waitFor({ timeout: 30_000 });
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentSrc)).toContain(`/api/asset/content/stream/${pendingId}?`);
  expect(uploads).toEqual([201]);

  // The administrator (update) sees it waiting, with its maker, and accepts it: now it is everyone's.
  const { page: adminPage } = await newPage(page.context().browser()!, { server });
  await login(adminPage, server.adminLogin, server.adminPassword);
  await adminPage.goto(`/mam/${folder}/asset/${asset}`);
  const waiting = adminPage.getByTestId("heal-pending");
  await expect.poll(() => waiting.textContent().catch(() => ""), { timeout: 30_000 }).toMatch(/^Ожидает подтверждения: прокси.* от Зритель /);
  await adminPage.getByTestId("heal-accept").click();
  await expect.poll(() => adminPage.getByRole("status").textContent().catch(() => ""), { timeout: 30_000 }).toBe("Принято: теперь это видят все");
  const variants = await variantsOf(api, asset);
  const proxy = variants.find((v) => v.variant_type === "proxy_lowres");
  expect(proxy, JSON.stringify(variants)).toBeDefined();
  expect(proxy!.variant_id).toBe(pendingId);
  expect(proxy!.mime_type).toMatch(/^video\/(webm|mp4)$/);
  expect(proxy!.content_size).toBeGreaterThan(1000);
  expect(proxy!.content_size).toBeLessThan(source.bytes.length);
  expect(await thumbFor(api.bearer)).toBe("200 browser");
  // Everyone's viewer now names its maker and who accepted it.
  await expect
    .poll(() => adminPage.getByTestId("heal-made").first().textContent().catch(() => ""), { timeout: 30_000 })
    .toMatch(/^Прокси сделал\(а\) Зритель .*, принял\(а\) /);
  // The original is still the file's main variant, downloadable as it was.
  expect(variants.map((v) => v.variant_type).sort()).toEqual(["initial", "proxy_lowres"]);
}, 300_000);

test("a codec the browser cannot decode (ProRes) gets the reason in Russian, and nothing is stored", async ({ page, server }) => {
  const api = await adminApi(server);
  const { folder, reader } = await readerAndFolder(api);
  const scratch = await page.context().newPage();
  const source = await makeSource(scratch, "prores");
  await scratch.close();
  expect(source.plays).toMatch(/^error [34]$/);
  const asset = await api.uploadAsset(folder, "мастер.mov", source.bytes, "video/quicktime");

  const uploads: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/api/asset/upload-proxy/")) uploads.push(request.url());
  });
  await login(page, reader.login, reader.password);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/mam/${folder}/asset/${asset}`);
  const reason = page.getByTestId("preview-unavailable");
  await reason.waitFor({ timeout: 60_000 });
  expect(await reason.textContent()).toBe("Превью недоступно: браузер не умеет декодировать ProRes");
  await page.screenshot({ path: join(SHOTS, "proxy-prores-1440.png") });
  expect(uploads).toEqual([]);
  expect((await variantsOf(api, asset)).map((v) => v.variant_type)).toEqual(["initial"]);
}, 120_000);
