// Breaking changes between two OpenAPI 3.1 documents (the committed docs/openapi.json and the one the app generates):
// what a client generated from the old document would trip over. Pure functions over JSON, no I/O.

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/** Nesting budget of a schema walk: our schemas are a few levels deep; this stops a self-referencing schema. */
const MAX_DEPTH = 12;

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** Follows local `$ref`s (`#/components/...`), at most a few hops. */
function resolve(doc, node) {
  let current = node;
  for (let hop = 0; hop < 8 && isObject(current) && typeof current.$ref === "string"; hop++) {
    const pointer = current.$ref.replace(/^#\//, "").split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    current = pointer.reduce((at, key) => (isObject(at) ? at[key] : undefined), doc);
  }
  return current;
}

/** The JSON types a schema admits (`anyOf`/`oneOf` branches merged); undefined when it admits anything. */
function typesOf(doc, schema) {
  const s = resolve(doc, schema);
  if (!isObject(s)) return undefined;
  if (Array.isArray(s.type)) return new Set(s.type.map((t) => (t === "integer" ? "number" : t)));
  if (typeof s.type === "string") return new Set([s.type === "integer" ? "number" : s.type]);
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) {
    const all = new Set();
    for (const branch of branches) {
      const types = typesOf(doc, branch);
      if (!types) return undefined;
      for (const t of types) all.add(t);
    }
    return all;
  }
  if ("const" in s) return new Set([s.const === null ? "null" : typeof s.const]);
  return undefined;
}

const subset = (a, b) => [...a].every((x) => b.has(x));

/**
 * Compares a request schema (what clients send): the new one must accept everything the old one did.
 * Breaks: a type no longer accepted, an enum value dropped, a tighter bound, a newly required property.
 */
function compareRequest(oldDoc, newDoc, oldSchema, newSchema, where, out, depth = 0) {
  if (depth > MAX_DEPTH) return;
  const o = resolve(oldDoc, oldSchema);
  const n = resolve(newDoc, newSchema);
  if (!isObject(o) || !isObject(n)) return;
  const ot = typesOf(oldDoc, o);
  const nt = typesOf(newDoc, n);
  if (nt && (!ot || !subset(ot, nt))) out.push({ key: `${where}: type narrowed`, detail: `${[...(ot ?? ["any"])]} → ${[...nt]}` });
  if (Array.isArray(n.enum)) {
    const dropped = Array.isArray(o.enum) ? o.enum.filter((v) => !n.enum.includes(v)) : ["(any value)"];
    if (dropped.length > 0) out.push({ key: `${where}: enum narrowed`, detail: `no longer accepts ${JSON.stringify(dropped)}` });
  }
  for (const [bound, tighter] of [
    ["maxLength", (a, b) => b < a],
    ["maximum", (a, b) => b < a],
    ["maxItems", (a, b) => b < a],
    ["minLength", (a, b) => b > a],
    ["minimum", (a, b) => b > a],
    ["minItems", (a, b) => b > a],
  ]) {
    if (typeof n[bound] !== "number") continue;
    if (typeof o[bound] !== "number" || tighter(o[bound], n[bound])) out.push({ key: `${where}: ${bound} narrowed`, detail: `${o[bound] ?? "none"} → ${n[bound]}` });
  }
  if (typeof n.pattern === "string" && n.pattern !== o.pattern) out.push({ key: `${where}: pattern changed`, detail: `${o.pattern ?? "none"} → ${n.pattern}` });
  const oldRequired = new Set(Array.isArray(o.required) ? o.required : []);
  for (const name of Array.isArray(n.required) ? n.required : []) {
    if (!oldRequired.has(name)) out.push({ key: `${where}.${name}: newly required`, detail: "clients that omit it are refused" });
  }
  if (isObject(o.properties) && isObject(n.properties)) {
    for (const [name, schema] of Object.entries(n.properties)) {
      if (name in o.properties) compareRequest(oldDoc, newDoc, o.properties[name], schema, `${where}.${name}`, out, depth + 1);
    }
  }
  if (o.items && n.items) compareRequest(oldDoc, newDoc, o.items, n.items, `${where}[]`, out, depth + 1);
}

/**
 * Compares a response schema (what clients read): everything the old one promised must still be there.
 * Breaks: a property removed, a type the old document did not allow (clients would not parse it).
 */
