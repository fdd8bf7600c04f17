import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { forgetLibraryPlaces, libraryShard } from "../../workers/db/library-directory";
import { libraryCounts, readMove } from "../../workers/db/repositories/library-move.repository";
import { getConfig } from "../../workers/lib/config";
import { call } from "./factories";
import { admin, createGroup, ordinaryUser, releaseMovedLibraries, uniqueName, uploadText } from "./library-factories";

/**
 * Where a new library lives (decision 045): with `NEW_LIBRARIES=shard` (vitest.library-shards.config.ts) a top-level
 * folder made through the API is in a shard of its own by the time the answer comes, and what is made in it next is
 * written there; with the default (`catalog`, every other tier) it stays in the catalog, as before sharding. The
 * same file runs in both, each asserting what its setting promises.
 */

const inShards = getConfig(env).NEW_LIBRARIES === "shard";
const made: string[] = [];
afterAll(() => releaseMovedLibraries(made));

describe(`a new library (NEW_LIBRARIES=${inShards ? "shard" : "catalog"})`, () => {
  it(
    inShards ? "is made in a shard of its own, and what is made in it next is written there and back" : "stays in the catalog",
    async () => {
      const boss = await admin();
      const top = await createGroup(boss, uniqueName("Новая библиотека"));
      made.push(top);
      const move = await readMove(env.DB, top);
      if (!inShards) {
        expect(move).toBeNull();
        return;
      }
      expect(move).toMatchObject({ state: "shard", step: "done", error: null });
      forgetLibraryPlaces();
      const sub = await createGroup(boss, "Съёмки", top);
      const file = await uploadText(boss.bearer, sub, "заметки.txt");
      const shard = libraryShard(env, move!.shard);
      // Both made in the shard and written back: the catalog's copy and the shard agree, table by table.
      expect(await shard.heldEntities([top, sub, file])).toEqual(expect.arrayContaining([top, sub, file]));
      expect(await shard.libraryCounts(top)).toEqual(await libraryCounts(env.DB, top));
      const page = await call(`/api/group/members/${top}`, { bearer: boss.bearer });
      expect(((await page.json()) as { el_id: string }[]).map((m) => m.el_id)).toContain(sub);
    },
  );

  it("is a shard of its own for each library", async () => {
    const boss = await admin();
    const [a, b] = [await createGroup(boss, uniqueName("Фонд А")), await createGroup(boss, uniqueName("Фонд Б"))];
    made.push(a, b);
    const [moveA, moveB] = [await readMove(env.DB, a), await readMove(env.DB, b)];
    if (!inShards) return expect([moveA, moveB]).toEqual([null, null]);
    expect(moveA!.shard).not.toBe(moveB!.shard);
  });

  it("is a shard only when an administrator makes it: a folder someone makes for himself at the top stays in the catalog", async () => {
    const user = await ordinaryUser();
    const own = await createGroup(user, uniqueName("Своя папка"));
    made.push(own);
    expect(await readMove(env.DB, own)).toBeNull();
    // His folder works as any: he lists and fills it.
    const sub = await createGroup(user, "Черновики", own);
    const page = await call(`/api/group/members/${own}`, { bearer: user.bearer });
    expect(((await page.json()) as { el_id: string }[]).map((m) => m.el_id)).toEqual([sub]);
  });
});
