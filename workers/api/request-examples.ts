import type { OpenAPIHono } from "@hono/zod-openapi";

type OpenAPIRegistry = OpenAPIHono["openAPIRegistry"];

/** Sample ids of the examples (32 lowercase hex, like every id of the API). */
const A = "0195f1c2a4b37c0d9e8f1a2b3c4d5e6f";
const B = "0195f1c2a4b37c0d9e8f1a2b3c4d5e70";

/**
 * One example request body per operation whose schema carries none, by "METHOD /path" as the OpenAPI document
 * writes it. SPEC §7 calls show the minimal SPEC-shaped body (tests/contract sends the same shapes); the contract
 * suite checks that every operation with a JSON body has an example and that its declared schema accepts it.
 */
export const REQUEST_EXAMPLES: Record<string, unknown> = {
  "POST /api/uldl-status": [{ id: "eu-1", ping: 12 }],
  "POST /api/pqi": { rating: 9, comment: "Быстро нахожу нужные файлы" },
  "PUT /api/shop/listing/{id}": { price: 150000, currency: "RUB", licence: "Редакционное использование, без ограничения срока" },
  "POST /api/shop/basket": { entity_id: A },
  "POST /api/shop/checkout": { email: "buyer@example.com" },
  "POST /api/auth/login": { user: "admin", passwd: "пароль" },
  "POST /api/auth/exchange-token": { token: "9c1f0e2d4b6a48e0a1b2c3d4e5f60718" },
  "POST /api/auth/token-owner": { token: "9c1f0e2d4b6a48e0a1b2c3d4e5f60718" },
  "POST /api/auth/access-inheritance/{id}": { inherit: false },
  "POST /api/user/acl": { subj: A, obj: B, acl: ["read", "download"] },
  "PATCH /api/user/acl-list": { create: [{ subj: A, obj: B, acl: ["read"] }], update: [{ rule_id: B, acl: ["read", "update"] }], delete: [] },
  "PATCH /api/user/acl/{id}": { acl: ["read", "download"] },
  "PATCH /api/user/ui_settings": { theme: "dark", view: "grid" },
  "PATCH /api/user/bookmarks": { groups: [A] },
  "POST /api/user": { user_name: "Анна Петрова", user_login: "anna", user_passwd: "correct horse battery", enabled: true },
  "PATCH /api/user/{id}": { user_name: "Анна Петрова", enabled: false },
  "POST /api/user/{id}/tokens": { name: "Импорт из архива", scope_groups: [A] },
  "POST /api/group/users/{id}": { users: [A, B] },
  "POST /api/group/create": { parent: "ffffffffffffffffffffffffffffffff", group_name: "Съёмки" },
  "PATCH /api/group/update/{id}": { group_name: "Съёмки 2026" },
  "POST /api/group/delete-list": { ids: [A, B] },
  "POST /api/group/insert-members/{id}": { members: [{ el_id: A, el_type: "asset" }] },
  "POST /api/group/insert-member-return-where/{id}": { members: [{ el_id: A, el_type: "asset" }] },
  "POST /api/group/insert-members-return-group/{id}": { members: [{ el_id: A, el_type: "asset" }] },
  "POST /api/group/move-members/{from}/{to}": { ids: [A] },
  "POST /api/group/entity-by-path/{root}": { path: "Съёмки/Интервью.mp4" },
  "POST /api/group/group-size": { ids: [A] },
  "POST /api/asset/class-by-ids": { ids: [A] },
  "POST /api/asset/class/create": { name: "Интервью" },
  "PATCH /api/asset/class/change/{id}": { name: "Интервью", def_fields: [A] },
  "POST /api/asset/content/preview-by-list": { ids: [A, B] },
  "POST /api/asset/content/preview-by-varlist": { ids: [A, B] },
  "POST /api/asset/create": { asset_name: "Интервью.mp4", asset_mime: "video/mp4", in_group: A },
  "POST /api/asset/create-list": { assets: [{ asset_name: "Интервью.mp4", asset_mime: "video/mp4", in_group: A }] },
  "POST /api/asset/delete-list": { ids: [A, B] },
  "POST /api/asset/version-by-ids": { ids: [A] },
  "POST /api/asset/version/{id}": { version: 1 },
  "POST /api/asset/content/play/{id}": { version: 1, variant_type: "proxy_lowres" },
  "POST /api/asset/content/play-variant/{variant}": { disposition: "attachment" },
  "PATCH /api/asset/{id}": { asset_name: "Интервью (финал).mp4" },
  "POST /api/tags/list-by-ids": { ids: [A] },
  "POST /api/tags/list-by-filter": { q: "инт", take: 20 },
  "POST /api/tags/create": { tag_name: "интервью" },
  "PATCH /api/tags/change/{id}": { tag_name: "интервью" },
  "POST /api/tags/attach": { tag_ids: [A], entities: [{ id: B, type: "asset" }] },
  "POST /api/tags/detach": { tag_ids: [A], entities: [{ id: B, type: "asset" }] },
  "POST /api/storage/create": {
    name: "Архив S3",
    setup: { url: "https://s3.eu-central-1.amazonaws.com", bucket: "media-archive" },
    creds: { user: "AKIAIOSFODNN7EXAMPLE", passwd: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
  },
  "PATCH /api/storage/update/{id}": { name: "Архив S3 (холодный)" },
  "POST /api/upload/sign": { variant_id: A, op: "part", method: "PUT", upload_id: "2~abc", part_number: 1, key: `media/${A}` },
  "POST /api/uploads": { items: [{ id: A, fileName: "Интервью.mp4", size: 1048576, groupId: B }] },
  "POST /api/uploads/keepalive": { ids: [A] },
  "PATCH /api/uploads/{id}": { status: "uploading", progress: 42 },
  "POST /api/uploads/report": { reports: [{ id: "0193a1b2c3d4e5f60718293a4b5c6d7e", patch: { status: "completed" } }] },
  "PATCH /api/tasklist/udwf/workflow/{id}": { name: "Превью для новых видео" },
  "PATCH /api/tasklist/udwf/workflow-setup/{id}": { trigger: { type: "manual" }, actions: [{ type: "add-tag", tag_id: A }] },
  "POST /api/tasklist/udwf/workflow-enable-disable/{id}": { enabled: true },
  "POST /api/tasklist/udwf/execute/{id}": { asset_id: A },
  "POST /api/tasklist/enqueue-task/{x}": { entities: [{ id: A, type: "asset" }] },
  "POST /api/tasklist/command/{taskId}": { command: "cancel" },
  "POST /api/tasklist/priority/{taskId}": { priority: 5 },
  "POST /api/fields/templates-by-ids": { ids: [A] },
  "POST /api/fields/template": { field_def_name: "Персона в кадре", field_type: "text" },
  "PATCH /api/fields/template/{id}": { field_def_name: "Персона в кадре", field_priority: 10 },
  "PATCH /api/fields/change/{id}/{fid}": { data: "Анна", pts: [12, 47.5] },
  "POST /api/fields/entities-by-field": { def_id: A, condition: { op: "eq", value: "Анна" } },
  "POST /api/fields/bulk-set": { def_id: A, entity_ids: [B], data: "Анна" },
  "POST /api/fields/apply/{id}": { asset_class: A, values: [{ def_id: B, data: "Анна" }] },
  "POST /api/taxonomy/create/{treeId}": { path: "Спорт/Футбол" },
  "PATCH /api/taxonomy/change/{treeId}/{taxonId}": { name: "Футбол" },
  "POST /api/taxonomy/add-member/{taxonId}": { objectId: A },
  "POST /api/lists/create": { name: "Языки" },
  "PATCH /api/lists/change/{id}": { name: "Языки интервью" },
  "PUT /api/lists/record/{listId}": { rec_id: "ru", rec_data: { label: "Русский" } },
  "POST /api/sl/create/{id}": { time_range: [null, "2026-12-31T23:59:59.000Z"], password: "", acl: ["read", "download"], email: "colleague@example.com" },
  "POST /api/sl/info/{id}": { password: "пароль ссылки" },
  "PATCH /api/sl/{id}": { acl: ["read"], password: null },
  "POST /api/search/rag": { question: "Где снимали интервью с Анной?" },
  "POST /api/wopi/token": { asset_id: A, action: "edit" },
};

interface JsonMedia {
  schema?: unknown;
  example?: unknown;
}

/**
 * Puts `REQUEST_EXAMPLES` on the JSON bodies of the registered operations that have no example of their own, before
 * the document is generated. Called once per app, after every router is mounted.
 */
export function addRequestExamples(registry: OpenAPIRegistry): void {
  for (const def of registry.definitions) {
    if (def.type !== "route") continue;
    const media = (def.route.request?.body?.content as Record<string, JsonMedia> | undefined)?.["application/json"];
    const example = REQUEST_EXAMPLES[`${def.route.method.toUpperCase()} ${def.route.path}`];
    if (media && media.example === undefined && example !== undefined) media.example = example;
  }
}