function compareResponse(oldDoc, newDoc, oldSchema, newSchema, where, out, depth = 0) {
  if (depth > MAX_DEPTH) return;
  const o = resolve(oldDoc, oldSchema);
  const n = resolve(newDoc, newSchema);
  if (!isObject(o) || !isObject(n)) return;
  const ot = typesOf(oldDoc, o);
  const nt = typesOf(newDoc, n);
  if (ot && (!nt || !subset(nt, ot))) out.push({ key: `${where}: type changed`, detail: `${[...ot]} → ${[...(nt ?? ["any"])]}` });
  if (isObject(o.properties)) {
    const newProperties = isObject(n.properties) ? n.properties : {};
    for (const [name, schema] of Object.entries(o.properties)) {
      if (!(name in newProperties)) out.push({ key: `${where}.${name}: removed`, detail: "a field clients may read is gone" });
      else compareResponse(oldDoc, newDoc, schema, newProperties[name], `${where}.${name}`, out, depth + 1);
    }
  }
  if (o.items && n.items) compareResponse(oldDoc, newDoc, o.items, n.items, `${where}[]`, out, depth + 1);
}

const jsonSchemaOf = (doc, holder) => {
  const content = resolve(doc, holder)?.content;
  return isObject(content) ? content["application/json"]?.schema : undefined;
};

/**
 * Every breaking change from `oldDoc` to `newDoc`: `{ key, detail }`, where `key` names the place
 * (`METHOD /path …`) and is what docs/api.md's «Breaking changes» list acknowledges.
 */
export function breakingChanges(oldDoc, newDoc) {
  const out = [];
  for (const [path, oldItem] of Object.entries(oldDoc.paths ?? {})) {
    for (const method of METHODS) {
      const o = oldItem?.[method];
      if (!isObject(o)) continue;
      const call = `${method.toUpperCase()} ${path}`;
      const n = newDoc.paths?.[path]?.[method];
      if (!isObject(n)) {
        out.push({ key: `${call}: removed`, detail: `operation ${o.operationId ?? ""} is gone` });
        continue;
      }
      if (o.operationId !== n.operationId) out.push({ key: `${call}: operationId renamed`, detail: `${o.operationId} → ${n.operationId}` });
      const oldParams = new Map((o.parameters ?? []).map((p) => resolve(oldDoc, p)).map((p) => [`${p.in} ${p.name}`, p]));
      for (const raw of n.parameters ?? []) {
        const p = resolve(newDoc, raw);
        const before = oldParams.get(`${p.in} ${p.name}`);
        if (!before) {
          if (p.required) out.push({ key: `${call} ${p.in} ${p.name}: newly required`, detail: "a new required parameter" });
          continue;
        }
        if (p.required && !before.required) out.push({ key: `${call} ${p.in} ${p.name}: newly required`, detail: "was optional" });
        compareRequest(oldDoc, newDoc, before.schema, p.schema, `${call} ${p.in} ${p.name}`, out);
      }
      const oldBody = jsonSchemaOf(oldDoc, o.requestBody);
      const newBody = jsonSchemaOf(newDoc, n.requestBody);
      if (newBody && resolve(newDoc, n.requestBody)?.required && !resolve(oldDoc, o.requestBody)?.required) {
        out.push({ key: `${call} body: newly required`, detail: "a request body is now required" });
      }
      if (oldBody && newBody) compareRequest(oldDoc, newDoc, oldBody, newBody, `${call} body`, out);
      for (const [code, oldAnswer] of Object.entries(o.responses ?? {})) {
        if (!code.startsWith("2")) continue;
        const newAnswer = n.responses?.[code];
        if (!newAnswer) {
          out.push({ key: `${call} ${code}: removed`, detail: "the success answer is gone" });
          continue;
        }
        const oldSchema = jsonSchemaOf(oldDoc, oldAnswer);
        const newSchema = jsonSchemaOf(newDoc, newAnswer);
        if (oldSchema && newSchema) compareResponse(oldDoc, newDoc, oldSchema, newSchema, `${call} ${code}`, out);
      }
    }
  }
  return out;
}

/** The keys docs/api.md acknowledges: each bullet of its «Breaking changes» section starting with a `key`. */
export function acknowledgedKeys(markdown) {
  const heading = /^#{2,4} Breaking changes[ \t]*$/m.exec(markdown);
  if (!heading) return new Set();
  const rest = markdown.slice(heading.index + heading[0].length);
  const next = /^#{1,4} /m.exec(rest);
  const section = next ? rest.slice(0, next.index) : rest;
  return new Set([...section.matchAll(/^- `([^`]+)`/gm)].map((match) => match[1]));
}
