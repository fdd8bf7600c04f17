import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

/**
 * The static import graph of the project's TypeScript, as a bundler follows it: every `import`, `export … from` and
 * `import("…")` whose module is loaded at run time. Type-only imports and exports (`import type`, all-`type` named
 * lists) are erased by the compiler and left out; a re-export counts, since a bundler evaluates the re-exported
 * module. Project files are their paths from the root ("workers/app.ts"), packages are "pkg:<specifier>".
 */
export interface ImportGraph {
  /** every module reached from the entries, with the module that first reached it (null for an entry) */
  parents: Map<string, string | null>;
  /** the chain entry → … → `module`, or null when the entries never reach it */
  pathTo(module: string): string[] | null;
}

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..", "..");
const SOURCE = /\.(m?[jt]sx?)$/;

function resolve(from: string, specifier: string): string {
  const bare = specifier.split("?")[0];
  let base: string;
  if (bare.startsWith(".")) base = join(dirname(join(ROOT, from)), bare);
  else if (bare.startsWith("~/")) base = join(ROOT, "app", bare.slice(2));
  else return `pkg:${bare}`;
  for (const candidate of [base, base.replace(/\.js$/, ".ts"), `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(ROOT, candidate);
  }
  throw new Error(`${from}: cannot resolve "${specifier}"`);
}

function typeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return !clause.name && !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

function typeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const named = node.exportClause;
  return !!named && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

/** The modules one file loads at run time. */
export function importsOf(file: string): string[] {
  if (!SOURCE.test(file)) return [];
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!typeOnlyImport(node)) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!typeOnlyExport(node)) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) specifiers.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers.map((specifier) => resolve(file, specifier));
}

/** Modules the Remix server build replaces with empty ones (`*.client.ts(x)`): browser code, never in a Worker bundle. */
export const REMIX_CLIENT_ONLY = /\.client\.[jt]sx?$/;

/** Walks the graph from `entries` (paths from the repository root), not entering modules `skip` names. */
export function importGraph(entries: readonly string[], skip: RegExp = REMIX_CLIENT_ONLY): ImportGraph {
  const parents = new Map<string, string | null>(entries.map((e) => [e, null]));
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (file.startsWith("pkg:")) continue;
    for (const next of importsOf(file)) {
      if (skip.test(next)) continue;
      if (!parents.has(next)) {
        parents.set(next, file);
        queue.push(next);
      }
    }
  }
  return {
    parents,
    pathTo(module) {
      if (!parents.has(module)) return null;
      const path: string[] = [];
      for (let at: string | null | undefined = module; at; at = parents.get(at)) path.unshift(at);
      return path;
    },
  };
}

/** The Remix app's modules the server build bundles (`remix-server-build`, part of the API Worker): root, server entry and routes. */
export function remixServerEntries(): string[] {
  const routes = ts.sys.readDirectory(join(ROOT, "app", "routes"), [".ts", ".tsx"]).map((f) => relative(ROOT, f));
  return ["app/root.tsx", "app/entry.server.tsx", ...routes];
}
