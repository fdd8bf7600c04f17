import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

// The map view: photos whose EXIF carries GPS shown as markers (clustered) on a folder's «Карта» and on search's
// «Карта» tab over the offline country outlines, and «Искать в этой области» narrowing them (on search, the result
// list too). Screenshots at 1440×900 and 390×844 go to E2E_SCREENSHOTS when it is set.

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

/**
 * A word nobody else uses in this run: letters only, so search takes it as one word; not built on a word other tests
 * name their files with (search matches near spellings, and «кадр…» found every «кадр.png» of the run).
 */
function uniqueWord(): string {
  const letters = "бвгдзклмнпрстфх";
  return `зюйд${[...String(Date.now()).slice(-6)].map((d) => letters[Number(d)]).join("")}`;
}

test("search's «Карта»: clustered markers with counts; the area found narrows the result list to files inside it", { timeout: 180_000 }, async ({ browser, server }) => {
  const word = uniqueWord();
  const api = await adminApi(server);
  const folderId = await api.createGroup(ROOT, `Поиск по карте ${Date.now()}`);
  const jpeg = await readFile(join(FIXTURES, "tiny-200x100.jpg"));
  // Three in Moscow (a cluster of 3 until zoomed in close), one in Cape Town, one in Rio, one without a position.
  const moscow = [
    [`${word} Кремль.jpg`, 55.752, 37.6175],
    [`${word} ВДНХ.jpg`, 55.8263, 37.6377],
    [`${word} Лужники.jpg`, 55.7158, 37.5537],
  ] as const;
  for (const [name, lat, lon] of moscow) await api.uploadAsset(folderId, name, withGps(jpeg, lat, lon), "image/jpeg");
  await api.uploadAsset(folderId, `${word} Кейптаун.jpg`, withGps(jpeg, -33.9249, 18.4241), "image/jpeg");
  await api.uploadAsset(folderId, `${word} Рио.jpg`, withGps(jpeg, -22.9068, -43.1729), "image/jpeg");
  await api.uploadAsset(folderId, `${word} без места.jpg`, jpeg, "image/jpeg");
  // Processing reads the EXIF after the commit; the search index carries the position from then on.
  await expect
    .poll(
      async () => {
        const found = await api.call<{ hits: { lat?: number | null }[] }>(`/api/search/query/${encodeURIComponent(word)}?type=asset&take=50`);
        return found.hits.filter((h) => typeof h.lat === "number").length;
      },
      { timeout: 90_000, interval: 1_000 },
    )
    .toBe(5);

  for (const width of [1440, 390] as const) {
    const { page, finish } = await newPage(browser, { server, autoFinish: false });
    await page.setViewportSize(width === 1440 ? { width: 1440, height: 900 } : { width: 390, height: 844 });
    await login(page, server.adminLogin, server.adminPassword);
    await page.goto(`/search?q=${encodeURIComponent(word)}`);
    await expect.poll(() => page.getByTestId("search-hits").locator(".search-hit").count(), { timeout: 15_000 }).toBe(6);
    await page.getByRole("button", { name: "Карта", exact: true }).click();
    const map = page.getByTestId("map-view");
    await expect.poll(() => map.getAttribute("data-points"), { timeout: 20_000 }).toBe("5");
    // The three Moscow photos are one cluster saying «3»; Cape Town and Rio are single pins.
    const moscowCluster = map.locator(".marker-cluster", { hasText: /^3$/ });
    await expect.poll(() => moscowCluster.count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => map.locator(".map-pin").count()).toBe(2);
    await page.waitForTimeout(800);
    await shot(page, `map-search-${width}`);

    // A click on the cluster zooms to Moscow: the visible area changes, and the three come apart.
    const areaBefore = await page.evaluate(() => document.querySelector(".leaflet-map-pane")?.getAttribute("style"));
    await moscowCluster.click();
    await expect.poll(() => map.locator(".map-pin").count(), { timeout: 10_000 }).toBe(3);
    expect(await page.evaluate(() => document.querySelector(".leaflet-map-pane")?.getAttribute("style"))).not.toBe(areaBefore);
    await page.waitForTimeout(600);
    await map.getByTestId("map-search-area").click();
    await expect.poll(() => map.getAttribute("data-points"), { timeout: 10_000 }).toBe("3");
    await expect.poll(() => new URL(page.url()).searchParams.get("bbox")).toMatch(/^3\d\.\d+,5\d\.\d+,3\d\.\d+,5\d\.\d+$/);
    await expect.poll(() => page.locator(".search-active-filters").textContent()).toContain("выбранная область");
    await shot(page, `map-search-area-${width}`);

    // The list tab keeps the area: only the Moscow files are left.
    await page.getByRole("button", { name: "Результаты", exact: true }).click();
    const hits = page.getByTestId("search-hits").locator(".search-hit-name");
    // the list the map tab fetched shows until the tab's own request settles: wait for that one
    const settled = async () => ((await page.getByText("Загрузка…").count()) > 0 ? [] : (await hits.allTextContents()).sort());
    await expect.poll(settled, { timeout: 15_000 }).toEqual(moscow.map(([name]) => name).sort());
    await expect.poll(() => page.locator(".page-subtitle").textContent()).toBe("Найдено: 3");
    await shot(page, `map-search-list-${width}`);
    await finish();
  }
});

