import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { newId } from "../../workers/lib/ids";
import { bytesOf, createGroup, json, rows, sha256Of, type Uploaded } from "./asset-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { externalStorage } from "./library-factories";

/** POST /api/asset/upload-batch: many small files in one multipart request, all committed together or none. */

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The multipart/form-data body of `files` as bytes (so the request carries its Content-Length) and its type. */
async function formOf(files: readonly File[], field = "file"): Promise<{ body: ArrayBuffer; type: string }> {
  const form = new FormData();
  for (const file of files) form.append(field, file);
  const request = new Request("https://form.test/", { method: "POST", body: form });
  return { body: await request.arrayBuffer(), type: request.headers.get("content-type")! };
}

async function uploadBatch(bearer: string, query: Record<string, string>, files: readonly File[], field?: string) {
  const { body, type } = await formOf(files, field);
  return call(`/api/asset/upload-batch?${new URLSearchParams(query)}`, { method: "POST", bearer, body, headers: { "content-type": type } });
}

function filesOf(count: number, size = 10_000): File[] {
  return Array.from({ length: count }, (_, i) => new File([bytesOf(size + i, i)], `заметка-${String(i).padStart(2, "0")}.txt`, { type: "text/plain" }));
}

async function assetNamesIn(group: string): Promise<string[]> {
  const members = await rows<{ name: string }>(
    "select a.name from group_members m join assets a on a.id = m.el_id where m.group_id = ? and m.el_type = 'asset' order by a.name",
    group,
  );
  return members.map((m) => m.name);
}

