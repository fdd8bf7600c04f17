import { describe, expect, it } from "vitest";
import { acknowledgedKeys, breakingChanges } from "../../scripts/openapi/breaking-changes.mjs";
import { documentRuleProblems } from "../../scripts/openapi/document-rules.mjs";
import { routeCoverage } from "../../scripts/openapi/route-coverage.mjs";
import { deriveOperationId, finishDocument, type OpenApiDocument } from "../../workers/api/openapi-document";

/** The pure pieces of `npm run check:openapi` (scripts/openapi.mjs): each must be able to fail. */

const user = (extra: Record<string, unknown> = {}) => ({
  type: "object",
  required: ["id", "name"],
  properties: { id: { type: "string" }, name: { type: "string", maxLength: 100 }, enabled: { type: "boolean" }, ...extra },
});

/** A one-operation document: `GET /api/user/{id}` answering a User, `PATCH` taking one. */
function doc(options: { answer?: object; body?: object; operationId?: string; params?: object[] } = {}) {
  return {
    openapi: "3.1.0",
    info: { title: "t", version: "1.0" },
    components: { schemas: { User: options.answer ?? user() } },
    paths: {
      "/api/user/{id}": {
        get: {
          operationId: options.operationId ?? "getUser",
          parameters: options.params ?? [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: { description: "u", content: { "application/json": { schema: { $ref: "#/components/schemas/User" } } } } },
        },
        patch: {
          operationId: "patchUser",
          requestBody: { content: { "application/json": { schema: options.body ?? { type: "object", properties: { name: { type: "string", maxLength: 100 } } } } } },
          responses: { 200: { description: "u" } },
        },
      },
    },
  };
}

describe("operation ids", () => {
  it("are the method and the path's literal segments in camelCase, parameters left out", () => {
    expect(deriveOperationId("post", "/api/group/create")).toBe("postGroupCreate");
    expect(deriveOperationId("get", "/api/group/members/{id}")).toBe("getGroupMembers");
    expect(deriveOperationId("patch", "/api/user/ui_settings")).toBe("patchUserUiSettings");
    expect(deriveOperationId("get", "/api/openapi.json")).toBe("getOpenapiJson");
    expect(deriveOperationId("delete", "/api/taxonomy/delete/{treeId}/{taxonId}/{force}")).toBe("deleteTaxonomyDelete");
  });
});

describe("finishing the document", () => {
  it("names operations, requires every path parameter (adding a missing one), makes only the listed public calls public", () => {
    const raw = {
      openapi: "3.1.0",
      info: { title: "t", version: "1.0" },
      paths: {
        "/api/asset/waveform/{id}/{version}": {
          get: {
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, { name: "version", in: "path", required: false, schema: { type: ["integer", "null"] } }],
            responses: { 200: { description: "ok" } },
          },
        },
        "/api/x/{a}": { post: { security: [{ bearer: [] }], responses: { 200: { description: "ok" }, 401: { description: "no" } } } },
        "/api/health": { get: { responses: { 200: { description: "ok" } } } },
      },
    } as unknown as OpenApiDocument;
    const done = finishDocument(raw) as unknown as ReturnType<typeof doc> & { paths: Record<string, Record<string, Record<string, unknown>>>; tags: unknown[] };
    const waveform = done.paths["/api/asset/waveform/{id}/{version}"]!.get!;
    expect(waveform.operationId).toBe("getAssetWaveform");
    expect(waveform.parameters).toEqual([
      { name: "id", in: "path", required: true, schema: { type: "string" } },
      { name: "version", in: "path", required: true, schema: { type: "integer" } },
    ]);
    // not a listed public call: left undeclared, so the lint (security-defined) fails until someone decides
    expect(waveform.security).toBeUndefined();
    expect(done.paths["/api/health"]!.get!.security).toEqual([]);
    expect(Object.keys(waveform.responses as object)).toContain("400");
    const x = done.paths["/api/x/{a}"]!.post!;
    expect(x.parameters).toEqual([{ name: "a", in: "path", required: true, schema: { type: "string" } }]);
    expect(x.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(x.responses as object)).toEqual(["200", "401"]);
    expect(done.tags.length).toBeGreaterThan(10);
  });
});

