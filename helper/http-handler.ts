import { z } from "zod";
import { decideCors } from "./cors.ts";
import type { DiskHelper } from "./disk-helper.ts";
import { errorBody, HelperError } from "./helper-error.ts";
import { MountBodySchema, TokenBodySchema } from "./schemas.ts";

/** Bodies are tiny JSON; anything larger is refused before parsing. */
const MAX_BODY_BYTES = 64 * 1024;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers } });
}

async function parseBody<T>(request: Request, schema: z.ZodType<T>): Promise<T> {
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json"))
    throw new HelperError(415, "Тело запроса должно быть JSON (content-type: application/json)");
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) throw new HelperError(413, "Слишком большое тело запроса");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new HelperError(400, "Тело запроса не является JSON");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join(".");
    throw new HelperError(400, field ? `Поле «${field}»: ${issue.message}` : issue.message);
  }
  return parsed.data;
}

/**
 * The helper's HTTP interface as a fetch handler (server.ts adapts it to node:http; the contract suite calls it
 * directly): CORS and Private Network Access first (cors.ts), then SPEC §7's three calls. Every refusal is JSON in the
 * product's error model.
 * @example const handle = createHelperHandler(helper, { origin: "https://mam.example.com", port: 18981 });
 */
export function createHelperHandler(helper: DiskHelper, config: { origin: string; port: number }) {
  return async function handle(request: Request): Promise<Response> {
    const cors = decideCors(
      {
        method: request.method,
        host: request.headers.get("host") ?? new URL(request.url).host,
        origin: request.headers.get("origin"),
        requestHeaders: request.headers.get("access-control-request-headers"),
        requestPrivateNetwork: request.headers.get("access-control-request-private-network") === "true",
      },
      config.origin,
      config.port,
    );
    if (cors.kind === "refuse") return json(cors.status, errorBody(cors.status, cors.message));
    if (cors.kind === "preflight") return new Response(null, { status: 204, headers: cors.headers });
    const route = `${request.method} ${new URL(request.url).pathname}`;
    try {
      switch (route) {
        case "GET /status":
          return json(200, helper.status(), cors.headers);
        case "POST /token": {
          const { token } = await parseBody(request, TokenBodySchema);
          return json(200, await helper.setToken(token), cors.headers);
        }
        case "POST /mount": {
          const { group_id, name } = await parseBody(request, MountBodySchema);
          return json(201, await helper.mount(group_id, name), cors.headers);
        }
        default: {
          const known = ["/status", "/token", "/mount"].includes(new URL(request.url).pathname);
          return known
            ? json(405, errorBody(405, `Метод ${request.method} не поддерживается`), cors.headers)
            : json(404, errorBody(404, "Нет такого вызова: помощник отвечает на GET /status, POST /token, POST /mount"), cors.headers);
        }
      }
    } catch (error) {
      if (error instanceof HelperError) return json(error.status, errorBody(error.status, error.message), cors.headers);
      // Never the internals: the user sees a generic message, the console the cause.
      console.error("helper:", error);
      return json(500, errorBody(500, "Ошибка помощника"), cors.headers);
    }
  };
}
