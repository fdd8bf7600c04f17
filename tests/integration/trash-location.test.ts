import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ROOT_GROUP_ID } from "../../workers/lib/ids";
import { call, signIn } from "./factories";
import { createAsset, createGroup, json } from "./asset-fixtures";

// The trash lists where each item was (the folder a restore puts it back into), never a folder the caller cannot read.

interface Located {
  location: { group_id: string; group_name: string } | null;
}

describe("GET /api/asset/trash and /api/group/trash: the original location", () => {
  it("names the folder a trashed file is listed in", async () => {
    const user = await signIn();
    const folder = await createGroup(user.id, "Съёмки 2026");
    const id = await createAsset(user.bearer, { in_group: folder });
    await json(await call(`/api/asset/${id}`, { method: "DELETE", bearer: user.bearer }), 204);
    const trash = await json<({ asset_id: string } & Located)[]>(await call("/api/asset/trash", { bearer: user.bearer }));
    expect(trash.find((t) => t.asset_id === id)?.location).toEqual({ group_id: folder, group_name: "Съёмки 2026" });
  });

  it("names the parent of a trashed folder, and «Доступные Файлы» for a top-level one", async () => {
    const user = await signIn();
    const parent = await createGroup(user.id, "Архив");
    const created = await json<{ group_id: string }>(
      await call("/api/group/create", { method: "POST", bearer: user.bearer, json: { parent, group_name: "Черновики" } }),
    );
    await json(await call(`/api/group/delete/${created.group_id}`, { method: "DELETE", bearer: user.bearer }), 204);
    const top = await createGroup(user.id, "Старое");
    await json(await call(`/api/group/delete/${top}`, { method: "DELETE", bearer: user.bearer }), 204);
    const trash = await json<({ group_id: string } & Located)[]>(await call("/api/group/trash", { bearer: user.bearer }));
    expect(trash.find((t) => t.group_id === created.group_id)?.location).toEqual({ group_id: parent, group_name: "Архив" });
    expect(trash.find((t) => t.group_id === top)?.location).toEqual({ group_id: ROOT_GROUP_ID, group_name: "Доступные Файлы" });
  });

  it("answers null rather than the name of a folder the caller may not read", async () => {
    const user = await signIn();
    const other = await signIn();
    const secret = await createGroup(other.id, "Чужая тайная папка");
    const id = await createAsset(user.bearer, {});
    // The caller's file is listed in a folder of someone else (e.g. put there by an administrator).
    await env.DB.prepare("insert into group_members (group_id, el_id, el_type, ctime, sort_name) values (?, ?, 'asset', ?, 'x')")
      .bind(secret, id, Date.now())
      .run();
    await json(await call(`/api/asset/${id}`, { method: "DELETE", bearer: user.bearer }), 204);
    const res = await call("/api/asset/trash", { bearer: user.bearer });
    const text = await res.text();
    expect(text).not.toContain("Чужая тайная папка");
    const trash = JSON.parse(text) as ({ asset_id: string } & Located)[];
    expect(trash.find((t) => t.asset_id === id)?.location).toBeNull();
  });
});
