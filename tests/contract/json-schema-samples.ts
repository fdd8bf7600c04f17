import fc from "fast-check";

/**
 * Requests from the published document's JSON Schemas: fast-check arbitraries of values a schema allows
 * (`allowedValue`), and values it forbids, made by one mutation of an allowed one (`forbiddenVariants`). Covers the
 * JSON Schema the API's zod contracts publish (types, enums, const, bounds, patterns, formats, objects, arrays,
 * anyOf/oneOf, maxProperties, local $refs); anything else is generated as a plain string and reported by the test that uses it.
 */

export type Schema = Record<string, unknown>;
export type Doc = { components?: { schemas?: Record<string, Schema> } };

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** Nesting budget: request schemas are a few levels deep. */
const MAX_DEPTH = 8;

export function resolve(doc: Doc, schema: unknown): Schema {
  let current = schema;
  for (let hop = 0; hop < 8 && isObject(current) && typeof current.$ref === "string"; hop++) {
    const name = current.$ref.replace("#/components/schemas/", "");
    current = doc.components?.schemas?.[name];
  }
  return isObject(current) ? current : {};
}

/** The JSON types a schema allows (integer counts as number); undefined: any. */
export function allowedTypes(doc: Doc, schema: unknown): Set<string> | undefined {
  const s = resolve(doc, schema);
  if (Array.isArray(s.type)) return new Set(s.type.map((t) => (t === "integer" ? "number" : String(t))));
  if (typeof s.type === "string") return new Set([s.type === "integer" ? "number" : s.type]);
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) {
    const all = new Set<string>();
    for (const branch of branches) {
      const types = allowedTypes(doc, branch);
      if (!types) return undefined;
      for (const t of types) all.add(t);
    }
    return all;
  }
  if ("const" in s) return new Set([s.const === null ? "null" : typeof s.const]);
  if (Array.isArray(s.enum)) return new Set(s.enum.map((v) => (v === null ? "null" : typeof v)));
  return undefined;
}

const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  const minLength = num(s.minLength) ?? 0;
  const maxLength = Math.min(num(s.maxLength) ?? minLength + 24, minLength + 24);
  const fits = (v: string) => [...v].length >= minLength && [...v].length <= (num(s.maxLength) ?? Infinity);
  if (typeof s.pattern === "string") return fc.stringMatching(new RegExp(s.pattern, "u")).filter(fits);
  switch (s.format) {
    case "date-time":
      return fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString());
    case "date":
      return fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case "email":
      return fc.constantFrom("anna@example.com", "buyer.one@example.org");
    case "uri":
    case "url":
      return fc.constantFrom("https://example.com/", "https://example.org/a/b?c=1");
    case "uuid":
      return fc.uuid();
    default:
      return fc.string({ minLength, maxLength, unit: "grapheme-ascii" });
  }
}

function numberArbitrary(s: Schema, integer: boolean): fc.Arbitrary<number> {
  let min = num(s.minimum) ?? -1_000_000;
  let max = num(s.maximum) ?? 1_000_000;
  if (num(s.exclusiveMinimum) !== undefined) min = Math.max(min, num(s.exclusiveMinimum)! + (integer ? 1 : 1e-6));
  if (num(s.exclusiveMaximum) !== undefined) max = Math.min(max, num(s.exclusiveMaximum)! - (integer ? 1 : 1e-6));
  min = Math.max(min, -1_000_000_000);
  max = Math.min(max, 1_000_000_000);
  if (integer) return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** Values the schema allows. */
export function allowedValue(doc: Doc, schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(doc, schema);
  const not = isObject(s.not) && Array.isArray(s.not.enum) ? s.not.enum : undefined;
  if (not) {
    const { not: _not, ...rest } = s;
    return allowedValue(doc, rest, depth).filter((value) => !not.includes(value));
  }
  if (depth > MAX_DEPTH) return fc.constant(null);
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((b) => allowedValue(doc, b, depth + 1)));
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return allowedValue(doc, s.allOf[0], depth + 1);
  const types = Array.isArray(s.type) ? s.type.map(String) : typeof s.type === "string" ? [s.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => allowedValue(doc, { ...s, type }, depth + 1)));
  switch (types[0]) {
    case "string":
      return stringArbitrary(s);
    case "integer":
      return numberArbitrary(s, true);
    case "number":
      return numberArbitrary(s, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      if (Array.isArray(s.prefixItems)) return fc.tuple(...s.prefixItems.map((item) => allowedValue(doc, item, depth + 1)));
      const minLength = num(s.minItems) ?? 0;
      const maxLength = Math.min(num(s.maxItems) ?? minLength + 3, minLength + 3);
      return fc.array(allowedValue(doc, s.items ?? {}, depth + 1), { minLength, maxLength });
    }
    case "object":
    case undefined: {
      if (!isObject(s.properties)) return types[0] === "object" ? fc.constant({}) : fc.constant("x");
      const required = Array.isArray(s.required) ? s.required.map(String) : [];
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(s.properties)) record[name] = allowedValue(doc, property, depth + 1);
      const objects = fc.record(record, { requiredKeys: required.filter((name) => name in record) });
      const most = num(s.maxProperties) ?? Infinity;
      const least = num(s.minProperties) ?? 0;
      return most === Infinity && least === 0 ? objects : objects.filter((value) => Object.keys(value).length <= most && Object.keys(value).length >= least);
    }
    default:
      return fc.constant("x");
  }
}

