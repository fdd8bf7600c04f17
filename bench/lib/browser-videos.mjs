// Videos made in Debian's Chromium for the media bench (issue 26): the machine has no ffmpeg, but the browser has
// WebCodecs encoders and the project already ships mediabunny (the proxy maker, decision 029), so the bench makes its
// own H.264 MP4s and an MPEG-TS the way tests/e2e/video-proxy.e2e.ts does, and hands their bytes to Node.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { ROOT } from "./measure.mjs";

/** Flags that keep Chromium quiet and offline (as tests/e2e/fixtures.ts). */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A scratch origin of its own (localhost is a secure context, as WebCodecs needs), served by a route. */
const SCRATCH = "http://localhost:9";

export function launchChromium() {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS, timeout: 30_000 });
}

/**
 * Makes each `{ container: "mp4" | "ts", width, height, seconds, seed }` in one scratch page: H.264 at 25 fps from
 * canvas frames (a moving disc and a clock on a changing background, so every frame differs). Answers, per spec,
 * `{ bytes, mime, plays, ms }`: `plays` is what Chromium's `<video>` says of it ("plays" or "error N"), `ms` the
 * time it took to make.
 */
export async function makeVideos(browser, specs) {
  const mediabunny = readFileSync(join(ROOT, "node_modules/mediabunny/dist/bundles/mediabunny.min.mjs"), "utf8");
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.route(`${SCRATCH}/**`, (route) =>
      new URL(route.request().url()).pathname === "/mediabunny.mjs"
        ? route.fulfill({ body: mediabunny, contentType: "text/javascript" })
        : route.fulfill({ body: "<!doctype html><title>scratch</title><body></body>", contentType: "text/html" }),
    );
    await page.goto(`${SCRATCH}/`);
    await page.addScriptTag({ type: "module", content: 'import * as mb from "/mediabunny.mjs"; window.mb = mb;' });
    await page.waitForFunction(() => "mb" in window);
    const made = [];
    for (const spec of specs) {
      const started = performance.now();
      const out = await page.evaluate(async ({ container, width, height, seconds, seed }) => {
        const mb = window.mb;
        const fps = 25;
        const canvas = new OffscreenCanvas(width, height);
        const ctx = canvas.getContext("2d");
        const format = container === "ts" ? new mb.MpegTsOutputFormat() : new mb.Mp4OutputFormat({ fastStart: "in-memory" });
        const output = new mb.Output({ format, target: new mb.BufferTarget() });
        const source = new mb.CanvasSource(canvas, { codec: "avc", bitrate: 2_000_000 });
        output.addVideoTrack(source, { frameRate: fps });
        await output.start();
        for (let i = 0; i < seconds * fps; i++) {
          ctx.fillStyle = `hsl(${(seed * 70 + i * 2) % 360}, 60%, 35%)`;
          ctx.fillRect(0, 0, width, height);
          ctx.fillStyle = "#ffcc33";
          ctx.beginPath();
          ctx.arc(80 + ((i * 9) % (width - 160)), height / 2 + Math.sin(i / 10) * (height / 3), height / 9, 0, Math.PI * 2);
          ctx.fill();
          ctx.fillStyle = "#fff";
          ctx.font = `bold ${Math.round(height / 9)}px sans-serif`;
          ctx.fillText(`Ролик ${seed} · ${(i / fps).toFixed(1)} s`, 40, height / 6);
          await source.add(i / fps, 1 / fps);
        }
        await output.finalize();
        const bytes = new Uint8Array(output.target.buffer);
        const mime = container === "ts" ? "video/mp2t" : "video/mp4";
        const video = document.createElement("video");
        video.muted = true;
        video.src = URL.createObjectURL(new Blob([bytes], { type: mime }));
        const plays = await new Promise((resolve) => {
          video.onerror = () => resolve(`error ${video.error?.code}`);
          video.onloadeddata = () => resolve("plays");
          setTimeout(() => resolve("timeout"), 10_000);
        });
        URL.revokeObjectURL(video.src);
        let binary = "";
        for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return { base64: btoa(binary), mime, plays };
      }, spec);
      made.push({ bytes: Buffer.from(out.base64, "base64"), mime: out.mime, plays: out.plays, ms: performance.now() - started });
    }
    return made;
  } finally {
    await context.close();
  }
}

/** A browser context on `base` signed in as `user` through the /login form (as tests/e2e/fixtures.ts `login`). */
export async function signedInContext(browser, base, user, password) {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto("/login");
  await page.locator('input[name="user"]').fill(user);
  await page.locator('input[name="passwd"]').fill(password);
  await page.getByRole("button", { name: "Войти" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/login"), { timeout: 30_000 });
  await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 30_000 });
  await page.close();
  return context;
}
