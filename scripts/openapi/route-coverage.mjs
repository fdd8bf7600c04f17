// Which routes the Hono app mounts under /api and the OpenAPI document does not list, and the other way round.

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** `/api/user/:id{[0-9a-f]+}` (Hono) → `/api/user/{id}` (OpenAPI). */
const openApiPath = (honoPath) => honoPath.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?\??/g, "{$1}");

/**
 * `routes`: the app's route table (`app.routes`: `{ method, path }`); middleware (`ALL`) is not a call.
 * Answers the calls (`METHOD /path`) present on one side only.
 */
export function routeCoverage(routes, doc) {
  const mounted = new Set();
  for (const { method, path } of routes) {
    if (method === "ALL" || !(path === "/api" || path.startsWith("/api/"))) continue;
    mounted.add(`${method.toUpperCase()} ${openApiPath(path)}`);
  }
  const documented = new Set();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) if (item?.[method]) documented.add(`${method.toUpperCase()} ${path}`);
  }
  return {
    missingFromDocument: [...mounted].filter((call) => !documented.has(call)).sort(),
    missingFromApp: [...documented].filter((call) => !mounted.has(call)).sort(),
  };
}
