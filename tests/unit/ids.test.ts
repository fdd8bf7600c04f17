import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ID_PATTERN, MAX_SHARD, newId, newShardedId, ROOT_GROUP_ID, shardOfId, toHex } from "../../workers/lib/ids";

describe("newId", () => {
  it("is 32 lowercase hex characters in UUIDv7 layout", () => {
    for (let i = 0; i < 100; i++) {
      const id = newId();
      expect(id).toMatch(ID_PATTERN);
      expect(id[12]).toBe("7"); // version nibble
      expect("89ab").toContain(id[16]); // RFC 4122 variant
    }
  });

  it("starts with the 48-bit millisecond timestamp", () => {
    const now = Date.UTC(2026, 10, 22, 10, 15, 0, 123);
    expect(newId(now).slice(0, 12)).toBe(now.toString(16).padStart(12, "0"));
  });

  it("sorts by creation time", () => {
    const ids = [0, 1, 2, 1000, 86_400_000, 10 ** 12].map((offset) => newId(1_700_000_000_000 + offset));
    expect([...ids].sort()).toEqual(ids);
  });

  it("is unique within the same millisecond", () => {
    const now = Date.now();
    const ids = new Set(Array.from({ length: 1000 }, () => newId(now)));
    expect(ids.size).toBe(1000);
  });
});

describe("ROOT_GROUP_ID and ID_PATTERN", () => {
  it("the virtual root is 32 'f' and matches the id format", () => {
    expect(ROOT_GROUP_ID).toBe("ffffffffffffffffffffffffffffffff");
    expect(ROOT_GROUP_ID).toMatch(ID_PATTERN);
  });

  it.each(["", "F".repeat(32), "g".repeat(32), "a".repeat(31), "a".repeat(33), "0193-6f0c8a4b7c3d9e2f0a1b2c3d4e5f"])(
    "rejects %j",
    (value) => {
      expect(ID_PATTERN.test(value)).toBe(false);
    },
  );
});

describe("toHex", () => {
  it("pads every byte to two digits", () => {
    expect(toHex(new Uint8Array([0, 1, 15, 16, 255]))).toBe("00010f10ff");
    expect(toHex(new Uint8Array())).toBe("");
  });
});

describe("newShardedId and shardOfId (decision 043)", () => {
  const shard = fc.integer({ min: 0, max: MAX_SHARD });
  const ms = fc.integer({ min: 0, max: 2 ** 48 - 1 });

  it("carries its shard and its millisecond, in the id format, version 8 with the RFC variant", () => {
    fc.assert(
      fc.property(shard, ms, (n, now) => {
        const id = newShardedId(n, now);
        expect(id).toMatch(ID_PATTERN);
        expect(id[12]).toBe("8");
        expect("89ab").toContain(id[16]);
        expect(id.slice(0, 12)).toBe(now.toString(16).padStart(12, "0"));
        expect(shardOfId(id)).toBe(n);
      }),
    );
  });

  it("sorts by creation time with ids minted before sharding, whatever the shard", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(ms, fc.option(shard)), { minLength: 2, maxLength: 20 }), (made) => {
        const ids = made.map(([now, n]) => ({ now, id: n === null ? newId(now) : newShardedId(n, now) }));
        const byId = [...ids].sort((a, b) => (a.id < b.id ? -1 : 1)).map((x) => x.now);
        expect(byId).toEqual([...byId].sort((a, b) => a - b));
      }),
    );
  });

  it("keeps 50 random bits: ids of one shard in one millisecond do not collide", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newShardedId(MAX_SHARD, 1_700_000_000_000)));
    expect(ids.size).toBe(1000);
  });

  it("names no shard for ids minted before sharding, the root, or what is not an id", () => {
    expect(shardOfId(newId())).toBeNull();
    expect(shardOfId(ROOT_GROUP_ID)).toBeNull();
    expect(shardOfId("8".repeat(31))).toBeNull();
    expect(shardOfId("X".repeat(32))).toBeNull();
  });

  it.each([-1, 1.5, MAX_SHARD + 1, Number.NaN])("refuses shard %s", (n) => {
    expect(() => newShardedId(n)).toThrow(RangeError);
  });
});
