import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

// The map view: photos whose EXIF carries GPS shown as markers (clustered) on a folder's «Карта» over the offline
// country outlines, and «Искать в этой области» narrowing them. Screenshots at 1440×900 and 390×844 go to
// E2E_SCREENSHOTS when it is set.

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/**
 * A JPEG with an EXIF APP1 segment holding only a GPS IFD (latitude and longitude as degrees, minutes, seconds):
 * what a phone writes, and what processing's exifr turns into decimal `latitude` / `longitude`.
 */
function withGps(jpeg: Buffer, lat: number, lon: number): Buffer {
  const tiff = Buffer.alloc(128);
  tiff.write("MM", 0, "latin1");
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4);
  // IFD0: one entry, GPSInfo → the GPS IFD at 26
  tiff.writeUInt16BE(1, 8);
  tiff.writeUInt16BE(0x8825, 10);
  tiff.writeUInt16BE(4, 12);
  tiff.writeUInt32BE(1, 14);
  tiff.writeUInt32BE(26, 18);
  tiff.writeUInt32BE(0, 22);
  // GPS IFD: four entries at 26
  tiff.writeUInt16BE(4, 26);
  const entry = (i: number, tag: number, type: number, count: number, value: (at: number) => void) => {
    const at = 28 + i * 12;
    tiff.writeUInt16BE(tag, at);
    tiff.writeUInt16BE(type, at + 2);
    tiff.writeUInt32BE(count, at + 4);
    value(at + 8);
  };
  entry(0, 1, 2, 2, (at) => tiff.write(lat >= 0 ? "N\0" : "S\0", at, "latin1"));
  entry(1, 2, 5, 3, (at) => tiff.writeUInt32BE(80, at));
  entry(2, 3, 2, 2, (at) => tiff.write(lon >= 0 ? "E\0" : "W\0", at, "latin1"));
  entry(3, 4, 5, 3, (at) => tiff.writeUInt32BE(104, at));
  tiff.writeUInt32BE(0, 76);
  const dms = (value: number, at: number) => {
    const abs = Math.abs(value);
    const deg = Math.floor(abs);
    const min = Math.floor((abs - deg) * 60);
    const sec = Math.round(((abs - deg) * 60 - min) * 60 * 100);
    [deg, 1, min, 1, sec, 100].forEach((n, i) => tiff.writeUInt32BE(n, at + i * 4));
  };
  dms(lat, 80);
  dms(lon, 104);
  const body = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff]);
  const header = Buffer.alloc(4);
  header.writeUInt16BE(0xffe1, 0);
  header.writeUInt16BE(body.length + 2, 2);
  // right after SOI
  return Buffer.concat([jpeg.subarray(0, 2), header, body, jpeg.subarray(2)]);
}

test("a folder's «Карта» shows its GPS photos as markers; «Искать в этой области» narrows them", { timeout: 180_000 }, async ({ browser, server }) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const folderId = await api.createGroup(ROOT, `Карта ${stamp}`);
  const jpeg = await readFile(join(FIXTURES, "tiny-200x100.jpg"));
  await api.uploadAsset(folderId, `Москва ${stamp}.jpg`, withGps(jpeg, 55.7558, 37.6173), "image/jpeg");
  await api.uploadAsset(folderId, `Париж ${stamp}.jpg`, withGps(jpeg, 48.8566, 2.3522), "image/jpeg");
  await api.uploadAsset(folderId, `Рио ${stamp}.jpg`, withGps(jpeg, -22.9068, -43.1729), "image/jpeg");
  await api.uploadAsset(folderId, `Без места ${stamp}.jpg`, jpeg, "image/jpeg");
  // Processing reads the EXIF after the commit.
  await expect
    .poll(async () => (await api.call<{ items: unknown[] }>(`/api/group/locations/${folderId}`)).items.length, { timeout: 60_000, interval: 500 })
    .toBe(3);

  for (const width of [1440, 390] as const) {
    const { page, finish } = await newPage(browser, { server, autoFinish: false });
    await page.setViewportSize(width === 1440 ? { width: 1440, height: 900 } : { width: 390, height: 844 });
    await login(page, server.adminLogin, server.adminPassword);
    await page.goto(`/mam/${folderId}`);
    await page.getByTestId("map-toggle").click();
    const map = page.getByTestId("map-view");
    await expect.poll(() => map.getAttribute("data-points"), { timeout: 20_000 }).toBe("3");
    // Markers or clusters of them, over the drawn outlines.
    await expect.poll(() => map.locator(".map-pin, .marker-cluster").count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await map.locator("path.leaflet-interactive, svg path").count()).toBeGreaterThan(50);
    // fitBounds animates its zoom: the picture is taken once the markers have settled
    await page.waitForTimeout(800);
    await shot(page, `map-folder-${width}`);

    // Zoomed in on the middle of the three, the visible area holds fewer of them.
    const zoomIn = map.locator(".leaflet-control-zoom-in");
    for (let i = 0; i < 4; i++) {
      await zoomIn.click();
      await page.waitForTimeout(350);
    }
    await map.getByTestId("map-search-area").click();
    await expect.poll(() => map.getAttribute("data-points"), { timeout: 10_000 }).not.toBe("3");
    await shot(page, `map-folder-area-${width}`);
    await finish();
  }
});
