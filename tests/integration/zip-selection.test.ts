import { env } from "cloudflare:workers";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { crc32 } from "node:zlib";
import { newId } from "../../workers/lib/ids";
import { readInChunks } from "../../workers/lib/read-in-chunks";
import { CHUNK_BYTES } from "../../workers/lib/zip-stream";
import { planZip, ZIP_REQUEST_MAX_BYTES, ZIP_REQUEST_MAX_FILES } from "../../workers/services/archive";
import { runTaskNow } from "../../workers/services/tasks/task-runner";
import { actorOf, testContext } from "./catalog-fixtures";
import { call, expectError } from "./factories";
import { admin, createGroup, insertAsset, ordinaryUser, send, throughShards, uniqueName, type Caller } from "./library-factories";
import { getJson, waitForTask } from "./task-fixtures";

async function grant(by: Caller, subj: string, obj: string, acl: string[]) {
  const res = await send("POST", "/api/user/acl", by.bearer, { subj, obj, acl });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

async function zipOf(who: Caller, body: Record<string, unknown>) {
  const res = await call("/api/zip", { method: "POST", bearer: who.bearer, json: body });
  expect(res.status, res.status === 200 ? "" : await res.clone().text()).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/zip");
  return unzipSync(new Uint8Array(await res.arrayBuffer()));
}

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

/** «Съёмка …» › «День 1» of the administrator, «кадр.jpg» in each, and a loose «КАДР.jpg». */
async function shoot() {
  const boss = await admin();
  const topName = uniqueName("Съёмка");
  const top = await createGroup(boss, topName);
  const day = await createGroup(boss, "День 1", top);
  const a = await insertAsset({ ownerId: boss.id, groups: [top], name: "кадр.jpg", mime: "image/jpeg", putBytes: true });
  const b = await insertAsset({ ownerId: boss.id, groups: [day], name: "кадр.jpg", mime: "image/jpeg", putBytes: true });
  const loose = await insertAsset({ ownerId: boss.id, name: "КАДР.jpg", mime: "image/jpeg", putBytes: true });
  return { boss, top, topName, day, a, b, loose };
}

describe("POST /api/zip", () => {
  it("takes folders recursively with their paths and makes names unique; the archive is a valid ZIP", async () => {
    const s = await shoot();
    const files = await zipOf(s.boss, { asset_ids: [s.a.id, s.loose.id], group_ids: [s.top] });
    expect(Object.keys(files).sort()).toEqual(["кадр.jpg", "КАДР (2).jpg", `${s.topName}/кадр.jpg`, `${s.topName}/День 1/кадр.jpg`].sort());
    expect(text(files[`${s.topName}/День 1/кадр.jpg`])).toBe("bytes");
    expect(files[ru.zip.skippedEntry]).toBeUndefined();
  });

  it("streams objects larger than a chunk byte for byte with their CRC-32, and records one download per file", async () => {
    const boss = await admin();
    const name = uniqueName("Рушес");
    const folder = await createGroup(boss, name);
    const sizes = [2 * CHUNK_BYTES + 12_345, 1, CHUNK_BYTES, 0];
    const made: { id: string; path: string; bytes: Uint8Array }[] = [];
    for (const [i, size] of sizes.entries()) {
      const asset = await insertAsset({ ownerId: boss.id, groups: [folder], name: `clip-${i}.mov`, mime: "video/quicktime", size });
      const bytes = Uint8Array.from({ length: size }, (_, n) => (n * 31 + i) & 255);
      await env.MEDIA.put(asset.storageKeys[0], bytes);
      made.push({ id: asset.id, path: `${name}/clip-${i}.mov`, bytes });
    }
    const res = await call("/api/zip", { method: "POST", bearer: boss.bearer, json: { group_ids: [folder] } });
    expect(res.status).toBe(200);
    const zip = new Uint8Array(await res.arrayBuffer());
    const files = unzipSync(zip);
    for (const file of made) {
      expect(files[file.path]?.length, file.path).toBe(file.bytes.length);
      expect(
        files[file.path].every((b, n) => b === file.bytes[n]),
        file.path,
      ).toBe(true);
    }
    // The central directory's CRC of each entry is the one of its bytes (every unzip tool checks it).
    const v = new DataView(zip.buffer);
    const directory = new Map<string, number>();
    for (let at = 0; at + 46 <= zip.length; at++) {
      if (v.getUint32(at, true) !== 0x02014b50) continue;
      directory.set(new TextDecoder().decode(zip.subarray(at + 46, at + 46 + v.getUint16(at + 28, true))), v.getUint32(at + 16, true));
    }
    for (const file of made) expect(directory.get(file.path), file.path).toBe(crc32(file.bytes));
    const audited = await env.DB.prepare(
      "SELECT object_id FROM audit_log WHERE action = 'asset.download' AND json_extract(details, '$.channel') = 'zip' AND actor_id = ? AND object_id IN (?, ?, ?, ?)",
    )
      .bind(boss.id, ...made.map((f) => f.id))
      .all<{ object_id: string }>();
    expect(audited.results.map((r) => r.object_id).sort()).toEqual(made.map((f) => f.id).sort());
  });

  it("reads an R2 body in whole chunks filled by the runtime, not in the 4 KiB pieces it arrives in", async () => {
    const key = `test/zip-chunks-${newId()}`;
    const size = 2 * CHUNK_BYTES + 777;
    await env.MEDIA.put(key, new Uint8Array(size).fill(5));
    const object = await env.MEDIA.get(key);
    const lengths: number[] = [];
    for await (const chunk of readInChunks(object!.body, CHUNK_BYTES)) lengths.push(chunk.length);
    expect(lengths).toEqual([CHUNK_BYTES, CHUNK_BYTES, 777]);
    // Reused: each chunk is read into the memory of the one before (the archive writes a chunk before it asks for the
    // next), which the runtime takes over for the read (the last one too: the read that finds the end), so the earlier
    // chunk is left empty; fresh chunks stay intact.
    const kept: Uint8Array[] = [];
    for await (const chunk of readInChunks((await env.MEDIA.get(key))!.body, CHUNK_BYTES, { reuse: true })) {
      expect(chunk.every((b) => b === 5)).toBe(true);
      kept.push(chunk);
    }
    expect(kept.map((c) => c.byteLength)).toEqual([0, 0, 0]);
    const fresh: Uint8Array[] = [];
    for await (const chunk of readInChunks((await env.MEDIA.get(key))!.body, CHUNK_BYTES)) fresh.push(chunk);
    expect(fresh.map((c) => c.byteLength)).toEqual([CHUNK_BYTES, CHUNK_BYTES, 777]);
    await env.MEDIA.delete(key);
  });

  it("leaves out what the caller may not download and lists it, naming nothing the caller cannot see", async () => {
    const s = await shoot();
    const reader = await ordinaryUser();
    await grant(s.boss, reader.id, s.top, ["read"]);
    await grant(s.boss, reader.id, s.b.id, ["read", "download"]);
    const secret = await insertAsset({ ownerId: s.boss.id, name: "Тайный план.pdf", mime: "application/pdf", putBytes: true });
    const unknown = newId();
    const files = await zipOf(reader, { asset_ids: [secret.id, unknown], group_ids: [s.top] });
    expect(Object.keys(files).sort()).toEqual([`${s.topName}/День 1/кадр.jpg`, ru.zip.skippedEntry].sort());
    const skipped = text(files[ru.zip.skippedEntry]);
    expect(skipped).toContain(`${s.topName}/кадр.jpg — ${ru.zip.noDownloadRight}`);
    expect(skipped).toContain(`${secret.id} — ${ru.zip.notFound}`);
    expect(skipped).toContain(`${unknown} — ${ru.zip.notFound}`);
    expect(skipped).not.toContain("Тайный план");

    // Someone the folder is not shared with gets the same answer as for an id that does not exist.
    const stranger = await ordinaryUser();
    const theirs = await zipOf(stranger, { group_ids: [s.top] });
    const nothing = await zipOf(stranger, { group_ids: [unknown] });
    expect(Object.keys(theirs)).toEqual([ru.zip.skippedEntry]);
    expect(text(theirs[ru.zip.skippedEntry]).replace(s.top, "X")).toBe(text(nothing[ru.zip.skippedEntry]).replace(unknown, "X"));
    expect(text(theirs[ru.zip.skippedEntry])).not.toContain(s.topName);
  });

  it("refuses an empty selection, too many ids and bad ids with 400", async () => {
    const boss = await admin();
    const post = (json: unknown) => call("/api/zip", { method: "POST", bearer: boss.bearer, json });
    expect((await expectError(await post({}), 400)).message).toContain(ru.zip.empty);
    await expectError(await post({ asset_ids: [], group_ids: [] }), 400);
    await expectError(await post({ asset_ids: ["../../etc"] }), 400);
    await expectError(await post({ asset_ids: Array.from({ length: 1001 }, () => newId()) }), 400);
    await expectError(await post({ asset_ids: [newId()], as: "mail" }), 400);
    const anonymous = await call("/api/zip", { method: "POST", json: { asset_ids: [newId()] } });
    expect(anonymous.status).toBe(401);
  });

  it("answers a signed link the browser downloads natively; a tampered link is refused", async () => {
    const s = await shoot();
    const res = await send<{ url: string; expires_at: string }>("POST", "/api/zip", s.boss.bearer, { group_ids: [s.day], as: "url" });
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(/^\/api\/zip\/[0-9a-f]{32}\?u=/);
    expect(Date.parse(res.body.expires_at) - Date.now()).toBeLessThanOrEqual(10 * 60 * 1000);
    const download = await call(res.body.url);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toContain(encodeURIComponent("День 1.zip"));
    expect(Object.keys(unzipSync(new Uint8Array(await download.arrayBuffer())))).toEqual(["День 1/кадр.jpg"]);
    await expectError(await call(res.body.url.replace(/sig=[^&]+/, "sig=AAAA")), 404);
  });

  it("turns a selection beyond one request into an export task that writes the archive", async () => {
    const boss = await admin();
    const big = await createGroup(boss, uniqueName("Исходники"));
    // A declared size beyond the request's limit (no bytes behind it: the task lists it as missing).
    await insertAsset({ ownerId: boss.id, groups: [big], name: "rushes.mov", size: ZIP_REQUEST_MAX_BYTES + 1 });
    const res = await send<{ job_id: string }>("POST", "/api/zip", boss.bearer, { group_ids: [big] });
    expect(res.status).toBe(202);
    await runTaskNow(testContext(), res.body.job_id);
    const task = await waitForTask(res.body.job_id, ["done", "error"], 20_000);
    expect(task.status).toBe("done");
    const result = await getJson<{ download_url: string }>(`/api/tasklist/task-result/${res.body.job_id}`, boss.bearer);
    const files = unzipSync(new Uint8Array(await (await call(result.download_url)).arrayBuffer()));
    expect(text(files[ru.zip.skippedEntry])).toContain(`rushes.mov — ${ru.zip.noBytes}`);
  });

  it("lists a folder's files a page at a time: the same plan whatever the page, and a plan too large is known before it is read whole", async () => {
    const boss = await admin();
    const top = await createGroup(boss, uniqueName("Листы"));
    const sub = await createGroup(boss, "Эскизы", top);
    // Names that sort alike in several pages, and two files of one name in a folder (made unique in the plan).
    for (const [name, folder] of [
      ["б.png", top],
      ["а.png", top],
      ["а.png", top],
      ["в.png", top],
      ["г.png", sub],
      ["а.png", sub],
      ["д.png", top],
    ] as const)
      await insertAsset({ ownerId: boss.id, groups: [folder], name, mime: "image/png" });
    const actor = actorOf({ id: boss.id, login: "admin", name: "admin", isAdmin: true });
    const rc = testContext();
    const whole = await planZip(rc, actor, { assetIds: [], groupIds: [top] }, 100);
    expect(whole.files).toHaveLength(7);
    expect(whole.files.map((f) => f.path).filter((path) => path.endsWith("а (2).png"))).toHaveLength(1);
    for (const membersPage of [1, 2, 3, 5]) {
      expect(await planZip(rc, actor, { assetIds: [], groupIds: [top] }, 100, { membersPage })).toEqual(whole);
      const tooMany = await planZip(rc, actor, { assetIds: [], groupIds: [top] }, 4, { membersPage });
      expect(tooMany.overflow).toBe(true);
    }
  });

  it("turns more files than one request holds into a task, not a request", async () => {
    const boss = await admin();
    const many = await createGroup(boss, uniqueName("Сканы"));
    const count = ZIP_REQUEST_MAX_FILES + 1;
    const now = Date.now();
    // Rows straight in D1 (ids 32 hex characters): enough committed files to pass the request's limit.
    await throughShards(() =>
      env.DB.batch([
        env.DB.prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime)
         SELECT printf('%s%08x', substr(?, 1, 24), i), printf('скан-%05d.tif', i), 'image/tiff', ?, ?, 1, ?, ?, ? FROM n`,
        ).bind(count, many, boss.id, boss.id, now, now, now),
        env.DB.prepare(
          `INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
         SELECT ?, id, 'asset', ?, name, ?, 10 FROM assets WHERE id LIKE ?`,
        ).bind(many, now, now, `${many.slice(0, 24)}%`),
      ]),
    );
    const res = await send<{ job_id: string }>("POST", "/api/zip", boss.bearer, { group_ids: [many] });
    expect(res.status).toBe(202);
    const row = await env.DB.prepare("SELECT operation_class, owner_id FROM tasks WHERE id = ?").bind(res.body.job_id).first();
    expect(row).toEqual({ operation_class: "export", owner_id: boss.id });
  });
});
