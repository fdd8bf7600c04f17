import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ROOT_GROUP_ID } from "../../workers/lib/ids";
import { expect, login, test, type E2EServer } from "./fixtures";
import { png } from "./png";

/**
 * Issue 26, browser-made previews (decision 029): files uploaded through the API (no page made them a picture) get
 * one from the first browser that views them — a video's poster and hover-scrub strip, a PDF's first page in place of
 * its text card, an audio file's waveform (under the player, and as its grid thumbnail). All media are made here: a
 * WebM recorded from a canvas, a PDF and a WAV written byte by byte.
 */

const SHOTS = process.env.E2E_SCREENSHOTS ?? "/tmp/browsermakers";
const enc = (s: string) => new TextEncoder().encode(s) as Uint8Array<ArrayBuffer>;

async function shot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function bearerOf(server: E2EServer): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: server.adminLogin, passwd: server.adminPassword }),
  });
  return ((await res.json()) as { bearer: string }).bearer;
}

async function upload(server: E2EServer, bearer: string, group: string, name: string, mime: string, body: Uint8Array<ArrayBuffer>) {
  const res = await fetch(`${server.baseUrl}/api/asset/upload?${new URLSearchParams({ in_group: group, name })}`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": mime },
    body,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { asset_id: string }).asset_id;
}

/** The asset's preview link of that kind, or null (the list call: no failing request). */
async function previewOf(server: E2EServer, bearer: string, assetId: string, size: "thumb" | "medium" | "strip"): Promise<string | null> {
  const res = await fetch(`${server.baseUrl}/api/asset/content/preview-by-list`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify({ ids: [assetId], size }),
  });
  const { list } = (await res.json()) as { list: { preview: string | null }[] };
  return list[0]?.preview ?? null;
}

/** Who made the asset's thumb (X-Preview-Maker) and its width. */
async function thumbMaker(server: E2EServer, bearer: string, assetId: string): Promise<{ maker: string | null; status: number }> {
  const res = await fetch(`${server.baseUrl}/api/asset/content/preview/${assetId}/1/thumb`, {
    headers: { authorization: `Bearer ${bearer}` },
  });
  await res.arrayBuffer();
  return { maker: res.headers.get("x-preview-maker"), status: res.status };
}

/** A WebM as a browser's MediaRecorder writes it (no Duration element): hues that change every frame. */
async function recordWebm(page: Page, ms: number): Promise<Uint8Array<ArrayBuffer>> {
  const base64 = await page.evaluate(async (ms) => {
    const canvas = document.createElement("canvas");
    canvas.width = 320;
    canvas.height = 180;
    const ctx = canvas.getContext("2d")!;
    const recorder = new MediaRecorder(canvas.captureStream(25), { mimeType: "video/webm;codecs=vp8" });
    const chunks: Blob[] = [];
    recorder.ondataavailable = (e) => chunks.push(e.data);
    const started = performance.now();
    const timer = setInterval(() => {
      const t = (performance.now() - started) / ms;
      ctx.fillStyle = `hsl(${Math.round(t * 300)} 75% 45%)`;
      ctx.fillRect(0, 0, 320, 180);
      ctx.fillStyle = "#fff";
      ctx.fillRect(Math.round(t * 280), 70, 40, 40);
    }, 40);
    recorder.start(250);
    await new Promise((r) => setTimeout(r, ms));
    recorder.stop();
    await new Promise((r) => (recorder.onstop = r));
    clearInterval(timer);
    const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
    let binary = "";
    for (const b of bytes) binary += String.fromCharCode(b);
    return btoa(binary);
  }, ms);
  return new Uint8Array(Buffer.from(base64, "base64"));
}

/** A one-page PDF written by hand: a red band and a line of Helvetica, with a correct cross-reference table. */
function makePdf(): Uint8Array<ArrayBuffer> {
  const content = "0.85 0.15 0.15 rg 50 640 495 150 re f 0.1 0.1 0.1 rg BT /F1 40 Tf 60 560 Td (Quarterly report) Tj ET";
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return enc(out);
}

