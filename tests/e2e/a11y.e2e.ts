import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { beforeAll } from "vitest";
import { adminApi, ROOT, type AdminApi } from "./admin-seed";
import { e2eServer, expect, login, newPage, test } from "./fixtures";
import { png } from "./png";

// Accessibility audit (issue 28): axe-core's WCAG 2 A/AA rules on every screen at 1440 and 390 px, as the
// administrator, as a read-only user and, for the public pages, as an anonymous visitor. Serious and critical
// violations fail; every finding of a run is listed at once.

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const WIDTHS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;

interface Finding {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

let api: AdminApi;
let folderId: string;
let imageId: string;
let textId: string;
let openLink: string;
let lockedLink: string;
let reader: { login: string; password: string; id: string };

beforeAll(async () => {
  const server = e2eServer();
  api = await adminApi(server);
  const stamp = Date.now();
  folderId = await api.createGroup(ROOT, `Доступность ${stamp}`);
  await api.createGroup(folderId, "Вложенная");
  imageId = await api.uploadAsset(folderId, "кадр.png", png(320, 200, 90), "image/png");
  textId = await api.uploadAsset(folderId, "заметки.txt", Buffer.from("Первая строка\nВторая строка\n"), "text/plain");
  const link = async (json: unknown) => {
    const res = await fetch(new URL(`/api/sl/create/${folderId}`, server.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${api.bearer}` },
      body: JSON.stringify(json),
    });
    if (!res.ok) throw new Error(`shortlink: ${res.status} ${await res.text()}`);
    return new URL(await res.text()).pathname;
  };
  openLink = await link({});
  lockedLink = await link({ password: "тайна-доступности" });
  await api.call(`/api/shop/listing/${imageId}`, { method: "PUT", json: { price: 50000, currency: "RUB", licence: "Для проверки доступности" } });
  const user = { login: `a11y-reader-${stamp}`, password: "пароль-читателя-1" };
  const { user_id } = await api.call<{ user_id: string }>("/api/user", {
    json: { user_name: `Читатель ${stamp}`, user_login: user.login, user_passwd: user.password, enabled: true },
  });
  await api.call("/api/user/acl", { json: { subj: user_id, obj: folderId, acl: ["read"] } });
  reader = { ...user, id: user_id };
});

/** Runs axe on the page as it is now; answers the serious and critical violations. */
async function audit(page: Page): Promise<Finding[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: Finding[] }> } }).axe;
    const { violations } = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] }, resultTypes: ["violations"] });
    return violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  });
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** Opens the route and waits until it has hydrated and settled (its data loaded, no spinner left). */
async function open(page: Page, path: string) {
  await page.goto(path);
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await page.waitForLoadState("load");
  await page
    .locator('[aria-busy="true"], .spinner, [data-testid="loading"]')
    .first()
    .waitFor({ state: "detached", timeout: 5_000 })
    .catch(() => undefined);
  await page.waitForTimeout(400);
}

function describeFindings(where: string, findings: Finding[]): string[] {
  return findings.map(
    (f) => `${where}: ${f.id} (${f.impact}) ${f.help} — ${f.nodes.length}× ${f.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(" | ")}`,
  );
}

/** Every route at both widths in one signed-in (or anonymous) browser context per width; answers all findings. */
async function auditRoutes(browser: Browser, who: { login: string; password: string } | null, routes: string[]): Promise<string[]> {
  const server = e2eServer();
  const problems: string[] = [];
  for (const viewport of WIDTHS) {
    // The product's CSP forbids inline scripts, axe's included: the audit context bypasses it.
    // The audit is about what people see; the pages' own console errors are other tests' business (no finish()).
    const { page, context } = await newPage(browser, { server, autoFinish: false, contextOptions: { viewport, bypassCSP: true } });
    if (who) await login(page, who.login, who.password);
    else await page.goto("/login");
    for (const entry of routes) {
      // "follow:/jobs/": the first link of the page just audited whose address starts so (a job, an automation).
      const route = entry.startsWith("follow:") ? await page.locator(`a[href^="${entry.slice(7)}"]`).first().getAttribute("href", { timeout: 2_000 }).catch(() => null) : entry;
      if (!route) continue;
      await open(page, route);
      problems.push(...describeFindings(`${route} @${viewport.width}`, await audit(page)));
    }
    await context.close();
  }
  return problems;
}

test("the administrator's screens have no serious or critical WCAG 2 A/AA violations at 1440 and 390 px", async ({ browser, server }) => {
  const routes = [
    "/mam",
    `/mam/${folderId}`,
    `/mam/${folderId}/asset/${imageId}`,
    `/mam/${folderId}/asset/${textId}`,
    `/editor/${textId}`,
    "/search?q=кадр",
    "/mam/trash",
    "/jobs",
    "follow:/jobs/",
    "/automations",
    "follow:/automations/",
    "/shop",
    "/shop/basket",
    "/shop/orders",
    "/admin",
    "/admin/groups",
    "/admin/metadata",
    "/admin/access",
    "/admin/audit",
    "/admin/shortlinks",
    "/admin/orders",
    "/admin/survey",
    "/admin/active-users",
    "/admin/inactive-users",
    `/admin/user/${reader.id}`,
    `/admin/group/${folderId}`,
  ];
  const problems = await auditRoutes(browser, { login: server.adminLogin, password: server.adminPassword }, routes);
  expect(problems).toEqual([]);
}, 600_000);

test("a read-only user's screens have no serious or critical violations", async ({ browser }) => {
  const routes = ["/mam", `/mam/${folderId}`, `/mam/${folderId}/asset/${imageId}`, "/search?q=кадр", "/mam/trash", "/jobs", "/shop"];
  const problems = await auditRoutes(browser, reader, routes);
  expect(problems).toEqual([]);
}, 300_000);

test("the public pages (sign-in, a shared link, a password-protected link) have no serious or critical violations", async ({ browser }) => {
  const problems = await auditRoutes(browser, null, ["/login", openLink, lockedLink]);
  expect(problems).toEqual([]);
}, 120_000);
