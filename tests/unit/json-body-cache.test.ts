import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { JsonBodyCache, jsonBodyResponse } from "../../workers/lib/json-body-cache";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("JsonBodyCache", () => {
  it("wraps a kept middle in each caller's head and tail, and gzips each wrapping once", async () => {
    const cache = new JsonBodyCache<{ total: number }>(4, 1_000_000);
    const kept = cache.remember("a:r1", `[{"text":"привет"}]`, { total: 1 });
    expect(cache.get("a:r1")).toBe(kept);
    expect(kept.meta).toEqual({ total: 1 });
    const mine = kept.body(`{"following":true,"items":`, "}");
    const theirs = kept.body(`{"following":false,"items":`, "}");
    expect(JSON.parse(text(mine.bytes()))).toEqual({ following: true, items: [{ text: "привет" }] });
    expect(JSON.parse(text(theirs.bytes()))).toEqual({ following: false, items: [{ text: "привет" }] });
    const gz = await mine.gzipped();
    expect(text(gunzipSync(gz))).toBe(text(mine.bytes()));
    // The same wrapping asked again, by another request, is the same compressed bytes, not a second compression.
    expect(await kept.body(`{"following":true,"items":`, "}").gzipped()).toBe(gz);
    expect(text(gunzipSync(await theirs.gzipped()))).toBe(text(theirs.bytes()));
  });

  it("answers the entry already kept under a key, and keeps nothing too large", () => {
    const cache = new JsonBodyCache<number>(4, 400);
    const first = cache.remember("k", "[1]", 1);
    expect(cache.remember("k", "[2]", 2)).toBe(first);
    const big = cache.remember("big", `"${"x".repeat(200)}"`, 0);
    expect(text(big.body("", "").bytes())).toHaveLength(202);
    expect(cache.get("big")).toBeUndefined();
  });

  it("forgets the least recently used entries past either bound", () => {
    const byCount = new JsonBodyCache<null>(2, 1_000_000);
    byCount.remember("a", "[1]", null);
    byCount.remember("b", "[2]", null);
    byCount.get("a");
    byCount.remember("c", "[3]", null);
    expect([byCount.get("a"), byCount.get("b"), byCount.get("c")].map(Boolean)).toEqual([true, false, true]);

    const byBytes = new JsonBodyCache<null>(100, 100);
    for (const k of ["p", "q", "r", "s", "t"]) byBytes.remember(k, `"${"y".repeat(23)}"`, null);
    expect(["p", "q", "r", "s", "t"].map((k) => Boolean(byBytes.get(k)))).toEqual([false, true, true, true, true]);
    expect(byBytes.holdsAny("t")).toBe(true);
    expect(byBytes.holdsAny("p")).toBe(false);
    byBytes.clear();
    expect(byBytes.holdsAny("")).toBe(false);
  });
});

describe("jsonBodyResponse", () => {
  it("sends gzip only to a client that accepts it, saying so and varying on it", async () => {
    const body = new JsonBodyCache<null>(4, 1_000_000).remember("k", `{"a":1}`, null).body("", "");
    const plain = await jsonBodyResponse(body, false);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("accept-encoding");
    expect(await plain.text()).toBe(`{"a":1}`);
    const zipped = await jsonBodyResponse(body, true);
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(text(gunzipSync(new Uint8Array(await zipped.arrayBuffer())))).toBe(`{"a":1}`);
  });
});
