import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { maskOf } from "../../workers/services/access/access-policy";
import type { LibraryShardPlan } from "../../workers/services/library/library-shard-plan.service";
import { call, expectError, signIn } from "./factories";
import { admin, createGroup, insertAsset, ordinaryUser, uniqueName } from "./library-factories";

/**
 * The dry run of moving each library into its own shard (decision 043, issue 40 item 4): what each top-level folder's
 * subtree holds, counted as the move would take it, for administrators only; nothing written.
 */

describe("library shard plan", () => {
  it("counts each library's folders, files, their rows and the files listed in another library too", async () => {
    const boss = await admin();
    const films = await createGroup(boss, uniqueName("Фильмы"));
    const raw = await createGroup(boss, "Исходники", films);
    const photos = await createGroup(boss, uniqueName("Фото"));
    const clip = await insertAsset({ ownerId: boss.id, groups: [raw], size: 4000, preview: true });
    // Listed in both libraries: counted in each, and reported as shared.
    await insertAsset({ ownerId: boss.id, groups: [films, photos], size: 1500 });
    await insertAsset({ ownerId: boss.id, groups: [], size: 10 });
    await env.DB.prepare(
      "INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) VALUES (?, ?, 'user', ?, 'group', ?, ?)",
    )
      .bind(newId(), boss.id, films, maskOf(["read"]), Date.now())
      .run();
    expect((await call(`/api/sl/create/${clip.id}`, { method: "POST", bearer: boss.bearer, json: {} })).status).toBe(200);
    expect(
      (await call(`/api/asset/${clip.id}/comments`, { method: "POST", bearer: boss.bearer, json: { text: "Звук отстаёт" } })).status,
    ).toBe(201);
    const before = await env.DB.prepare("SELECT (SELECT count(*) FROM groups) + (SELECT count(*) FROM assets) AS n").first<number>("n");

    const res = await call("/api/library-shards/plan", { bearer: boss.bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const plan = (await res.json()) as LibraryShardPlan;
    const of = (id: string) => plan.libraries.find((l) => l.id === id)!;
    expect(of(films)).toMatchObject({
      folders: 2,
      memberships: 3, // Исходники, the clip, the poster
      assets: 2,
      assets_shared: 1,
      versions: 2,
      variants: 2,
      file_bytes: 5500,
      previews: 1,
      comments: 1,
      rules: 1,
      links: 1,
    });
    expect(of(photos)).toMatchObject({
      folders: 1,
      memberships: 1,
      assets: 1,
      assets_shared: 1,
      versions: 1,
      file_bytes: 1500,
      rules: 0,
      links: 0,
    });
    expect(plan.libraries.some((l) => l.id === raw)).toBe(false);
    const films$ = of(films);
    expect(films$.rows).toBe(
      films$.folders +
        films$.memberships +
        films$.assets +
        films$.versions +
        films$.variants +
        films$.previews +
        films$.comments +
        films$.field_values +
        films$.rules +
        films$.links,
    );
    expect(plan.assets_unplaced).toBeGreaterThanOrEqual(1);
    expect(plan.catalog_bytes).toBeGreaterThan(0);
    expect(films$.bytes_estimate).toBeGreaterThan(0);
    expect(films$.bytes_estimate).toBeLessThan(plan.catalog_bytes);
    expect(plan.shard_limit_bytes).toBe(10_000_000_000);
    // Sorted by name; nothing written.
    const names = plan.libraries.map((l) => l.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(await env.DB.prepare("SELECT (SELECT count(*) FROM groups) + (SELECT count(*) FROM assets) AS n").first<number>("n")).toBe(
      before,
    );
  });

  it("takes 10 calls a minute from an administrator, then 429 with Retry-After: each is a pass over the catalog", async () => {
    const { bearer } = await signIn({ isAdmin: true });
    const headers = { "cf-connecting-ip": `198.51.100.${Math.floor(Math.random() * 250)}` };
    // The bucket refills one call every 6 s while the calls run (each a pass over everything the group's files made),
    // so the 429 may come a call or two after the tenth.
    const statuses: number[] = [];
    let refused: Response | null = null;
    while (!refused && statuses.length < 40) {
      const res = await call("/api/library-shards/plan", { bearer, headers });
      statuses.push(res.status);
      if (res.status === 429) refused = res;
      else await res.body?.cancel();
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(refused).not.toBeNull();
    await expectError(refused!, 429);
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("is refused to everyone but administrators: 403 for a user, 401 without a token", async () => {
    const reader = await ordinaryUser();
    const refused = await expectError(await call("/api/library-shards/plan", { bearer: reader.bearer }), 403);
    expect(refused.message).toBe(ru.users.adminOnly);
    await expectError(await call("/api/library-shards/plan"), 401);
  });
});
