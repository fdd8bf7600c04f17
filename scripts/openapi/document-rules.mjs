// House rules of the OpenAPI document that the validator and the linter do not check.

const isObject = (v) => typeof v === "object" && v !== null;

/** Nesting budget of the walk: documents are a few dozen levels deep at most. */
const MAX_DEPTH = 64;

/**
 * Problems found: a `pattern` that carries JavaScript flags (`…$/i`: JSON Schema patterns are ECMA-262 source
 * without flags, so a client validator would match the flag letters literally) or does not compile as a Unicode
 * regex; an `operationId` that is not camelCase.
 */
export function documentRuleProblems(doc) {
  const problems = [];
  const walk = (node, pointer, depth) => {
    if (!isObject(node) || depth > MAX_DEPTH) return;
    for (const [key, value] of Object.entries(node)) {
      const at = `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (key === "pattern" && typeof value === "string") {
        if (/(?<!\\)\/[dgimsuvy]+$/.test(value)) problems.push(`${at}: pattern carries JavaScript flags: ${value}`);
        try {
          new RegExp(value, "u");
        } catch (error) {
          problems.push(`${at}: pattern is not an ECMA-262 Unicode regex: ${error.message}`);
        }
      }
      if (key === "operationId" && typeof value === "string" && !/^[a-z][A-Za-z0-9]*$/.test(value)) {
        problems.push(`${at}: operationId is not camelCase: ${value}`);
      }
      walk(value, at, depth + 1);
    }
  };
  walk(doc, "#", 0);
  return problems;
}
