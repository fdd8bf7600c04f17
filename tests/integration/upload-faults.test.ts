import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import { worker } from "./worker-handlers";
import { toBase64 } from "../../workers/lib/crypto";
import { createAsset, createGroup, json, put, rows, sha256Of, startUpload, type Uploaded } from "./asset-fixtures";
import { call, expectError, signIn } from "./factories";
import {
  MIB,
  captureTasks,
  complete,
  concat,
  createUpload,
  expectS3Error,
  partBytes,
  putPart,
  s3,
  sign,
  startMultipart,
  xmlTag,
} from "./multipart-fixtures";

// Fault injection on uploads (issue 16): the same part twice, Complete twice and concurrently, a part whose checksum
// does not match, a body cut short or broken off (a dropped connection), then the housekeeping cron. Every fault
// ends with the committed object's SHA-256 equal to the source's, or a clean 4xx after which the upload resumes; and
// once the cron has run, no multipart upload, part record or stray object is left. (A Worker restarted between parts
// and a socket destroyed mid-part over real HTTP: tests/faults/upload-restart.mjs.)

const HOUR = 3600_000;

const digest = async (algorithm: "MD5" | "SHA-256", bytes: Uint8Array<ArrayBuffer>) =>
  toBase64(new Uint8Array(await crypto.subtle.digest(algorithm, bytes)));

/** A user with an open multipart upload of `parts` (sizes as in the source file, nothing sent yet). */
async function openUpload(parts: Uint8Array<ArrayBuffer>[]) {
  const user = await signIn();
  const group = await createGroup(user.id);
  const id = await createAsset(user.bearer, { in_group: group });
  const source = concat(...parts);
  const info = await startMultipart(user.bearer, id, source.byteLength, { to_group: group });
  const uploadId = await createUpload(user.bearer, info.variant_id);
  return { user, id, info, uploadId, source };
}

type Open = Awaited<ReturnType<typeof openUpload>>;

/** UploadPart through a fresh signature with extra headers (raw answer). */
async function sendPart(u: Open, n: number, body: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
  const signed = await sign(u.user.bearer, u.info.variant_id, "part", { upload_id: u.uploadId, part_number: n });
  return s3(signed.url, { method: "PUT", body, headers });
}

/** The part numbers ListParts answers. */
async function listedParts(u: Open): Promise<string[]> {
  const signed = await sign(u.user.bearer, u.info.variant_id, "list", { upload_id: u.uploadId });
  const xml = await (await s3(signed.url, { method: "GET" })).text();
  return [...xml.matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) => m[1]);
}

/** The committed state of the upload: one ready variant, one version, and the SHA-256 of the object R2 holds. */
async function committed(u: Open) {
  const variants = await rows<{ status: string; sha256: string | null }>("select status, sha256 from variants where id = ?", u.info.variant_id);
  const versions = await rows("select id from asset_versions where asset_id = ?", u.id);
  const object = await env.MEDIA.get(u.info.key);
  const stored = object ? await sha256Of(new Uint8Array(await object.arrayBuffer())) : null;
  return { status: variants[0]?.status, recorded: variants[0]?.sha256, stored, versions: versions.length };
}

async function expectCommittedAsSource(u: Open) {
  const sha = await sha256Of(u.source);
  expect(await committed(u)).toEqual({ status: "ready", recorded: sha, stored: sha, versions: 1 });
  expect(await rows("select * from upload_parts where variant_id = ?", u.info.variant_id)).toEqual([]);
}

