import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT_GROUP_ID } from "../../workers/lib/ids";
import { expect, login, test, type E2EServer } from "./fixtures";

/**
 * Browser makers, second slice (decision 029): an SVG uploaded through the API gets its thumbnail from the first
 * browser that views it — drawn through an `<img>`, so its script never runs and its external image is never
 * fetched — and an audio file the Worker cannot read gets its peaks stored by the viewing browser, so the next view
 * reads them (GET /api/asset/waveform answers 200) instead of decoding again.
 */

const SHOTS = process.env.E2E_SCREENSHOTS ?? "/tmp/mediafix";
const enc = (s: string) => new TextEncoder().encode(s) as Uint8Array<ArrayBuffer>;

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

/** The asset's thumb: status, who made it, its type and its size (from the PNG/JPEG header). */
async function thumbOf(server: E2EServer, bearer: string, assetId: string) {
  const res = await fetch(`${server.baseUrl}/api/asset/content/preview/${assetId}/1/thumb`, { headers: { authorization: `Bearer ${bearer}` } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, maker: res.headers.get("x-preview-maker"), type: res.headers.get("content-type"), ...imageSize(bytes) };
}

/** Width and height from a PNG's IHDR or a JPEG's first SOF marker. */
function imageSize(b: Uint8Array): { width: number; height: number } | null {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b[0] === 0x89 && b[1] === 0x50) return { width: view.getUint32(16), height: view.getUint32(20) };
  for (let i = 2; b[0] === 0xff && i + 9 < b.length; ) {
    const marker = b[i + 1];
    if (marker >= 0xc0 && marker <= 0xc3) return { width: view.getUint16(i + 7), height: view.getUint16(i + 5) };
    i += 2 + view.getUint16(i + 2);
  }
  return null;
}

/**
 * A hostile SVG with no width or height (only a viewBox, 2:1): a script that would retitle the page and call out,
 * an `onload` handler doing the same, and an external image. In an `<img>` none of it may happen.
 */
const HOSTILE_SVG = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 200 100"
     onload="document.title='SVG-SCRIPT-RAN'; fetch('http://example.invalid/onload')">
  <script>document.title = 'SVG-SCRIPT-RAN'; try { top.document.title = 'SVG-SCRIPT-RAN' } catch (e) {} fetch('http://example.invalid/script');</script>
  <rect width="200" height="100" fill="#1e6fd9"/>
  <circle cx="60" cy="50" r="34" fill="#ffcc33"/>
  <polygon points="120,85 160,15 195,85" fill="#e8402a"/>
  <text x="8" y="96" font-size="10" fill="#ffffff">ЭМБЛЕМА</text>
  <image href="http://example.invalid/x.png" xlink:href="http://example.invalid/x.png" x="0" y="0" width="200" height="100"/>