/** Two seconds of 16-bit mono PCM at 8 kHz: a 220 Hz tone swelling and fading twice. */
function makeWav(): Uint8Array<ArrayBuffer> {
  const rate = 8000;
  const samples = rate * 2;
  const buffer = new ArrayBuffer(44 + samples * 2);
  const view = new DataView(buffer);
  const text = (at: number, s: string) => [...s].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  text(0, "RIFF");
  view.setUint32(4, 36 + samples * 2, true);
  text(8, "WAVE");
  text(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  text(36, "data");
  view.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) {
    const envelope = Math.abs(Math.sin((Math.PI * 2 * i) / samples));
    view.setInt16(44 + i * 2, Math.round(Math.sin((2 * Math.PI * 220 * i) / rate) * envelope * 30_000), true);
  }
  return new Uint8Array(buffer);
}

test("viewing heals: a video's poster and scrub strip, a PDF's first page, an audio waveform; video tiles scrub on hover", async ({
  page,
  server,
  pageErrors,
}) => {
  const bearer = await bearerOf(server);
  const made = await fetch(`${server.baseUrl}/api/group/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify({ parent: ROOT_GROUP_ID, group_name: `Медиа ${Date.now()}` }),
  });
  const { group_id } = (await made.json()) as { group_id: string };

  await login(page, server.adminLogin, server.adminPassword);
  const webm = await recordWebm(page, 3000);
  const uploadedAt = Date.now();
  const video = await upload(server, bearer, group_id, "клип.webm", "video/webm", webm);
  const pdf = await upload(server, bearer, group_id, "отчёт.pdf", "application/pdf", makePdf());
  const wav = await upload(server, bearer, group_id, "тон.wav", "audio/wav", makeWav());
  await upload(server, bearer, group_id, "обложка.png", "image/png", new Uint8Array(png(640, 400, 200)));
  const avi = await upload(
    server,
    bearer,
    group_id,
    "старая съёмка.avi",
    "video/x-msvideo",
    enc("RIFF\u0000\u0010\u0000\u0000AVI LIST не видео, а его обломок"),
  );
  await upload(server, bearer, group_id, "заметка.txt", "text/plain", enc("Список дел\n\n1. Смонтировать клип\n2. Отправить отчёт"));

  // The PDF's processing makes its text card first; the video has no picture at all (uploaded through the API).
  await expect.poll(async () => (await thumbMaker(server, bearer, pdf)).maker, { timeout: 60_000, interval: 1_000 }).toBe("card");
  expect(await previewOf(server, bearer, video, "thumb")).toBeNull();
  expect(await previewOf(server, bearer, video, "strip")).toBeNull();
  // A file changed a moment ago is left to its uploader and processing for 15 s (SETTLE_MS).
  await new Promise((r) => setTimeout(r, Math.max(0, uploadedAt + 16_000 - Date.now())));

  // Viewing the video makes its poster and its strip.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/mam/${group_id}/asset/${video}`);
  await page.locator('[data-heal="healed"]').waitFor({ timeout: 30_000 });
  expect(await previewOf(server, bearer, video, "thumb")).not.toBeNull();
  expect(await previewOf(server, bearer, video, "medium")).not.toBeNull();
  expect(await previewOf(server, bearer, video, "strip")).not.toBeNull();
  expect(await page.title()).toContain("клип.webm");
  await shot(page, "media-previews-video-1440");

  // A video this browser cannot read: nothing is made, and the viewer says why.
  await page.goto(`/mam/${group_id}/asset/${avi}`);
  await page.locator('[data-heal="unreadable"]').waitFor({ timeout: 30_000 });
  await expect
    .poll(() => page.getByTestId("preview-unavailable").textContent())
    .toBe("Превью недоступно: браузер не умеет читать этот формат");
  expect(await previewOf(server, bearer, avi, "thumb")).toBeNull();

  // Viewing the PDF replaces its text card with its first page, once.
  await page.goto(`/mam/${group_id}/asset/${pdf}`);
  await page.locator('[data-heal="healed"]').waitFor({ timeout: 30_000 });
  expect((await thumbMaker(server, bearer, pdf)).maker).toBe("page");

  // The audio viewer draws the waveform under the player; a click seeks; the waveform becomes the grid thumbnail.
  // Stored peaks come from the in-Worker makers; while there are none the route answers 404 (which the browser logs)
  // and the browser decodes the file itself.
  const stored = await fetch(`${server.baseUrl}/api/asset/waveform/${wav}/1`, { headers: { authorization: `Bearer ${bearer}` } });
  await stored.arrayBuffer();
  if (stored.status === 404) pageErrors.expect(/status of 404/);
  await page.goto(`/mam/${group_id}/asset/${wav}`);
  const wave = page.getByTestId("waveform");
  await wave.waitFor({ timeout: 20_000 });
  expect(Number(await wave.getAttribute("data-peaks"))).toBeGreaterThan(100);
  await page.locator("audio").evaluate((a: HTMLAudioElement) => (a.readyState >= 1 ? null : new Promise((r) => (a.onloadedmetadata = r))));
  const box = (await wave.boundingBox())!;
  await page.mouse.click(box.x + box.width * 0.5, box.y + box.height / 2);
  expect(await page.locator("audio").evaluate((a: HTMLAudioElement) => a.currentTime)).toBeCloseTo(1, 0);
  expect(Number(await wave.getAttribute("aria-valuenow"))).toBeGreaterThanOrEqual(45);
  await shot(page, "media-previews-audio-1440");
  await expect.poll(() => previewOf(server, bearer, wav, "thumb"), { timeout: 15_000 }).not.toBeNull();

  // The folder: every tile with a picture; hovering the video tile scrubs through its strip.
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.goto(`/mam/${group_id}`);
    for (const name of ["клип.webm", "отчёт.pdf", "тон.wav", "обложка.png", "заметка.txt"]) {
      const tile = page.locator("[data-member]", { hasText: name });
      // Tiles ask for their picture when they come into view (a phone shows the first few).
      await tile.scrollIntoViewIfNeeded();
      await expect
        .poll(
          () =>
            tile
              .locator("img")
              .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)
              .catch(() => false),
          { timeout: 15_000, message: `${name} at ${width} px has its picture` },
        )
        .toBe(true);
    }
    // The PDF's tile is its first page (A4: 226 × 320), no longer its text card (240 × 320).
    const pdfTile = page.locator("[data-member]", { hasText: "отчёт.pdf" }).locator("img");
    expect(await pdfTile.evaluate((img: HTMLImageElement) => `${img.naturalWidth}×${img.naturalHeight}`)).toBe("226×320");
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, `media-previews-folder-${width}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  const thumb = page.locator("[data-member]", { hasText: "клип.webm" }).locator(".thumb");
  const area = (await thumb.boundingBox())!;
  const frameAt = async (fraction: number) => {
    // Along the bottom of the picture: the file's actions, shown on hover, cover the top right corner.
    await page.mouse.move(area.x + area.width * fraction, area.y + area.height * 0.9, { steps: 3 });
    await expect.poll(() => thumb.getAttribute("data-scrub-frame")).toBe(String(Math.min(9, Math.floor(fraction * 10))));
    return thumb.locator("canvas").evaluate((c: HTMLCanvasElement) => c.toDataURL());
  };
  const first = await frameAt(0.05);
  const last = await frameAt(0.95);
  expect(last).not.toBe(first);
  await shot(page, "media-previews-scrub-1440");
  await page.mouse.move(0, 0);
  await expect.poll(() => thumb.getAttribute("data-scrub-frame")).toBeNull();
}, 180_000);

test("a folder opened while a video is still settling heals its tile once it has, without a reload", async ({ page, server }) => {
  const bearer = await bearerOf(server);
  const made = await fetch(`${server.baseUrl}/api/group/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify({ parent: ROOT_GROUP_ID, group_name: `Свежее ${Date.now()}` }),
  });
  const { group_id } = (await made.json()) as { group_id: string };
  await login(page, server.adminLogin, server.adminPassword);
  const video = await upload(server, bearer, group_id, "свежий клип.webm", "video/webm", await recordWebm(page, 2000));
  // Opened at once: the tile is seen within the 15 s settle window (SETTLE_MS), when it may not heal yet.
  await page.goto(`/mam/${group_id}`);
  const tile = page.locator("[data-member]", { hasText: "свежий клип.webm" });
  await tile.waitFor();
  expect(await previewOf(server, bearer, video, "thumb")).toBeNull();
  // The same page, never reloaded, makes the poster once the window has passed and shows it.
  await expect.poll(() => previewOf(server, bearer, video, "thumb"), { timeout: 45_000, interval: 1_000 }).not.toBeNull();
  await expect
    .poll(
      () =>
        tile
          .locator("img")
          .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)
          .catch(() => false),
      {
        timeout: 15_000,
      },
    )
    .toBe(true);
  expect((await thumbMaker(server, bearer, video)).maker).toBe("browser");
}, 120_000);
