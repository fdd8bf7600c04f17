import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./schema";

export type { components, operations, paths } from "./schema";

/** The API description version this client was generated for (SPEC §9): sent as `x-api-version` on every call. */
export const CLIENT_API_VERSION = "1.0";

export interface MamClientOptions {
  /** The product's origin, e.g. `https://mam.example.com` (the document's paths start with /api). */
  baseUrl: string;
  /** The bearer token (`bearer` of `POST /api/auth/login`), or a function answering the current one. */
  token?: string | (() => string | undefined);
  /** Another fetch, e.g. a test harness's or one with a cookie jar. */
  fetch?: (request: Request) => Promise<Response>;
}

export type MamClient = Client<paths>;

/** Bodies as fetch takes them: a file's bytes (Blob, ArrayBuffer, stream) and forms as they are, anything else as JSON. */
function serializeBody(body: unknown): BodyInit {
  if (body instanceof Blob || body instanceof ArrayBuffer || body instanceof FormData || body instanceof ReadableStream) {
    return body;
  }
  return JSON.stringify(body);
}

/**
 * A typed client of the API (types generated from docs/openapi.json by `npm run client`): every path, parameter,
 * body and answer is checked by TypeScript. It adds `Authorization: Bearer` and `x-api-version` to each request.
 *
 * @example
 * const api = createMamClient({ baseUrl: "https://mam.example.com" });
 * const { data } = await api.POST("/api/auth/login", { body: { user: "admin", passwd: "…" } });
 * const signedIn = createMamClient({ baseUrl: "https://mam.example.com", token: data?.bearer });
 * const { data: page } = await signedIn.GET("/api/group/members/{id}", { params: { path: { id: folderId }, query: { take: 50 } } });
 */
export function createMamClient(options: MamClientOptions): MamClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: options.fetch, bodySerializer: serializeBody });
  const headers: Middleware = {
    onRequest({ request }) {
      request.headers.set("x-api-version", CLIENT_API_VERSION);
      const token = typeof options.token === "function" ? options.token() : options.token;
      if (token && !request.headers.has("authorization")) request.headers.set("authorization", `Bearer ${token}`);
      return request;
    },
  };
  client.use(headers);
  return client;
}