describe("the same part sent twice", () => {
  it("one after the other: the later send is the part; at the same time: refused (409), sent again; the file equals the source", async () => {
    captureTasks();
    const parts = [partBytes(5 * MIB, 11), partBytes(5 * MIB, 12), partBytes(777, 13)];
    const u = await openUpload(parts);
    await putPart(u.user.bearer, u.info.variant_id, u.uploadId, 1, parts[0]);
    const first = await putPart(u.user.bearer, u.info.variant_id, u.uploadId, 1, parts[0]);
    // Two sends of part 2 at once: storage keeps one of them, which one cannot be known, so the one recorded later
    // is refused and the part is forgotten; the client sends it again.
    const twice = await Promise.all([1, 2].map(() => sendPart(u, 2, parts[1])));
    expect(twice.map((r) => r.status).sort()).toEqual([200, 409]);
    await expectS3Error(twice.find((r) => r.status === 409)!, 409, "OperationAborted");
    expect(await listedParts(u)).toEqual(["1"]);
    const second = await putPart(u.user.bearer, u.info.variant_id, u.uploadId, 2, parts[1]);
    const last = await putPart(u.user.bearer, u.info.variant_id, u.uploadId, 3, parts[2]);
    expect(await rows("select part_number from upload_parts where variant_id = ? order by 1", u.info.variant_id)).toEqual([
      { part_number: 1 },
      { part_number: 2 },
      { part_number: 3 },
    ]);
    const etags = [first, second, last];
    const done = await complete(u.user.bearer, u.info.variant_id, u.uploadId, etags.map((etag, i) => ({ partNumber: i + 1, etag })));
    expect(done.status, await done.text()).toBe(200);
    await expectCommittedAsSource(u);
  });

  it("a part re-sent with other bytes replaces the first: the bytes sent last are the ones committed", async () => {
    captureTasks();
    const parts = [partBytes(5 * MIB, 21), partBytes(100, 22)];
    const u = await openUpload(parts);
    const stale = await putPart(u.user.bearer, u.info.variant_id, u.uploadId, 1, partBytes(5 * MIB, 99));
    const fresh = await putPart(u.user.bearer, u.info.variant_id, u.uploadId, 1, parts[0]);
    expect(fresh).not.toBe(stale);
    const last = await putPart(u.user.bearer, u.info.variant_id, u.uploadId, 2, parts[1]);
    // The etag of the replaced bytes no longer completes the upload.
    await expectS3Error(
      await complete(u.user.bearer, u.info.variant_id, u.uploadId, [
        { partNumber: 1, etag: stale },
        { partNumber: 2, etag: last },
      ]),
      400,
      "InvalidPart",
    );
    const done = await complete(u.user.bearer, u.info.variant_id, u.uploadId, [
      { partNumber: 1, etag: fresh },
      { partNumber: 2, etag: last },
    ]);
    expect(done.status, await done.text()).toBe(200);
    await expectCommittedAsSource(u);
  });
});

describe("CompleteMultipartUpload sent twice", () => {
  it("concurrently and again afterwards: every answer is 200 with the same ETag, one version is committed", async () => {
    const tasks = captureTasks();
    const parts = [partBytes(5 * MIB, 31), partBytes(5 * MIB, 32), partBytes(4321, 33)];
    const u = await openUpload(parts);
    const list: { partNumber: number; etag: string }[] = [];
    for (const [i, bytes] of parts.entries()) {
      list.push({ partNumber: i + 1, etag: await putPart(u.user.bearer, u.info.variant_id, u.uploadId, i + 1, bytes) });
    }
    const answers = await Promise.all([1, 2, 3].map(() => complete(u.user.bearer, u.info.variant_id, u.uploadId, list)));
    const bodies = await Promise.all(answers.map((r) => r.text()));
    expect(
      answers.map((r) => r.status),
      bodies.join("\n"),
    ).toEqual([200, 200, 200]);
    const etags = new Set(bodies.map((b) => xmlTag(b, "ETag")));
    expect(etags.size).toBe(1);
    expect(answers.map((r) => r.headers.get("x-mam-upload-state"))).toContain("ready");
    const again = await complete(u.user.bearer, u.info.variant_id, u.uploadId, list);
    const againBody = await again.text();
    expect(again.status, againBody).toBe(200);
    expect(xmlTag(againBody, "ETag")).toBe([...etags][0]);
    expect(again.headers.get("x-mam-upload-state")).toBe("ready");
    await expectCommittedAsSource(u);
    // Processing is queued once, by the Complete that committed.
    expect(tasks.mock.calls.filter(([m]) => (m as { op: string }).op === "process-variant")).toHaveLength(1);
  });
});

