import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { forgetLibraryPlaces, libraryShard } from "../../workers/db/library-directory";
import { libraryCounts, readMove } from "../../workers/db/repositories/library-move.repository";
import { continueLibraryMove, startLibraryMove } from "../../workers/services/library/library-move.service";
import { createGroup, uniqueName, type Caller } from "./library-factories";

/**
 * A library in its shard: made by `boss`, moved into its shard unless it was born there (the sharded tier); its id is
 * added to `moved`, which the test file lets go after its tests.
 */
export async function libraryInShard(boss: Caller, name: string, moved: string[], fill?: (top: string) => Promise<void>) {
  const top = await createGroup(boss, uniqueName(name));
  moved.push(top);
  await fill?.(top);
  if (!(await readMove(env.DB, top))) await switchLibrary(top);
  forgetLibraryPlaces();
  return { top, shard: (await readMove(env.DB, top))!.shard };
}

/** Moves library `top` into its shard to the end, and makes this isolate forget where anything was: its shard. */
export async function switchLibrary(top: string): Promise<number> {
  await startLibraryMove(env, top);
  const { shard } = await continueLibraryMove(env, top, { deadline: Date.now() + 60_000 });
  forgetLibraryPlaces();
  return shard;
}

/** The shard holds exactly the catalog's copy of the library, table by table (writebacks may still be under way). */
export async function copiesAgree(top: string, shard: number) {
  await vi.waitFor(async () => expect(await libraryShard(env, shard).libraryCounts(top)).toEqual(await libraryCounts(env.DB, top)), {
    timeout: 10_000,
  });
}

/** No change across libraries is under way and the shards can be held at once. */
export async function nothingHeld(...shards: number[]) {
  expect((await env.DB.prepare("SELECT count(*) AS n FROM library_crossing").first<{ n: number }>())!.n).toBe(0);
  for (const shard of shards) expect(await libraryShard(env, shard).hold("probe", "")).not.toBeNull();
  for (const shard of shards) await libraryShard(env, shard).release("probe");
}

/** After a change across libraries: each shard holds exactly the catalog's copy, and nothing is held. */
export async function settled(...libraries: { top: string; shard: number }[]) {
  for (const l of libraries) await copiesAgree(l.top, l.shard);
  await nothingHeld(...libraries.map((l) => l.shard));
}
