import fc from "fast-check";
import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Sha256 } from "../../workers/services/uploads/multipart-hash";

const native = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

describe("Sha256 (resumable)", () => {
  it("matches SHA-256 at every padding boundary", () => {
    for (const n of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000, 70_000]) {
      const data = randomBytes(n);
      expect(new Sha256().update(data).hex(), `${n} bytes`).toBe(native(data));
    }
    expect(new Sha256().update(new TextEncoder().encode("abc")).hex()).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  it("gives the same hash however the bytes are split and wherever the state is saved and resumed (JSON round trip)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.array(fc.nat({ max: 600 }), { maxLength: 5 }), (data, cuts) => {
        const points = [...new Set(cuts.map((c) => Math.min(c, data.length)))].sort((a, b) => a - b);
        let hash = new Sha256();
        let from = 0;
        for (const at of points) {
          hash.update(data.subarray(from, at));
          hash = Sha256.resume(JSON.parse(JSON.stringify(hash.save())));
          from = at;
        }
        hash.update(data.subarray(from));
        expect(hash.bytes).toBe(data.length);
        expect(hash.hex()).toBe(native(data));
      }),
    );
  });

  it("refuses a malformed state", () => {
    expect(() => Sha256.resume({ h: [1, 2], bytes: 0, tail: "" })).toThrow(/malformed/);
    expect(() => Sha256.resume({ h: [0, 0, 0, 0, 0, 0, 0, 0], bytes: 3, tail: "00" })).toThrow(/malformed/);
    expect(() => Sha256.resume({ h: [0, 0, 0, 0, 0, 0, 0, 0], bytes: 1, tail: "zz" })).toThrow(/malformed/);
  });
});