describe("POST /api/asset/upload-batch", () => {
  it("stores every file as a new asset with version 1 holding exactly its bytes, answered in the order sent", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const files = [...filesOf(19), new File([], "пустой.bin")];
    const done = await json<Uploaded[]>(await uploadBatch(user.bearer, { in_group: group }, files), 201);

    expect(done.map((d) => d.file_name)).toEqual(files.map((f) => f.name));
    expect(done.at(-1)).toMatchObject({ file_size: 0, mime_type: "application/octet-stream", asset_version: 1 });
    for (const [i, d] of done.slice(0, 19).entries()) {
      const bytes = bytesOf(10_000 + i, i);
      expect(d).toMatchObject({ asset_version: 1, mime_type: "text/plain", file_size: bytes.byteLength, checksum_alg: "sha256" });
      expect(d.checksum).toBe(await sha256Of(bytes));
      expect(new Uint8Array(await (await env.MEDIA.get(d.storage_path))!.arrayBuffer())).toEqual(bytes);
    }
    expect(await assetNamesIn(group)).toEqual(files.map((f) => f.name).sort());
    const sizes = await rows<{ el_size: number }>("select el_size from group_members where group_id = ? and el_id = ?", group, done[3].asset_id);
    expect(sizes).toEqual([{ el_size: 10_003 }]);
    const listed = await json<{ name: string }[]>(await call(`/api/group/members/${group}?type=asset&take=50`, { bearer: user.bearer }));
    expect(listed).toHaveLength(20);

    // Automations see each file as created and uploaded, exactly as for one-by-one uploads.
    const events = await rows<{ type: string; data: string }>("select type, data from global_events where entity_id = ? order by rowid", done[0].asset_id);
    expect(events.map((e) => e.type)).toEqual(["asset.created", "asset.uploaded"]);
    expect(JSON.parse(events[1].data)).toMatchObject({ group_id: group, variant_id: done[0].asset_variant_id, size: 10_000 });
  });

  it("takes one file, and parts named file[] too", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    await json(await uploadBatch(user.bearer, { in_group: group }, filesOf(1)), 201);
    await expectError(await uploadBatch(user.bearer, { in_group: group }, filesOf(2), "files"), 400);
    expect(await assetNamesIn(group)).toEqual(["заметка-00.txt"]);
  });

  it("refuses a user without create on the folder, and writes nothing", async () => {
    const owner = await signIn();
    const stranger = await signIn();
    const group = await createGroup(owner.id);
    await expectError(await uploadBatch(stranger.bearer, { in_group: group }, filesOf(3)), 404);
    const admin = await signInAdmin();
    const granted = await call("/api/user/acl", { method: "POST", bearer: admin.bearer, json: { subj: stranger.id, obj: group, acl: ["read"] } });
    expect(granted.status).toBe(201);
    await expectError(await uploadBatch(stranger.bearer, { in_group: group }, filesOf(3)), 403);
    expect(await assetNamesIn(group)).toEqual([]);
    expect(await rows("select id from variants where user_id = ?", stranger.id)).toEqual([]);
    await expectError(await call(`/api/asset/upload-batch?in_group=${group}`, { method: "POST", body: "x" }), 401);
  });

  it("names what is wrong: a bad file name, no files, too many, not a form (415), an unknown folder; nothing is written", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const badName = await expectError(await uploadBatch(user.bearer, { in_group: group }, [...filesOf(2), new File(["x"], " пробел.txt")]), 400);
    expect(badName.message).toContain("Файл 3 « пробел.txt»");
    expect((await expectError(await uploadBatch(user.bearer, { in_group: group }, []), 400)).message).toContain("«file»");
    expect((await expectError(await uploadBatch(user.bearer, { in_group: group }, filesOf(51, 10)), 400)).message).toContain("50");
    const notForm = await call(`/api/asset/upload-batch?in_group=${group}`, {
      method: "POST",
      bearer: user.bearer,
      body: "просто текст",
      headers: { "content-type": "text/plain" },
    });
    await expectError(notForm, 415);
    const broken = await call(`/api/asset/upload-batch?in_group=${group}`, {
      method: "POST",
      bearer: user.bearer,
      body: "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nоборвано",
      headers: { "content-type": "multipart/form-data; boundary=b" },
    });
    await expectError(broken, 400);
    await expectError(await uploadBatch(user.bearer, { in_group: newId() }, filesOf(1)), 404);
    expect((await expectError(await uploadBatch(user.bearer, { in_group: "папка" }, filesOf(1)), 400)).message).toContain("«in_group»");
    expect(await assetNamesIn(group)).toEqual([]);
    expect(await rows("select id from variants where user_id = ?", user.id)).toEqual([]);
  });

  it("answers 411 for a body of unknown length and 413 above the limit, before reading it", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const { body, type } = await formOf(filesOf(1));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(body));
        controller.close();
      },
    });
    const unknown = await call(`/api/asset/upload-batch?in_group=${group}`, { method: "POST", bearer: user.bearer, body: stream, headers: { "content-type": type } });
    await expectError(unknown, 411);
    const { body: big, type: bigType } = await formOf([new File([new Uint8Array(16 * 1024 * 1024)], "большой.bin")]);
    const tooLarge = await call(`/api/asset/upload-batch?in_group=${group}`, { method: "POST", bearer: user.bearer, body: big, headers: { "content-type": bigType } });
    expect((await expectError(tooLarge, 413)).message).toContain("16 МиБ");
    expect(await assetNamesIn(group)).toEqual([]);
  });

  it("commits nothing and deletes what was stored when storage fails partway", async () => {
    const { id: storageId, fake } = await externalStorage();
    const user = await signIn();
    const group = await createGroup(user.id);
    await rows("update groups set default_storage = ? where id = ?", storageId, group);
    let puts = 0;
    vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
      const method = init?.method ?? (input instanceof Request ? input.method : "GET");
      if (method === "PUT" && ++puts > 4) return new Response("<Error><Code>InternalError</Code></Error>", { status: 500 });
      return fake.fetch(input, init);
    });
    await expectError(await uploadBatch(user.bearer, { in_group: group }, filesOf(12)), 503);
    expect(puts).toBeGreaterThan(4);
    expect(await assetNamesIn(group)).toEqual([]);
    expect(await rows("select id from variants where user_id = ?", user.id)).toEqual([]);
    expect([...fake.objects.keys()]).toEqual([]);
  });
});
