import { describe, expect, it } from "vitest";
import { rows, sha256Of } from "./asset-fixtures";
import { call, expectError, signIn } from "./factories";
import { admin, createGroup, send, uniqueName } from "./library-factories";
import { previewTask, uploadFile } from "./task-fixtures";
import { fixture } from "./processing-fixtures";
import { encodeJpeg, type Pixels } from "../../workers/services/imaging/image-codec";

/** Duplicates: exact by SHA-256 at commit, similar by the preview's difference hash; only readable files answered. */

interface DupFile {
  asset_id: string;
  name: string;
  folder: { id: string; name: string } | null;
  distance?: number;
}
interface Dups {
  exact: DupFile[];
  similar: DupFile[];
}

const dupsOf = async (id: string, bearer: string) => {
  const res = await call(`/api/asset/duplicates/${id}`, { bearer });
  expect(res.status).toBe(200);
  return (await res.json()) as Dups;
};

async function grantRead(by: { bearer: string }, userId: string, groupId: string) {
  const res = await send("POST", "/api/user/acl", by.bearer, { subj: userId, obj: groupId, acl: ["read"] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** A 400 × 300 picture: a gradient with a dark disc (`shift` moves the light a little, `variant` draws another scene). */
function picture(opts: { variant?: boolean; brighten?: number } = {}): Pixels {
  const width = 400;
  const height = 300;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let v: number;
      if (opts.variant) v = ((Math.floor(x / 50) + Math.floor(y / 50)) % 2) * 200 + (y / height) * 40;
      else {
        v = (x / width) * 220 + 20;
        if ((x - 260) ** 2 + (y - 140) ** 2 < 70 ** 2) v = 30;
      }
      v = v + (opts.brighten ?? 0);
      const i = (y * width + x) * 4;
      data.set([v, v * 0.9, v * 0.8, 255], i);
    }
  }
  return { data, width, height };
}

describe("duplicates", () => {
  it("the same PDF in two folders is an exact duplicate; a reader of one folder sees only his copy", async () => {
    const boss = await admin();
    const reader = await signIn();
    const stranger = await signIn();
    const shared = await createGroup(boss, uniqueName("Открытая"));
    const closed = await createGroup(boss, uniqueName("Закрытая"));
    await grantRead(boss, reader.id, shared);
    const pdf = fixture("pdf");
    const a = await uploadFile(boss.bearer, { name: "договор.pdf", mime: "application/pdf", bytes: pdf, group: shared });
    const b = await uploadFile(boss.bearer, { name: "договор-копия.pdf", mime: "application/pdf", bytes: pdf, group: closed });

    const forAdmin = await dupsOf(a.assetId, boss.bearer);
    expect(forAdmin.exact.map((f) => [f.asset_id, f.name, f.folder?.id])).toEqual([[b.assetId, "договор-копия.pdf", closed]]);
    expect(forAdmin.similar).toEqual([]);
    expect((await dupsOf(b.assetId, boss.bearer)).exact.map((f) => f.asset_id)).toEqual([a.assetId]);

    // The reader may read the first copy only: the second is neither listed nor counted, and asking about it is a 404
    // with the same message as an id that names nothing.
    expect(await dupsOf(a.assetId, reader.bearer)).toEqual({ exact: [], similar: [] });
    const hidden = await expectError(await call(`/api/asset/duplicates/${b.assetId}`, { bearer: reader.bearer }), 404);
    const unknown = await expectError(await call(`/api/asset/duplicates/${"f".repeat(32)}`, { bearer: reader.bearer }), 404);
    expect(hidden.message).toBe(unknown.message);

    // The hash lookup of the upload panel answers only readable files.
    const hash = await sha256Of(pdf);
    const lookup = async (bearer: string, sha256: string[]) => {
      const res = await call("/api/asset/duplicate-lookup", { method: "POST", bearer, json: { sha256 } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { matches: { sha256: string; files: DupFile[] }[] }).matches;
    };
    expect((await lookup(boss.bearer, [hash.toUpperCase()]))[0].files.map((f) => f.asset_id).sort()).toEqual([a.assetId, b.assetId].sort());
    expect((await lookup(reader.bearer, [hash])).map((m) => [m.sha256, m.files.map((f) => f.asset_id)])).toEqual([[hash, [a.assetId]]]);
    expect(await lookup(stranger.bearer, [hash])).toEqual([]);
    expect(await lookup(boss.bearer, ["0".repeat(64)])).toEqual([]);

    // The administrators' list groups them; everyone else is refused.
    const page = await call("/api/duplicates?kind=exact", { bearer: boss.bearer });
    expect(page.status).toBe(200);
    const groups = ((await page.json()) as { groups: { key: string; files: DupFile[] }[] }).groups;
    expect(groups.find((g) => g.key === hash)?.files.map((f) => f.asset_id)).toEqual([a.assetId, b.assetId]);
    await expectError(await call("/api/duplicates", { bearer: reader.bearer }), 403);
    await expectError(await call("/api/duplicates"), 401);

    // Keep one: the other goes to the trash, and is no duplicate any more.
    expect((await call("/api/asset/delete-list", { method: "POST", bearer: boss.bearer, json: { ids: [b.assetId] } })).status).toBe(204);
    expect((await dupsOf(a.assetId, boss.bearer)).exact).toEqual([]);
  });

  it("a near-identical picture is similar, a different one is not", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Фото"));
    const original = new Uint8Array(await encodeJpeg(picture(), 92));
    const recompressed = new Uint8Array(await encodeJpeg(picture({ brighten: 6 }), 55));
    const other = new Uint8Array(await encodeJpeg(picture({ variant: true }), 92));
    expect(await sha256Of(original)).not.toBe(await sha256Of(recompressed));
    const a = await uploadFile(boss.bearer, { name: "кадр.jpg", mime: "image/jpeg", bytes: original, group: folder });
    const b = await uploadFile(boss.bearer, { name: "кадр-сжатый.jpg", mime: "image/jpeg", bytes: recompressed, group: folder });
    const c = await uploadFile(boss.bearer, { name: "шахматы.jpg", mime: "image/jpeg", bytes: other, group: folder });
    for (const x of [a, b, c]) await previewTask(x.assetId);
    const hashes = await rows<{ phash: number | null }>("select phash from variants where id in (?, ?, ?)", a.variantId, b.variantId, c.variantId);
    expect(hashes.every((h) => h.phash !== null)).toBe(true);

    const dups = await dupsOf(a.assetId, boss.bearer);
    expect(dups.exact).toEqual([]);
    expect(dups.similar.map((f) => f.asset_id)).toEqual([b.assetId]);
    expect(dups.similar[0].distance).toBeLessThanOrEqual(6);
    expect((await dupsOf(c.assetId, boss.bearer)).similar.map((f) => f.asset_id)).not.toContain(a.assetId);

    const page = (await (await call("/api/duplicates?kind=similar", { bearer: boss.bearer })).json()) as { groups: { files: DupFile[] }[] };
    const pair = page.groups.find((g) => g.files.some((f) => f.asset_id === a.assetId));
    expect(pair?.files.map((f) => f.asset_id).sort()).toEqual([a.assetId, b.assetId].sort());
  });

  it("refuses bad input with a Russian message naming the field, and callers without a token", async () => {
    const user = await signIn();
    const lookup = (json: unknown) => call("/api/asset/duplicate-lookup", { method: "POST", bearer: user.bearer, json });
    expect((await expectError(await lookup({ sha256: ["не-хеш"] }), 400)).message).toMatch(/sha256/);
    await expectError(await lookup({ sha256: [] }), 400);
    await expectError(await lookup({ sha256: Array.from({ length: 101 }, (_, i) => i.toString(16).padStart(64, "0")) }), 400);
    await expectError(await lookup({}), 400);
    await expectError(await call("/api/asset/duplicate-lookup", { method: "POST", json: { sha256: ["0".repeat(64)] } }), 401);
    await expectError(await call("/api/asset/duplicates/not-an-id", { bearer: user.bearer }), 400);
    await expectError(await call("/api/duplicates?kind=близкие", { bearer: user.bearer }), 400);
    await expectError(await call(`/api/asset/duplicates/${"a".repeat(32)}`), 401);
  });
});