</svg>`;

/** 8-bit μ-law G.711 sample of a 16-bit one. */
function muLaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  let magnitude = Math.min(32635, Math.abs(sample)) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  magnitude = ~(sign | (exponent << 4) | mantissa) & 0xff;
  return magnitude;
}

/**
 * Two seconds of μ-law WAV at 8 kHz (a 220 Hz tone swelling and fading twice): the Worker's WAV maker reads only
 * PCM and float, so its peaks can come only from a browser (decodeAudioData reads G.711) — the MP3 case.
 */
function makeMuLawWav(): Uint8Array<ArrayBuffer> {
  const rate = 8000;
  const samples = rate * 2;
  const buffer = new ArrayBuffer(58 + samples);
  const view = new DataView(buffer);
  const text = (at: number, s: string) => [...s].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  text(0, "RIFF");
  view.setUint32(4, 50 + samples, true);
  text(8, "WAVE");
  text(12, "fmt ");
  view.setUint32(16, 18, true);
  view.setUint16(20, 7, true); // WAVE_FORMAT_MULAW
  view.setUint16(22, 1, true);
  view.setUint32(24, rate, true);
  view.setUint32(28, rate, true);
  view.setUint16(32, 1, true);
  view.setUint16(34, 8, true);
  view.setUint16(36, 0, true);
  text(38, "fact");
  view.setUint32(42, 4, true);
  view.setUint32(46, samples, true);
  text(50, "data");
  view.setUint32(54, samples, true);
  for (let i = 0; i < samples; i++) {
    const envelope = Math.abs(Math.sin((Math.PI * 2 * i) / samples));
    view.setUint8(58 + i, muLaw(Math.round(Math.sin((2 * Math.PI * 220 * i) / rate) * envelope * 30_000)));
  }
  return new Uint8Array(buffer);
}

test("viewing an SVG heals its thumbnail without running it or fetching for it; viewing audio stores its peaks", async ({
  page,
  server,
  pageErrors,
}) => {
  const bearer = await bearerOf(server);
  const made = await fetch(`${server.baseUrl}/api/group/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify({ parent: ROOT_GROUP_ID, group_name: `SVG и звук ${Date.now()}` }),
  });
  const { group_id } = (await made.json()) as { group_id: string };
  const outside: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("example.invalid")) outside.push(request.url());
  });

  await login(page, server.adminLogin, server.adminPassword);
  const uploadedAt = Date.now();
  const svg = await upload(server, bearer, group_id, "эмблема.svg", "image/svg+xml", enc(HOSTILE_SVG));
  const audio = await upload(server, bearer, group_id, "голос.wav", "audio/wav", makeMuLawWav());

  // The Worker makes neither: an SVG with text is left to the browser (no fonts in its resvg), and it has no μ-law
  // reader. Both answers are logged by the browser as 404s.
  await expect.poll(async () => (await thumbOf(server, bearer, svg)).status).toBe(404);
  const before = await fetch(`${server.baseUrl}/api/asset/waveform/${audio}/1`, { headers: { authorization: `Bearer ${bearer}` } });
  await before.arrayBuffer();
  expect(before.status).toBe(404);
  pageErrors.expect(/status of 404/);
  // A file changed a moment ago is left to its uploader and processing for 15 s (SETTLE_MS).
  await new Promise((r) => setTimeout(r, Math.max(0, uploadedAt + 16_000 - Date.now())));

  // Viewing the SVG draws it here and stores both sizes: 2:1 from its viewBox, as JPEG made by the browser.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/mam/${group_id}/asset/${svg}`);
  await page.locator('[data-heal="healed"]').waitFor({ timeout: 30_000 });
  const thumb = await thumbOf(server, bearer, svg);
  expect(thumb).toMatchObject({ status: 200, maker: "browser", type: "image/jpeg", width: 320, height: 160 });
  expect(await page.title()).toContain("эмблема.svg");
  expect(await page.title()).not.toContain("SVG-SCRIPT-RAN");

  // Viewing the audio decodes it here and stores its peaks; the next view reads them.
  await page.goto(`/mam/${group_id}/asset/${audio}`);
  const wave = page.getByTestId("waveform");
  await wave.waitFor({ timeout: 20_000 });
  expect(Number(await wave.getAttribute("data-peaks"))).toBeGreaterThan(100);
  await expect
    .poll(
      async () => {
        const res = await fetch(`${server.baseUrl}/api/asset/waveform/${audio}/1`, { headers: { authorization: `Bearer ${bearer}` } });
        return res.status === 200 ? ((await res.json()) as { peaks: number[] }).peaks.length : res.status;
      },
      { timeout: 15_000 },
    )
    .toBe(Number(await wave.getAttribute("data-peaks")));
  // Its thumbnail is the server's drawing of the posted peaks (PNG, 320 × 160).
  expect(await thumbOf(server, bearer, audio)).toMatchObject({ status: 200, maker: "browser", type: "image/png", width: 320, height: 160 });
  const decodes: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/api/asset/content/play-variant/")) decodes.push(request.url());
  });
  await page.reload();
  await page.getByTestId("waveform").waitFor({ timeout: 20_000 });
  // The player asks for its link once; a second ask would be the waveform fetching the file to decode it again.
  expect(decodes.length).toBeLessThanOrEqual(1);

  // The folder at 1440 px: the SVG's tile shows its healed picture.
  await page.goto(`/mam/${group_id}`);
  for (const name of ["эмблема.svg", "голос.wav"]) {
    const tile = page.locator("[data-member]", { hasText: name }).locator("img");
    await expect
      .poll(() => tile.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0).catch(() => false), { timeout: 15_000 })
      .toBe(true);
  }
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, "svg-folder-1440.png"), fullPage: true });

  expect(outside).toEqual([]);
  expect(await page.title()).not.toContain("SVG-SCRIPT-RAN");
}, 150_000);