describe("CompleteMultipartUpload sent again after the Worker died while hashing", () => {
  it("re-queues the hashing of a 'saving' upload without progress, once; a live one is left to its run", async () => {
    const tasks = captureTasks();
    const parts = [partBytes(5 * MIB, 35), partBytes(10, 36)];
    const u = await openUpload(parts);
    const list = [
      { partNumber: 1, etag: await putPart(u.user.bearer, u.info.variant_id, u.uploadId, 1, parts[0]) },
      { partNumber: 2, etag: await putPart(u.user.bearer, u.info.variant_id, u.uploadId, 2, parts[1]) },
    ];
    // Assembled and marked 'saving', then the Worker died before the hash was recorded: a live run would have
    // touched the variant within the last two minutes.
    await env.MEDIA.resumeMultipartUpload(u.info.key, u.uploadId).complete(
      list.map((p) => ({ partNumber: p.partNumber, etag: p.etag.replaceAll('"', "") })),
    );
    await env.DB.batch([
      env.DB.prepare("update variants set status = 'saving', hash_offset = 0, progress_at = ? where id = ?").bind(
        Date.now() - 3 * 60_000,
        u.info.variant_id,
      ),
      env.DB.prepare("delete from upload_parts where variant_id = ?").bind(u.info.variant_id),
    ]);
    const hashRuns = () => tasks.mock.calls.filter(([m]) => (m as { op: string }).op === "hash-variant").length;
    const again = await complete(u.user.bearer, u.info.variant_id, u.uploadId, list);
    expect(again.status, await again.text()).toBe(200);
    expect(again.headers.get("x-mam-upload-state")).toBe("saving");
    expect(hashRuns()).toBe(1);
    // Sent once more right away: the re-queued run is live now, nothing more is queued.
    expect((await complete(u.user.bearer, u.info.variant_id, u.uploadId, list)).status).toBe(200);
    expect(hashRuns()).toBe(1);
    // The queued run hashes and commits the source's bytes.
    vi.spyOn(console, "log").mockImplementation(() => {});
    const batch = createMessageBatch("edge-mam-tasks", [
      { id: "h", timestamp: new Date(), attempts: 1, body: { op: "hash-variant", variantId: u.info.variant_id } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    await getQueueResult(batch, ctx);
    await expectCommittedAsSource(u);
  });
});

describe("a checksum that does not match the bytes", () => {
  it("refuses the part (400 BadDigest), forgets it, and the upload resumes with the part sent again", async () => {
    captureTasks();
    const parts = [partBytes(5 * MIB, 41), partBytes(2000, 42)];
    const u = await openUpload(parts);
    const md5 = await digest("MD5", parts[0]);
    const sha = await digest("SHA-256", parts[1]);
    // Malformed headers are refused before any byte moves.
    await expectS3Error(await sendPart(u, 1, parts[0], { "content-md5": "not base64!" }), 400, "InvalidDigest");
    await expectS3Error(await sendPart(u, 2, parts[1], { "x-amz-checksum-sha256": md5 }), 400, "InvalidDigest");
    expect(await listedParts(u)).toEqual([]);

    const good = await sendPart(u, 1, parts[0], { "content-md5": md5 });
    expect(good.status, await good.text()).toBe(200);
    const firstEtag = good.headers.get("etag")!;
    // The same part again, damaged on the way (one byte flipped): refused, and the earlier record goes with it
    // because storage now holds the damaged bytes under that number.
    const damaged = parts[0].slice();
    damaged[12345] ^= 0xff;
    const refused = await sendPart(u, 1, damaged, { "content-md5": md5 });
    expect(await expectS3Error(refused, 400, "BadDigest")).toBe("BadDigest");
    await expectS3Error(await sendPart(u, 2, partBytes(2000, 43), { "x-amz-checksum-sha256": sha }), 400, "BadDigest");
    expect(await listedParts(u)).toEqual([]);
    await expectS3Error(
      await complete(u.user.bearer, u.info.variant_id, u.uploadId, [{ partNumber: 1, etag: firstEtag }]),
      400,
      "InvalidPart",
    );

    // Resume: both parts sent again, correctly, with their checksums.
    const again = [await sendPart(u, 1, parts[0], { "content-md5": md5 }), await sendPart(u, 2, parts[1], { "x-amz-checksum-sha256": sha })];
    expect(again.map((r) => r.status)).toEqual([200, 200]);
    expect(await listedParts(u)).toEqual(["1", "2"]);
    const done = await complete(
      u.user.bearer,
      u.info.variant_id,
      u.uploadId,
      again.map((r, i) => ({ partNumber: i + 1, etag: r.headers.get("etag")! })),
    );
    expect(done.status, await done.text()).toBe(200);
    await expectCommittedAsSource(u);
  });

  it("refuses a single PUT whose checksum does not match (400, nothing stored); the same link then stores the file", async () => {
    captureTasks();
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const bytes = partBytes(70_000, 51);
    const info = await startUpload(user.bearer, id, { size: bytes.byteLength });
    const key = `assets/${id}/${info.variant_id}`;
    const sha = await digest("SHA-256", bytes);
    const wrong = partBytes(70_000, 52);
    expect((await expectError(await put(info.upload_url, wrong, { "x-amz-checksum-sha256": sha }), 400)).message).toBe(
      ru.s3.checksumMismatch("x-amz-checksum-sha256"),
    );
    await expectError(await put(info.upload_url, wrong, { "content-md5": await digest("MD5", bytes) }), 400);
    await expectError(await put(info.upload_url, bytes, { "content-md5": "AAAA" }), 400);
    expect(await env.MEDIA.head(key)).toBeNull();
    expect(await rows("select status from variants where id = ?", info.variant_id)).toEqual([{ status: "pending" }]);
    const stored = await json<Uploaded>(
      await put(info.upload_url, bytes, { "x-amz-checksum-sha256": sha, "content-md5": await digest("MD5", bytes) }),
      201,
    );
    expect(stored.checksum).toBe(await sha256Of(bytes));
    expect(await sha256Of(new Uint8Array(await (await env.MEDIA.get(key))!.arrayBuffer()))).toBe(stored.checksum);
  });
});

describe("a part whose connection drops", () => {
  it("a body cut short of its Content-Length or broken off is refused and recorded nowhere; the part is sent again", async () => {
    captureTasks();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const parts = [partBytes(5 * MIB, 61), partBytes(3000, 62)];
    const u = await openUpload(parts);
    const cutShort = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(parts[0].slice(0, 2 * MIB));
        c.close();
      },
    });
    await expectS3Error(await sendPart(u, 1, cutShort, { "content-length": String(5 * MIB) }), 400, "IncompleteBody");
    const brokenOff = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(parts[0].slice(0, MIB));
        c.error(new Error("connection reset by peer"));
      },
    });
    const broken = await sendPart(u, 1, brokenOff, { "content-length": String(5 * MIB) }).catch((error: unknown) => error);
    // Nobody reads the answer of a dropped connection; what matters is that nothing of it is recorded.
    if (broken instanceof Response) expect(broken.status, await broken.text()).toBeGreaterThanOrEqual(400);
    expect(await listedParts(u)).toEqual([]);
    expect(await json(await call(`/api/upload/status/${u.info.variant_id}`, { bearer: u.user.bearer }))).toMatchObject({
      state: "pending",
      uploaded_bytes: 0,
    });
    const list = [
      { partNumber: 1, etag: await putPart(u.user.bearer, u.info.variant_id, u.uploadId, 1, parts[0]) },
      { partNumber: 2, etag: await putPart(u.user.bearer, u.info.variant_id, u.uploadId, 2, parts[1]) },
    ];
    const done = await complete(u.user.bearer, u.info.variant_id, u.uploadId, list);
    expect(done.status, await done.text()).toBe(200);
    await expectCommittedAsSource(u);
    warn.mockRestore();
  });
});

