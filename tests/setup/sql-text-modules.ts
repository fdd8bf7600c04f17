import type { Plugin } from "vite";

/**
 * `import sql from "…/0001_x.sql"` gives the file's text: wrangler's default module rule for `.sql` does this when it
 * bundles the Worker (the library shard's migrations, workers/db/catalog-migrations.ts); the test runner loads modules
 * through Vite, which needs to be told.
 */
export function sqlTextModules(): Plugin {
  return {
    name: "sql-text-modules",
    transform(code, id) {
      return id.endsWith(".sql") ? { code: `export default ${JSON.stringify(code)};`, map: null } : null;
    },
  };
}
