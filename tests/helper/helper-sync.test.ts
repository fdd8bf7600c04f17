import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevServer } from "../../scripts/dev-server.mjs";
import { startHelper } from "../../scripts/helper-process.mjs";
import { namesIn, ProductApi, sha256, sha256OfPath, until } from "./helper-api";

/**
 * The local disk helper against the real product: `wrangler dev` on a fresh state directory (port 8822) and the
 * helper as its own process on temporary folders (ports 18990–18993). Proves the two-way sync file by file, the
 * conflict rule, a crash mid-upload, and the HTTP guards (foreign Origin, PNA preflight, token, rights, second mount).
 */

const SERVER_PORT = Number(process.env.HELPER_TEST_SERVER_PORT ?? 8822);
const HELPER_PORT = 18990;
const OTHER_HELPER_PORT = 18991;

type Helper = Awaited<ReturnType<typeof startHelper>>;
type Server = Awaited<ReturnType<typeof startDevServer>>;

let server: Server;
let persistDir: string;
let root: string;
let helper: Helper;
let folder: string;
let groupId: string;
const admin = { api: null as unknown as ProductApi };

async function helperCall(path: string, init: { method?: string; json?: unknown; origin?: string; port?: number } = {}) {
  const headers: Record<string, string> = { origin: init.origin ?? server.url };
  if (init.json !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`http://127.0.0.1:${init.port ?? HELPER_PORT}${path}`, {
    method: init.method ?? "GET",
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const mountStatus = async () => {
  const status = await helperCall("/status");
  return (status.body.mounts as { group_id: string; state: string; pending_uploads: number }[]).find((m) => m.group_id === groupId);
};

/** The server's files of the group, waited for until `check` holds. */
const serverFilesWhen = (what: string, check: (files: Map<string, { asset_id: string; sha256: string }[]>) => boolean, timeoutMs?: number) =>
  until(
    what,
    async () => {
      const files = await admin.api.files(groupId);
      return check(files) ? files : null;
    },
    timeoutMs,
  );

beforeAll(async () => {
  persistDir = await mkdtemp(join(tmpdir(), "mam-helper-server-"));
  root = await mkdtemp(join(tmpdir(), "mam-helper-root-"));
  server = await startDevServer({ port: SERVER_PORT, persistDir });
  admin.api = new ProductApi(server.url);
  await admin.api.login(server.adminLogin, server.adminPassword);
  groupId = await admin.api.createGroup("Съёмки для диска");
  helper = await startHelper({ root, port: HELPER_PORT, origin: server.url });
  folder = join(root, "Съёмки");
});

afterAll(async () => {
  await helper?.stop();
  await server?.stop();
  await rm(root, { recursive: true, force: true });
  await rm(persistDir, { recursive: true, force: true });
});

describe("the helper's HTTP guards", () => {
  it("refuses a page of another origin, and answers the app's Private Network Access preflight", async () => {
    const foreign = await helperCall("/status", { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ statusCode: 403, error: "Forbidden" });
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();

    const preflight = await fetch(`http://127.0.0.1:${HELPER_PORT}/mount`, {
      method: "OPTIONS",
      headers: {
        origin: server.url,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
        "access-control-request-private-network": "true",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(server.url);
    expect(preflight.headers.get("access-control-allow-private-network")).toBe("true");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");

    const foreignPreflight = await fetch(`http://127.0.0.1:${HELPER_PORT}/mount`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST", "access-control-request-private-network": "true" },
    });
    expect(foreignPreflight.status).toBe(403);
    expect(foreignPreflight.headers.get("access-control-allow-private-network")).toBeNull();
  });

  it("refuses a mount before any token, and a token the server does not accept", async () => {
    const early = await helperCall("/mount", { method: "POST", json: { group_id: groupId, name: "Съёмки" } });
    expect(early.status).toBe(401);
    const bad = await helperCall("/token", { method: "POST", json: { token: "not-a-token" } });
    expect(bad.status).toBe(401);
    expect(bad.body.message).toMatch(/токен/);
  });

  it("takes the token, mounts the group, and refuses a second mount of it", async () => {
    const token = await helperCall("/token", { method: "POST", json: { token: admin.api.bearer } });
    expect(token.status).toBe(200);
    expect(token.body.user).toMatchObject({ name: expect.any(String) });
    const mount = await helperCall("/mount", { method: "POST", json: { group_id: groupId, name: "Съёмки" } });
    expect(mount.status, JSON.stringify(mount.body)).toBe(201);
    expect(mount.body).toMatchObject({ group_id: groupId, group_name: "Съёмки для диска", path: folder });
    const again = await helperCall("/mount", { method: "POST", json: { group_id: groupId, name: "Другое имя" } });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/уже подключена/);
    const status = await helperCall("/status");
    expect(status.body).toMatchObject({ version: expect.any(String), user: { name: expect.any(String) } });
    expect((status.body.mounts as unknown[]).length).toBe(1);
  });

  it("refuses a group the token cannot read with a clear message", async () => {
    await admin.api.call("/api/user", { method: "POST", json: { user_name: "Без прав", user_login: "noright", user_passwd: "no-rights-password-1", enabled: true } });
    const other = new ProductApi(server.url);
    await other.login("noright", "no-rights-password-1");
    const otherRoot = await mkdtemp(join(tmpdir(), "mam-helper-other-"));
    const otherHelper = await startHelper({ root: otherRoot, port: OTHER_HELPER_PORT, origin: server.url });
    try {
      expect((await helperCall("/token", { method: "POST", json: { token: other.bearer }, port: OTHER_HELPER_PORT })).status).toBe(200);
      const refused = await helperCall("/mount", { method: "POST", json: { group_id: groupId, name: "Чужое" }, port: OTHER_HELPER_PORT });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe("Нет доступа к этой папке: у вас нет права на чтение или папка удалена");
      expect(await namesIn(otherRoot)).toEqual([]);
    } finally {
      await otherHelper.stop();
      await rm(otherRoot, { recursive: true, force: true });
    }
  });
});

describe("two-way sync", () => {
  const notes = "Заметки.txt";

  it("uploads a file created on disk", async () => {
    await writeFile(join(folder, notes), "первая редакция");
    const files = await serverFilesWhen("the new file on the server", (f) => f.has(notes));
    expect(files.get(notes)![0].sha256).toBe(sha256("первая редакция"));
  });

  it("uploads a file changed on disk as a new version of the same file", async () => {
    const before = (await admin.api.files(groupId)).get(notes)![0];
    await writeFile(join(folder, notes), "вторая редакция, длиннее");
    const files = await serverFilesWhen("the new version", (f) => f.get(notes)?.[0].sha256 === sha256("вторая редакция, длиннее"));
    expect(files.get(notes)).toHaveLength(1);
    expect(files.get(notes)![0].asset_id).toBe(before.asset_id);
    const versions = await admin.api.call<unknown[]>(`/api/asset/versions/${before.asset_id}`);
    expect(versions.length).toBe(2);
  });

  it("downloads a file created on the server, and a new version of it", async () => {
    const bytes = randomBytes(50_000);
    const id = await admin.api.createFile(groupId, "План съёмки.bin", bytes);
    await until("the server's file on disk", async () => (await sha256OfPath(join(folder, "План съёмки.bin"))) === sha256(bytes));
    const next = randomBytes(70_000);
    await admin.api.putVersion(id, groupId, next);
    await until("the server's new version on disk", async () => (await sha256OfPath(join(folder, "План съёмки.bin"))) === sha256(next));
  });

  it("moves the server's file to the trash when it is deleted on disk", async () => {
    const id = (await admin.api.files(groupId)).get(notes)![0].asset_id;
    await unlink(join(folder, notes));
    await serverFilesWhen("the file gone from the group", (f) => !f.has(notes));
    const trash = await admin.api.call<{ asset_id: string }[] | { items: { asset_id: string }[] }>("/api/asset/trash");
    const items = Array.isArray(trash) ? trash : trash.items;
    expect(items.map((t) => t.asset_id)).toContain(id);
  });

  it("moves the local file to .trash (never deletes it) when the server's file is deleted", async () => {
    const id = (await admin.api.files(groupId)).get("План съёмки.bin")![0].asset_id;
    const held = await readFile(join(folder, "План съёмки.bin"));
    await admin.api.call(`/api/asset/${id}`, { method: "DELETE" }, 204);
    await until("the local file gone from the folder", async () => !(await namesIn(folder)).includes("План съёмки.bin"));
    const trashed = await readdir(join(root, ".trash", "Съёмки"));
    const copy = trashed.find((n) => n.endsWith("План съёмки.bin"));
    expect(copy).toBeDefined();
    expect(sha256(await readFile(join(root, ".trash", "Съёмки", copy!)))).toBe(sha256(held));
  });

  it("keeps both copies when a file changed on both sides since the last sync", async () => {
    const name = "Сценарий.txt";
    await writeFile(join(folder, name), "общая основа");
    const id = (await serverFilesWhen("the shared file", (f) => f.has(name))).get(name)![0].asset_id;
    await until("the helper idle", async () => (await mountStatus())?.state === "idle");
    // Both sides change while the helper is down: neither change has been synced when it starts again.
    await helper.stop();
    await writeFile(join(folder, name), "правка на диске");
    await admin.api.putVersion(id, groupId, Buffer.from("правка на сервере"));
    helper = await startHelper({ root, port: HELPER_PORT, origin: server.url });
    const day = new Date().toISOString().slice(0, 10);
    const copyName = `Сценарий (конфликт ${day}).txt`;
    const files = await serverFilesWhen("the conflict copy on the server", (f) => f.has(copyName));
    expect(files.get(copyName)![0].sha256).toBe(sha256("правка на диске"));
    expect(files.get(name)![0].sha256).toBe(sha256("правка на сервере"));
    expect(await readFile(join(folder, name), "utf8")).toBe("правка на сервере");
    expect(await readFile(join(folder, copyName), "utf8")).toBe("правка на диске");
  });

  it("finishes an upload after the helper is killed mid-transfer, without loss", async () => {
    const name = "Исходник.bin";
    const bytes = randomBytes(6 * 16 * 1024 * 1024);
    await writeFile(join(folder, name), bytes);
    const stateFile = join(root, ".mam-helper", `mount-${groupId}.json`);
    // Kill as a crash would once at least one part is stored and the upload is not finished.
    await until(
      "a stored part",
      async () => {
        const state = JSON.parse(await readFile(stateFile, "utf8")) as { pending: { path: string; parts: unknown[] }[] };
        return state.pending.some((p) => p.path === name && p.parts.length > 0);
      },
      60_000,
    );
    await helper.kill();
    const left = JSON.parse(await readFile(stateFile, "utf8")) as { pending: { path: string; parts: unknown[] }[] };
    const storedBefore = left.pending.find((p) => p.path === name)?.parts.length ?? 0;
    expect(storedBefore).toBeGreaterThan(0);
    expect(storedBefore).toBeLessThan(6);
    helper = await startHelper({ root, port: HELPER_PORT, origin: server.url });
    const files = await serverFilesWhen("the large file committed", (f) => f.has(name), 120_000);
    expect(files.get(name)).toHaveLength(1);
    expect(files.get(name)![0].sha256).toBe(sha256(bytes));
    expect(helper.output()).toMatch(/продолжаю 1 незавершённых загрузок/);
  });
});