describe("the housekeeping cron after abandoned uploads", () => {
  it("leaves no open multipart upload, no part record, no expired upload and no object that no ready version references", async () => {
    captureTasks();
    const sendBatch = vi.fn<Queue["sendBatch"]>().mockResolvedValue({} as QueueSendBatchResponse);
    vi.spyOn(console, "log").mockImplementation(() => {});
    // Abandoned mid-file: one part stored, one refused for its checksum, then the client went away for good.
    const parts = [partBytes(5 * MIB, 71), partBytes(5 * MIB, 72), partBytes(10, 73)];
    const gone = await openUpload(parts);
    await putPart(gone.user.bearer, gone.info.variant_id, gone.uploadId, 1, parts[0]);
    await expectS3Error(await sendPart(gone, 2, parts[0], { "content-md5": await digest("MD5", parts[1]) }), 400, "BadDigest");
    // A single PUT whose Worker died after storing the bytes and before the commit: an object under a pending
    // variant's key, the link long expired.
    const single = await signIn();
    const singleAsset = await createAsset(single.bearer);
    const died = await startUpload(single.bearer, singleAsset, { size: 10 });
    const diedKey = `assets/${singleAsset}/${died.variant_id}`;
    await env.MEDIA.put(diedKey, "0123456789");
    // Another one still in progress, and a fresh single PUT: the cron must not touch them.
    const live = await openUpload(parts);
    await putPart(live.user.bearer, live.info.variant_id, live.uploadId, 1, parts[0]);
    const fresh = await startUpload(single.bearer, singleAsset, { size: 10 });
    await env.DB.batch([
      env.DB.prepare("update variants set progress_at = ? where id = ?").bind(Date.now() - 25 * HOUR, gone.info.variant_id),
      env.DB.prepare("update variants set ctime = ? where id = ?").bind(Date.now() - 25 * HOUR, died.variant_id),
    ]);

    await worker.scheduled(
      createScheduledController({ cron: "17 * * * *", scheduledTime: Date.now() }),
      { ...env, TASKS: { ...env.TASKS, sendBatch } as Queue },
      createExecutionContext(),
    );
    const queued = sendBatch.mock.calls.flatMap(([messages]) => [...messages]);
    expect(queued.map((m) => (m.body as { op: string }).op)).toContain("abort-stale-multipart");
    const batch = createMessageBatch(
      "edge-mam-tasks",
      queued.map((m, i) => ({ id: `h${i}`, timestamp: new Date(), attempts: 1, body: m.body })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(queued.length);

    expect(await rows("select status from variants where id = ?", gone.info.variant_id)).toEqual([{ status: "aborted" }]);
    expect(await rows("select * from upload_parts where variant_id = ?", gone.info.variant_id)).toEqual([]);
    await expect(env.MEDIA.resumeMultipartUpload(gone.info.key, gone.uploadId).uploadPart(3, "x")).rejects.toThrow();
    expect(await listedParts(live)).toEqual(["1"]);
    expect(await rows("select id from variants where id = ?", died.variant_id)).toEqual([]);
    expect(await env.MEDIA.head(diedKey)).toBeNull();
    expect(await rows("select status from variants where id = ?", fresh.variant_id)).toEqual([{ status: "pending" }]);

    // Every object in the bucket (this file's faults included) belongs to a ready version; none is left over.
    const ready = new Set(
      (await rows<{ storage_key: string }>("select storage_key from variants where status = 'ready'")).map((r) => r.storage_key),
    );
    const listed = await env.MEDIA.list({ prefix: "assets/" });
    expect(listed.objects.length).toBeGreaterThan(0);
    expect(listed.objects.map((o) => o.key).filter((key) => !ready.has(key))).toEqual([]);
  });
});
