import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, login, test } from "./fixtures";

/**
 * The strict Content-Security-Policy in a real browser: every screen hydrates and works with it (any violation is a
 * console error, which fails the test through the page-error fixture), and a page of another origin cannot frame
 * the app.
 */

const SCREENS = ["/mam", "/mam/trash", "/search", "/jobs", "/automations", "/admin/active-users", "/admin/groups", "/admin/metadata", "/shop"];

test("every screen hydrates under the CSP with no violation", async ({ page, server }) => {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(`${page.url()}: ${m.text()}`);
  });
  await login(page, server.adminLogin, server.adminPassword);
  for (const path of SCREENS) {
    await page.goto(path);
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    const csp = (await page.request.get(path)).headers()["content-security-policy"];
    expect(csp, path).toMatch(/script-src 'self' 'nonce-/);
  }
  // client-side navigation after hydration still works (scripts were allowed to run)
  await page.goto("/mam");
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await page.locator('a[href="/jobs"]').first().click();
  await page.waitForURL((url) => url.pathname === "/jobs");
  expect(violations).toEqual([]);
});

test("an injected inline script is refused, as a violation of script-src", async ({ page, server, pageErrors }) => {
  pageErrors.expect(/Content Security Policy/);
  await login(page, server.adminLogin, server.adminPassword);
  const outcome = await page.evaluate(
    () =>
      new Promise<{ ran: boolean; directive: string }>((resolve) => {
        const w = window as unknown as { injected?: boolean };
        w.injected = false;
        document.addEventListener("securitypolicyviolation", (e) => resolve({ ran: w.injected === true, directive: e.effectiveDirective }), { once: true });
        const script = document.createElement("script");
        script.textContent = "window.injected = true";
        document.body.appendChild(script);
      }),
  );
  expect(outcome).toEqual({ ran: false, directive: "script-src-elem" });
});

test("a page on another origin cannot frame /mam or /login", async ({ page, server, pageErrors }) => {
  pageErrors.expect(/frame-ancestors|Refused to display/);
  // the app runs at 127.0.0.1: a page served from localhost on another port is another origin
  const app = new URL(server.baseUrl);
  const attacker: Server = createServer((_req, res) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(`<!doctype html><title>evil</title>
<iframe id="mam" src="${app.origin}/mam" width="800" height="600"></iframe>
<iframe id="login" src="${app.origin}/login" width="800" height="600"></iframe>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, "localhost", resolve));
  try {
    const { port } = attacker.address() as AddressInfo;
    await login(page, server.adminLogin, server.adminPassword);
    await page.goto(`http://localhost:${port}/`);
    await page.waitForLoadState("load");
    for (const id of ["mam", "login"]) {
      const frame = await (await page.locator(`#${id}`).elementHandle())!.contentFrame();
      // a refused frame shows Chromium's error page: none of the app's markup is there
      const hasApp = await frame!.evaluate(() => document.documentElement.outerHTML.includes('lang="ru"')).catch(() => false);
      expect(hasApp, id).toBe(false);
    }
  } finally {
    await new Promise((resolve) => attacker.close(resolve));
  }
});
