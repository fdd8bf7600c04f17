import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createMamClient } from "../../client/mam-client";
import { ROOT_GROUP_ID } from "../../workers/lib/ids";
import { ORIGIN } from "./factories";

/**
 * The generated client (client/, from docs/openapi.json) drives the product as an API client would: sign in, make a
 * folder, upload a small file, list the folder, search. A change to the API that breaks the committed client's types
 * fails typecheck; one that breaks its calls at run time fails here.
 */
const fetchWorker = (request: Request) => exports.default.fetch(request);

describe("the typed client generated from the OpenAPI document", () => {
  it("signs in, lists a folder, uploads a small file and finds it by search", async () => {
    const anonymous = createMamClient({ baseUrl: ORIGIN, fetch: fetchWorker });
    const login = await anonymous.POST("/api/auth/login", { body: { user: env.ADMIN_LOGIN, passwd: env.ADMIN_PASSWORD } });
    expect(login.response.status, JSON.stringify(login.error)).toBe(200);
    const bearer = login.data?.bearer;
    expect(bearer).toEqual(expect.any(String));
    expect(login.response.headers.get("x-api-version")).toBe("1.0");

    const api = createMamClient({ baseUrl: ORIGIN, fetch: fetchWorker, token: bearer });
    const whoami = await api.GET("/api/auth/whoami");
    expect(whoami.data?.is_admin).toBe(true);

    const folder = await api.POST("/api/group/create", { body: { parent: ROOT_GROUP_ID, group_name: "Клиент API" } });
    expect(folder.response.status, JSON.stringify(folder.error)).toBeLessThan(300);
    const groupId = folder.data!.group_id;

    const upload = await api.POST("/api/asset/upload", {
      params: { query: { in_group: groupId, name: "заметка-клиента.txt" } },
      body: new Blob(["Привет из сгенерированного клиента"]),
      headers: { "content-type": "text/plain" },
    });
    expect(upload.response.status, JSON.stringify(upload.error)).toBe(201);
    const assetId = upload.data!.asset_id;

    const members = await api.GET("/api/group/members/{id}", { params: { path: { id: groupId }, query: { type: "asset", take: 50 } } });
    expect(members.response.status, JSON.stringify(members.error)).toBe(200);
    expect(JSON.stringify(members.data)).toContain(assetId);

    const found = await api.GET("/api/search/query/{x}", { params: { path: { x: "заметка-клиента" } } });
    expect(found.response.status, JSON.stringify(found.error)).toBe(200);
    expect(found.data?.hits.map((hit) => hit.id)).toContain(assetId);
  });

  it("answers a refused call through the client's error branch in the product's error shape", async () => {
    const api = createMamClient({ baseUrl: ORIGIN, fetch: fetchWorker, token: "not-a-token" });
    const { data, error, response } = await api.GET("/api/auth/whoami");
    expect(data).toBeUndefined();
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ statusCode: 401, message: expect.any(String), error: expect.any(String) });
  });
});
