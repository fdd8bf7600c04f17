import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { forgetLibraryPlaces, libraryShard } from "../../workers/db/library-directory";
import { libraryCounts, readMove } from "../../workers/db/repositories/library-move.repository";
import { continueLibraryMove, startLibraryMove } from "../../workers/services/library/library-move.service";
import { newId } from "../../workers/lib/ids";
import { sortKeyOf } from "../../workers/services/library/group-tree";
import { createGroup, uniqueName, type Caller } from "./library-factories";
import { throughShards } from "./through-shards";

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

/** 363 KB of extracted text (the index keeps up to MAX_INDEX_CHARS of a file): a book's. */
export const BOOK_TEXT = "слово ".repeat(33_000);

/**
 * `n` files with a book's extracted text each (unless not `texts`) listed in `folder`, written at once at the storage
 * layer (through the shards when their library is in one): 100 of them are 36 MB of text, past the 32 MiB one call
 * into a shard may carry.
 */
export async function insertBooks(owner: string, folder: string, n: number, { texts = true } = {}): Promise<string[]> {
  const now = Date.now();
  const books = Array.from({ length: n }, (_, i) => ({ id: newId(), name: `книга-${i}.pdf` }));
  await throughShards(() =>
    env.DB.batch(
      books.flatMap(({ id, name }) => [
        env.DB.prepare(
          "INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime) VALUES (?, ?, 'application/pdf', ?, ?, 0, ?, ?, ?)",
        ).bind(id, name, owner, owner, now, now, now),
        env.DB.prepare(
          "INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES (?, ?, 'asset', ?, ?, ?, 0)",
        ).bind(folder, id, now, sortKeyOf(name), now),
        ...(texts
          ? [env.DB.prepare("INSERT INTO search_content (asset_id, version, text, mtime) VALUES (?, 1, ?, 0)").bind(id, BOOK_TEXT)]
          : []),
      ]),
    ),
  );
  return books.map((b) => b.id);
}

/** The length of a long comment (the most one may hold): 10,000 Cyrillic letters, 20 KB. */
export const LONG_COMMENT_CHARS = 10_000;

/**
 * `n` comments of LONG_COMMENT_CHARS each by `author` on file `file`, written in one statement at the storage layer
 * (through the shards when its library is in one): 1,700 of them are 34 MB, past the 32 MiB one call into a shard may
 * carry — what a few people can write on one file in a day.
 */
export async function insertLongComments(file: string, author: string, n: number): Promise<void> {
  await throughShards(() =>
    env.DB.prepare(
      `WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < ?3)
       INSERT INTO comments (id, asset_id, version, author_id, text, ctime, mtime)
       SELECT lower(hex(randomblob(16))), ?1, 1, ?2, replace(hex(zeroblob(?4)), '00', 'ж'), ?5 + n, ?5 + n FROM i`,
    )
      .bind(file, author, n, LONG_COMMENT_CHARS, Date.now())
      .run(),
  );
}