/** A value of a JSON type, for "wrong type" mutations. */
const VALUE_OF_TYPE: Record<string, unknown> = { string: "wrong", number: 12345.5, boolean: true, object: { wrong: 1 }, array: [1, 2], null: null };

export interface Forbidden {
  /** what was changed, for the failure message */
  what: string;
  value: unknown;
}

/**
 * Values the schema forbids, each one mutation away from `valid` (an allowed value): a value of a type the schema
 * does not allow, a string or array past its bounds, a string outside its pattern or enum, a number past its bounds,
 * and for objects a required property removed or one property made forbidden.
 */
export function forbiddenVariants(doc: Doc, schema: unknown, valid: unknown, where = "", depth = 0): Forbidden[] {
  const s = resolve(doc, schema);
  if (depth > MAX_DEPTH) return [];
  const out: Forbidden[] = [];
  const types = allowedTypes(doc, s);
  if (types) {
    const wrong = ["number", "string", "object", "boolean"].find((t) => !types.has(t) && !(t === "number" && types.has("integer")));
    if (wrong) out.push({ what: `${where || "(body)"}: a ${wrong} instead of ${[...types].join("|")}`, value: VALUE_OF_TYPE[wrong] });
  }
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) return out;
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === "string")) out.push({ what: `${where}: not one of the enum`, value: "zz-not-in-enum" });
  if (typeof s.maxLength === "number" && s.maxLength < 100_000 && !Array.isArray(s.enum)) out.push({ what: `${where}: longer than ${s.maxLength}`, value: "a".repeat(s.maxLength + 1) });
  if (typeof s.minLength === "number" && s.minLength > 0) out.push({ what: `${where}: shorter than ${s.minLength}`, value: "" });
  if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test("~не подходит~")) out.push({ what: `${where}: outside its pattern`, value: "~не подходит~" });
  if (typeof s.maximum === "number") out.push({ what: `${where}: above ${s.maximum}`, value: s.maximum + 1 });
  if (typeof s.minimum === "number") out.push({ what: `${where}: below ${s.minimum}`, value: s.minimum - 1 });
  if (typeof s.maxItems === "number" && s.maxItems < 10_000 && Array.isArray(valid) && valid.length > 0) {
    out.push({ what: `${where}: more than ${s.maxItems} items`, value: Array.from({ length: s.maxItems + 1 }, () => valid[0]) });
  }
  const properties = s.properties;
  if (typeof s.maxProperties === "number" && isObject(valid) && isObject(properties)) {
    // every declared property at once (each an allowed value), past maxProperties
    const names = Object.keys(properties);
    if (names.length > s.maxProperties) {
      const full = Object.fromEntries(names.map((name) => [name, name in valid ? valid[name] : fc.sample(allowedValue(doc, properties[name], depth + 1), { numRuns: 1, seed: 1 })[0]]));
      out.push({ what: `${where}: more than ${s.maxProperties} properties`, value: full });
    }
  }
  if (isObject(valid) && isObject(s.properties)) {
    const required = Array.isArray(s.required) ? s.required.map(String) : [];
    for (const name of required) {
      if (!(name in valid)) continue;
      const { [name]: _dropped, ...rest } = valid;
      out.push({ what: `${where}.${name}: missing (required)`, value: rest });
    }
    for (const [name, property] of Object.entries(s.properties)) {
      if (!(name in valid)) continue;
      for (const inner of forbiddenVariants(doc, property, valid[name], `${where}.${name}`, depth + 1)) {
        out.push({ what: inner.what, value: { ...valid, [name]: inner.value } });
      }
    }
  }
  return out;
}
