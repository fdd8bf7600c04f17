import { afterEach, describe, expect, it } from "vitest";
import { forgetLibraryPlaces, knownPlaceOfId, placesOfIds } from "../../workers/db/library-directory";
import { newId } from "../../workers/lib/ids";

/** A directory that places every id asked in library `lib`'s shard 7, as the catalog's statement would. */
function directory() {
  return {
    prepare: () => ({
      bind: (json: string) => ({
        all: async () => ({
          results: (JSON.parse(json) as { id: string }[]).map(({ id }) => ({
            switched: 1,
            id,
            library: "lib",
            name: "Архив",
            shard: 7,
            state: "shard",
          })),
        }),
      }),
    }),
  } as unknown as D1Database;
}

describe("the places an isolate remembers", () => {
  afterEach(() => forgetLibraryPlaces());

  it("are bounded: past 20,000 the oldest are forgotten, the newest kept", async () => {
    forgetLibraryPlaces();
    const first = Array.from({ length: 15_000 }, () => newId());
    const second = Array.from({ length: 15_000 }, () => newId());
    const now = Date.now();
    await placesOfIds(directory(), first, now);
    expect(knownPlaceOfId(first[0]!, now)).toEqual({ place: "shard", library: "lib", name: "Архив", shard: 7 });
    const placed = await placesOfIds(directory(), second, now);
    // Every id asked is answered, remembered or not.
    expect(placed.size).toBe(second.length);
    expect(second.every((id) => knownPlaceOfId(id, now)?.place === "shard")).toBe(true);
    expect(first.slice(0, 10_000).some((id) => knownPlaceOfId(id, now))).toBe(false);
    expect(first.slice(10_000).every((id) => knownPlaceOfId(id, now))).toBe(true);
  });
});
