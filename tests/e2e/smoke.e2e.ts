import { expect, test } from "./fixtures";

// Proves the harness: the dev server answers, Chromium launches, and the API reference renders.
test("the API reference renders Swagger UI", async ({ page, server }) => {
  await page.goto("/api/docs");
  await expect.poll(() => page.title(), { timeout: 15_000 }).toContain("API");
  await page.locator(".swagger-ui .info .title").waitFor();
  expect(await page.locator(".swagger-ui .info .title").textContent()).toContain("Edge MAM API");
  // The operations come from /api/openapi.json. The UI renders only what is on screen: filter to the Auth tag, whose
  // login call is then listed.
  await page.locator(".operation-filter-input").fill("Auth");
  await page.locator('.opblock-summary-path[data-path="/api/auth/login"]').first().waitFor();

  const health = await fetch(`${server.baseUrl}/api/health`);
  expect(health.status).toBe(200);
});

// public/_headers: the hashed build files are kept by the browser for a year without a revalidation each page load;
// what has a fixed name (the pages, version.json, the upload Service Worker) is still asked for every time.
test("hashed scripts and styles are cached for a year; pages and fixed-name files are revalidated", async ({ server }) => {
  const page = await fetch(`${server.baseUrl}/login`);
  const html = await page.text();
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  expect(assets.length).toBeGreaterThan(0);
  for (const path of assets.slice(0, 3)) {
    const res = await fetch(`${server.baseUrl}${path}`);
    expect(res.status, path).toBe(200);
    expect(res.headers.get("cache-control"), path).toBe("public, max-age=31536000, immutable");
  }
  expect(page.headers.get("cache-control") ?? "").not.toContain("immutable");
  for (const path of ["/version.json", "/upload-sw.js"]) {
    const res = await fetch(`${server.baseUrl}${path}`);
    expect(res.headers.get("cache-control") ?? "", path).not.toContain("immutable");
  }
});
