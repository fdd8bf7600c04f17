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
