import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import { SOCKET_TOKEN_EXPIRED, type QueueEvent, type UploadQueueDO } from "../../durable-objects/upload-queue.do";
import { QUEUE_SOCKET_PROTOCOL } from "../../workers/services/uploads/upload-queue.service";
import { call, expectError, signIn } from "./factories";

/** GET /api/uploads/ws: live updates of the queue to every tab of its user, over hibernatable WebSockets. */

type User = Awaited<ReturnType<typeof signIn>>;
const file = (id: string) => ({ id, fileName: `${id}.mov`, size: 10, groupId: null });

interface Tab {
  ws: WebSocket;
  events: QueueEvent[];
  texts: string[];
  closed: { code: number; reason: string } | null;
}
const open: WebSocket[] = [];

afterEach(() => {
  for (const ws of open.splice(0)) {
    try {
      ws.close(1000, "done");
    } catch {
      // already closed
    }
  }
});

/** Opens the queue socket like a browser tab would; fails the test unless it is accepted. */
async function connect(u: User, how: "query" | "protocol" = "query"): Promise<Tab> {
  const res =
    how === "query"
      ? await call(`/api/uploads/ws?token=${encodeURIComponent(u.bearer)}`, { headers: { upgrade: "websocket" } })
      : await call("/api/uploads/ws", { headers: { upgrade: "websocket", "sec-websocket-protocol": `${QUEUE_SOCKET_PROTOCOL}, ${u.bearer}` } });
  expect(res.status, res.status === 101 ? "" : await res.text()).toBe(101);
  const ws = res.webSocket!;
  const tab: Tab = { ws, events: [], texts: [], closed: null };
  ws.addEventListener("message", (e) => {
    const text = String(e.data);
    tab.texts.push(text);
    if (text.startsWith("{")) tab.events.push(JSON.parse(text) as QueueEvent);
  });
  ws.addEventListener("close", (e) => {
    tab.closed = { code: e.code, reason: e.reason };
  });
  ws.accept();
  open.push(ws);
  await vi.waitFor(() => expect(tab.events[0]?.type).toBe("snapshot"));
  return tab;
}

const send = (u: User, path: string, method: string, json?: unknown) => call(path, { method, bearer: u.bearer, json });

