import { Hono } from "hono";
import { applyPageHeaders, CSP_REPORT_PATH, newNonce } from "../../lib/security-headers";
import type { AppEnv } from "../types";

/**
 * GET /api/docs: Swagger UI over /api/openapi.json. The UI's files are served from our own static assets
 * (copied from swagger-ui-dist at build), so the reference works offline and under a strict CSP. With some 170
 * operations the filter box (by tag) is how people find theirs; the UI renders only what is on screen.
 */
export const docsRoutes = new Hono<AppEnv>().get("/", (c) => {
  const nonce = newNonce();
  const headers = new Headers();
  applyPageHeaders(headers, new URL(c.req.url), { nonce, kind: "api-docs", reportUri: CSP_REPORT_PATH });
  for (const [name, value] of headers) c.header(name, value);
  return c.html(`<!doctype html>
<html lang="ru">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Медиатека — справочник API</title>
  <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
  <link rel="stylesheet" href="/vendor/swagger-ui/swagger-ui.css" />
  <style>body{margin:0;background:#fafafa}</style>
</head>
<body>
  <div id="api-reference"></div>
  <script src="/vendor/swagger-ui/swagger-ui-bundle.js"></script>
  <script nonce="${nonce}">
    window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#api-reference", deepLinking: true, persistAuthorization: true, filter: true });
  </script>
</body>
</html>`);
});