test("a folder without placed photos says so over the map and offers no area search", { timeout: 60_000 }, async ({ browser, server }) => {
  const api = await adminApi(server);
  const folderId = await api.createGroup(ROOT, `Без координат ${Date.now()}`);
  await api.uploadAsset(folderId, "Просто фото.jpg", await readFile(join(FIXTURES, "tiny-200x100.jpg")), "image/jpeg");
  const { page, finish } = await newPage(browser, { server, autoFinish: false });
  await page.setViewportSize({ width: 390, height: 844 });
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto(`/mam/${folderId}`);
  await page.getByTestId("map-toggle").click();
  const map = page.getByTestId("map-view");
  await expect.poll(() => map.getAttribute("data-points"), { timeout: 20_000 }).toBe("0");
  await expect.poll(() => map.getByTestId("map-empty").textContent()).toContain("Здесь нет фотографий с координатами съёмки");
  expect(await map.getByTestId("map-search-area").count()).toBe(0);
  // Leaflet's controls speak Russian here
  expect(await map.locator(".leaflet-control-zoom-in").getAttribute("title")).toBe("Приблизить");
  await shot(page, "map-empty-390");
  await finish();
});

test("a collection's «Карта» shows its placed items; a pin opens the viewer inside the collection", { timeout: 120_000 }, async ({ browser, server }) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const folderId = await api.createGroup(ROOT, `Коллекция на карте ${stamp}`);
  const jpeg = await readFile(join(FIXTURES, "tiny-200x100.jpg"));
  const ids = [
    await api.uploadAsset(folderId, `Казань ${stamp}.jpg`, withGps(jpeg, 55.7963, 49.1088), "image/jpeg"),
    await api.uploadAsset(folderId, `Анадырь ${stamp}.jpg`, withGps(jpeg, 64.7337, 177.5089), "image/jpeg"),
    await api.uploadAsset(folderId, `Без места ${stamp}.jpg`, jpeg, "image/jpeg"),
  ];
  const { collection_id } = await api.call<{ collection_id: string }>("/api/collections", { json: { name: `Места ${stamp}` } });
  await api.call(`/api/collections/${collection_id}/items`, { json: { asset_ids: ids } });
  await expect
    .poll(async () => (await api.call<{ items: unknown[] }>(`/api/collections/${collection_id}/locations`)).items.length, { timeout: 60_000, interval: 500 })
    .toBe(2);

  for (const width of [1440, 390] as const) {
    const { page, finish } = await newPage(browser, { server, autoFinish: false });
    await page.setViewportSize(width === 1440 ? { width: 1440, height: 900 } : { width: 390, height: 844 });
    await login(page, server.adminLogin, server.adminPassword);
    await page.goto(`/collections/${collection_id}`);
    await page.getByTestId("collection-map-toggle").click();
    const map = page.getByTestId("map-view");
    await expect.poll(() => map.getAttribute("data-points"), { timeout: 20_000 }).toBe("2");
    await expect.poll(() => map.locator(".map-pin").count(), { timeout: 10_000 }).toBe(2);
    await page.waitForTimeout(800);
    await shot(page, `map-collection-${width}`);
    // a pin opens the viewer inside the collection
    await map.locator(".map-pin").first().click();
    await expect.poll(() => new URL(page.url()).searchParams.get("collection")).toBe(collection_id);
    await finish();
  }
});
