import { describe, expect, it } from "vitest";
import { toBase64 } from "../../workers/lib/crypto";
import { decoyPasswordHash, hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "../../workers/lib/password";

describe("hashPassword / verifyPassword", () => {
  it("stores algorithm, iterations, salt and hash, and verifies the right password only", async () => {
    const stored = await hashPassword("s3cret пароль");
    const [algorithm, iterations, salt, hash] = stored.split("$");
    expect(algorithm).toBe("pbkdf2-sha256");
    expect(Number(iterations)).toBe(PBKDF2_ITERATIONS);
    expect(atob(salt)).toHaveLength(16);
    expect(atob(hash)).toHaveLength(32);
    expect(await verifyPassword("s3cret пароль", stored)).toBe(true);
    expect(await verifyPassword("s3cret пароль ", stored)).toBe(false);
    expect(await verifyPassword("", stored)).toBe(false);
  });

  it("never exceeds the 100,000 iterations production Workers allow", () => {
    expect(PBKDF2_ITERATIONS).toBeLessThanOrEqual(100_000);
  });

  it("salts each hash differently", async () => {
    expect(await hashPassword("same")).not.toBe(await hashPassword("same"));
  });

  it("verifies hashes with fewer iterations (so the count can be upgraded later)", async () => {
    const salt = new Uint8Array(16).fill(7);
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode("old"), "PBKDF2", false, ["deriveBits"]);
    const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations: 1000 }, key, 256);
    const stored = `pbkdf2-sha256$1000$${toBase64(salt)}$${toBase64(new Uint8Array(bits))}`;
    expect(await verifyPassword("old", stored)).toBe(true);
    expect(await verifyPassword("new", stored)).toBe(false);
  });

  it.each([
    ["null", null],
    ["undefined", undefined],
    ["empty", ""],
    ["another algorithm", "bcrypt$10$abc$def"],
    ["too few parts", "pbkdf2-sha256$100000$abc"],
    ["too many parts", "pbkdf2-sha256$100000$abc$def$ghi"],
    ["non-numeric iterations", "pbkdf2-sha256$many$AAAA$AAAA"],
    ["zero iterations", "pbkdf2-sha256$0$AAAA$AAAA"],
    ["fractional iterations", "pbkdf2-sha256$1.5$AAAA$AAAA"],
    ["more iterations than allowed", `pbkdf2-sha256$${PBKDF2_ITERATIONS + 1}$AAAA$AAAA`],
    ["a hash of the wrong length", "pbkdf2-sha256$1000$AAAAAAAAAAAAAAAAAAAAAA==$AAAA"],
  ])("never matches a malformed hash (%s)", async (_what, stored) => {
    expect(await verifyPassword("anything", stored)).toBe(false);
  });

  it("answers false (does not throw) for invalid base64 in the salt or hash", async () => {
    await expect(verifyPassword("x", "pbkdf2-sha256$1000$***$AAAA")).resolves.toBe(false);
    await expect(verifyPassword("x", "pbkdf2-sha256$1000$AAAA$***")).resolves.toBe(false);
  });
});

describe("decoyPasswordHash", () => {
  it("is a valid hash of an unknown password, computed once", async () => {
    const decoy = await decoyPasswordHash();
    expect(decoy).toMatch(/^pbkdf2-sha256\$100000\$/);
    expect(await decoyPasswordHash()).toBe(decoy);
    expect(await verifyPassword("", decoy)).toBe(false);
  });
});