describe("GET /api/uploads/ws", () => {
  it("sends a snapshot first, then every change to every tab of the user", async () => {
    const u = await signIn();
    await send(u, "/api/uploads", "POST", { items: [file("a")] });
    const one = await connect(u);
    const two = await connect(u, "protocol");
    expect(one.events[0]).toMatchObject({ type: "snapshot", items: [{ id: "a", status: "waiting" }] });
    expect(two.events[0]).toEqual(one.events[0]);

    expect((await send(u, "/api/uploads/a", "PATCH", { status: "uploading", progress: 12 })).status).toBe(200);
    expect((await send(u, "/api/uploads", "POST", { items: [file("b")] })).status).toBe(200);
    expect((await send(u, "/api/uploads/b", "DELETE")).status).toBe(204);
    for (const tab of [one, two]) {
      await vi.waitFor(() => expect(tab.events).toHaveLength(4));
      expect(tab.events.slice(1)).toEqual([
        { type: "item", item: expect.objectContaining({ id: "a", status: "uploading", progress: 12 }) },
        { type: "item", item: expect.objectContaining({ id: "b", status: "waiting" }) },
        { type: "removed", id: "b" },
      ]);
    }

    await send(u, "/api/uploads/a/cancel", "POST");
    const cancelled = { type: "item", item: expect.objectContaining({ id: "a", cancelled: true }) };
    await vi.waitFor(() => expect(one.events.at(-1)).toEqual(cancelled));
    await vi.waitFor(() => expect(two.events.at(-1)).toEqual(cancelled));
  });

  it("announces a change that lands in the same millisecond as the previous one", async () => {
    const u = await signIn();
    const tab = await connect(u);
    const at = Date.now();
    await runInDurableObject(env.UPLOADS.get(env.UPLOADS.idFromName(u.id)), async (instance: UploadQueueDO) => {
      await instance.add([file("a")], at);
      await instance.update("a", { status: "busy" }, at);
    });
    await vi.waitFor(() => expect(tab.events).toHaveLength(3));
    expect(tab.events[2]).toEqual({ type: "item", item: expect.objectContaining({ id: "a", status: "busy", mtime: at }) });
  });

  it("sends a fresh snapshot after a clear, and nothing for a keep-alive", async () => {
    const u = await signIn();
    await send(u, "/api/uploads", "POST", { items: [file("a"), file("b")] });
    for (const status of ["uploading", "uploaded", "saving", "completed"]) await send(u, "/api/uploads/a", "PATCH", { status });
    const tab = await connect(u);
    expect((await send(u, "/api/uploads/keepalive", "POST", { ids: ["a", "b"] })).status).toBe(204);
    expect((await send(u, "/api/uploads/clear", "POST")).status).toBe(200);
    await vi.waitFor(() => expect(tab.events).toHaveLength(2));
    expect(tab.events[1]).toEqual({ type: "snapshot", items: [expect.objectContaining({ id: "b" })] });
  });

  it("never shows one user's changes to another user's tabs", async () => {
    const me = await signIn();
    const other = await signIn();
    const mine = await connect(me);
    const theirs = await connect(other);
    await send(me, "/api/uploads", "POST", { items: [file("secret")] });
    await vi.waitFor(() => expect(mine.events).toHaveLength(2));
    await send(other, "/api/uploads", "POST", { items: [file("x")] });
    await vi.waitFor(() => expect(theirs.events).toHaveLength(2));
    expect(theirs.events).toEqual([
      { type: "snapshot", items: [] },
      { type: "item", item: expect.objectContaining({ id: "x" }) },
    ]);
    expect(mine.events).toHaveLength(2);
  });

  it("answers the chosen subprotocol when the token comes as one", async () => {
    const u = await signIn();
    const res = await call("/api/uploads/ws", { headers: { upgrade: "websocket", "sec-websocket-protocol": `${QUEUE_SOCKET_PROTOCOL}, ${u.bearer}` } });
    expect(res.status).toBe(101);
    expect(res.headers.get("sec-websocket-protocol")).toBe(QUEUE_SOCKET_PROTOCOL);
    res.webSocket!.accept();
    open.push(res.webSocket!);
  });

  it("answers ping with pong, a snapshot request with a snapshot, and takes keep-alives", async () => {
    const u = await signIn();
    await send(u, "/api/uploads", "POST", { items: [file("a")] });
    await send(u, "/api/uploads/a", "PATCH", { status: "uploading" });
    const stub = env.UPLOADS.get(env.UPLOADS.idFromName(u.id));
    await runInDurableObject(stub, (_i: UploadQueueDO, state) => {
      state.storage.sql.exec("UPDATE queue_items SET last_seen = 1");
    });
    const tab = await connect(u);
    tab.ws.send("ping");
    await vi.waitFor(() => expect(tab.texts).toContain("pong"));
    tab.ws.send(JSON.stringify({ type: "snapshot" }));
    await vi.waitFor(() => expect(tab.events.filter((e) => e.type === "snapshot")).toHaveLength(2));
    tab.ws.send(JSON.stringify({ type: "keepalive", ids: ["a"] }));
    tab.ws.send("not json");
    await vi.waitFor(async () => expect((await stub.get("a"))?.lastSeen).toBeGreaterThan(1));
  });

  it("closes a socket whose token has expired at the next event (code 4401)", async () => {
    const u = await signIn();
    const tab = await connect(u);
    await runInDurableObject(env.UPLOADS.get(env.UPLOADS.idFromName(u.id)), (_i: UploadQueueDO, state) => {
      for (const ws of state.getWebSockets()) ws.serializeAttachment({ expires: 1 });
    });
    await send(u, "/api/uploads", "POST", { items: [file("a")] });
    await vi.waitFor(() => expect(tab.closed).toEqual({ code: SOCKET_TOKEN_EXPIRED, reason: "token expired" }));
    expect(tab.events).toHaveLength(1);
  });

  describe("refuses", () => {
    it("an upgrade without a token (401)", async () => {
      const res = await call("/api/uploads/ws", { headers: { upgrade: "websocket" } });
      expect(res.webSocket).toBeNull();
      expect((await expectError(res, 401)).message).toBe(ru.errors.unauthenticated);
    });

    it.each([
      ["a malformed token", "not-a-token"],
      ["a forged token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"],
    ])("an upgrade with %s (401)", async (_what, token) => {
      const res = await call(`/api/uploads/ws?token=${token}`, { headers: { upgrade: "websocket" } });
      expect(res.webSocket).toBeNull();
      expect((await expectError(res, 401)).message).toBe(ru.errors.invalidToken);
    });

    it("a token of a signed-out session (401)", async () => {
      const u = await signIn();
      expect((await call("/api/auth/logout", { bearer: u.bearer, refresh: u.refresh })).status).toBe(204);
      await expectError(await call(`/api/uploads/ws?token=${u.bearer}`, { headers: { upgrade: "websocket" } }), 401);
    });

    it("a token offered as a subprotocol without the queue's subprotocol (401)", async () => {
      const u = await signIn();
      const res = await call("/api/uploads/ws", { headers: { upgrade: "websocket", "sec-websocket-protocol": u.bearer } });
      expect((await expectError(res, 401)).message).toBe(ru.queue.socketProtocol(QUEUE_SOCKET_PROTOCOL));
    });

    it("a plain request that is not an upgrade (400)", async () => {
      const u = await signIn();
      expect((await expectError(await call(`/api/uploads/ws?token=${u.bearer}`), 400)).message).toBe(ru.queue.notWebSocket);
    });
  });
});
