import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { forgetLibraryPlaces } from "../../workers/db/library-directory";
import { readMove } from "../../workers/db/repositories/library-move.repository";
import { releaseMovedLibraries } from "./library-factories";
import { switchLibrary } from "./library-shard-fixtures";
import { budgetTests, buildWorld } from "./round-trip-fixtures";

// Decision 030 for the sharded layout (decision 043, issue 40): the same world, its library moved into its shard
// before the calls, so the folder and the file are answered there — each shard call one round trip — and every
// budget holds as it does in the catalog.

let library = "";

beforeAll(async () => {
  library = (await buildWorld()).top;
  // Forgotten after it, as by a fresh isolate: the place of each id is looked up, not remembered from before the move.
  await switchLibrary(library);
  expect((await readMove(env.DB, library))?.state).toBe("shard");
}, 120_000);

afterAll(async () => {
  await releaseMovedLibraries([library]);
  forgetLibraryPlaces();
});

describe("round-trip budgets, the library in its shard", budgetTests);