describe("breaking changes against the committed document", () => {
  it("finds none between equal documents or for additions", () => {
    expect(breakingChanges(doc(), doc())).toEqual([]);
    expect(breakingChanges(doc(), doc({ answer: user({ email: { type: "string" } }) }))).toEqual([]);
    expect(breakingChanges(doc(), doc({ body: { type: "object", properties: { name: { type: ["string", "null"], maxLength: 200 } } } }))).toEqual([]);
  });

  it("finds a removed operation, a removed answer field, a changed answer type and a renamed operationId", () => {
    const old = doc();
    const removed = structuredClone(old) as { paths: Record<string, Record<string, unknown>> };
    delete removed.paths["/api/user/{id}"]!.patch;
    expect(breakingChanges(old, removed).map((c) => c.key)).toEqual(["PATCH /api/user/{id}: removed"]);
    const { enabled: _enabled, ...withoutEnabled } = user().properties;
    expect(breakingChanges(old, doc({ answer: { ...user(), properties: withoutEnabled } })).map((c) => c.key)).toEqual(["GET /api/user/{id} 200.enabled: removed"]);
    expect(breakingChanges(old, doc({ answer: user({ enabled: { type: ["boolean", "null"] } }) })).map((c) => c.key)).toEqual(["GET /api/user/{id} 200.enabled: type changed"]);
    expect(breakingChanges(old, doc({ operationId: "readUser" })).map((c) => c.key)).toEqual(["GET /api/user/{id}: operationId renamed"]);
  });

  it("finds a narrowed request: tighter bound, narrower type, dropped enum value, newly required field or parameter", () => {
    const old = doc({ body: { type: "object", properties: { name: { type: "string", maxLength: 100 }, kind: { type: "string", enum: ["a", "b"] } } } });
    const narrowed = doc({
      body: { type: "object", required: ["name"], properties: { name: { type: "integer", maxLength: 50 }, kind: { type: "string", enum: ["a"] } } },
      params: [
        { name: "id", in: "path", required: true, schema: { type: "string" } },
        { name: "q", in: "query", required: true, schema: { type: "string" } },
      ],
    });
    expect(breakingChanges(old, narrowed).map((c) => c.key).sort()).toEqual(
      [
        "GET /api/user/{id} query q: newly required",
        "PATCH /api/user/{id} body.name: newly required",
        "PATCH /api/user/{id} body.name: type narrowed",
        "PATCH /api/user/{id} body.name: maxLength narrowed",
        "PATCH /api/user/{id} body.kind: enum narrowed",
      ].sort(),
    );
  });

  it("reads the acknowledged keys from docs/api.md's «Breaking changes» list only", () => {
    const md =
      "## Other\n- `GET /x: removed` not here\n\n### Breaking changes\n\n- `PATCH /api/user/{id}: removed` (2026-12-02): merged into …\n- plain text\n## Next\n- `GET /y: removed`\n";
    expect([...acknowledgedKeys(md)]).toEqual(["PATCH /api/user/{id}: removed"]);
  });
});

describe("routes against the document", () => {
  it("lists calls mounted under /api and missing from the document, and documented calls the app does not mount", () => {
    const routes = [
      { method: "ALL", path: "/*" },
      { method: "GET", path: "/api/user/:id" },
      { method: "POST", path: "/api/group/create" },
      { method: "GET", path: "/metrics" },
    ];
    const { missingFromDocument, missingFromApp } = routeCoverage(routes, doc());
    expect(missingFromDocument).toEqual(["POST /api/group/create"]);
    expect(missingFromApp).toEqual(["PATCH /api/user/{id}"]);
  });
});

describe("document rules", () => {
  it("refuses patterns with JavaScript flags and operation ids that are not camelCase", () => {
    const bad = { components: { schemas: { Mime: { type: "string", pattern: "^[a-z]+\\/[a-z]+$/i" } } }, paths: { "/a": { get: { operationId: "get-a" } } } };
    expect(documentRuleProblems(bad)).toEqual([
      "#/components/schemas/Mime/pattern: pattern carries JavaScript flags: ^[a-z]+\\/[a-z]+$/i",
      "#/paths/~1a/get/operationId: operationId is not camelCase: get-a",
    ]);
    expect(documentRuleProblems({ components: { schemas: { Mime: { type: "string", pattern: "^[a-zA-Z]+\\/[a-zA-Z]+$" } } } })).toEqual([]);
  });
});
