import { describe, expect, it } from "vitest";
import { open, seal, SecretBoxError, STORAGE_CREDS_INFO } from "../../workers/lib/secret-box";

const SECRET = "unit-test-secret-0123456789-abcdefghijklmnop";

/** Flips one bit of the base64url part `index` (1: IV, 2: ciphertext) of a sealed value. */
function tamper(sealed: string, index: 1 | 2, at = 0): string {
  const parts = sealed.split(".");
  const bytes = Buffer.from(parts[index], "base64url");
  bytes[at % bytes.length] ^= 0x01;
  parts[index] = bytes.toString("base64url");
  return parts.join(".");
}

describe("secret box (AES-256-GCM, HKDF-SHA-256 key)", () => {
  it("round-trips text, Unicode included", async () => {
    const plaintext = JSON.stringify({ user: "AKIA…", passwd: "секрет/+=", token: "🎬" });
    const sealed = await seal(SECRET, plaintext);
    expect(await open(SECRET, sealed)).toBe(plaintext);
  });

  it("never stores the plaintext and uses a fresh 12-byte IV each time", async () => {
    const a = await seal(SECRET, "passwd-123");
    const b = await seal(SECRET, "passwd-123");
    expect(a).not.toBe(b);
    for (const sealed of [a, b]) {
      expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
      expect(sealed).not.toContain("passwd");
      expect(Buffer.from(sealed.split(".")[1], "base64url")).toHaveLength(12);
      // 10 bytes of plaintext + the 16-byte GCM tag
      expect(Buffer.from(sealed.split(".")[2], "base64url")).toHaveLength(26);
    }
  });

  it("round-trips with a context bound as additional data", async () => {
    const sealed = await seal(SECRET, "x", { context: "storage-1" });
    expect(await open(SECRET, sealed, { context: "storage-1" })).toBe("x");
  });

  it("detects a changed ciphertext, tag or IV", async () => {
    const sealed = await seal(SECRET, "the credentials");
    await expect(open(SECRET, tamper(sealed, 2, 0))).rejects.toBeInstanceOf(SecretBoxError);
    await expect(open(SECRET, tamper(sealed, 2, 30))).rejects.toBeInstanceOf(SecretBoxError); // in the tag
    await expect(open(SECRET, tamper(sealed, 1, 5))).rejects.toBeInstanceOf(SecretBoxError);
  });

  it("refuses another secret, another context, or another HKDF label", async () => {
    const sealed = await seal(SECRET, "x", { context: "storage-1" });
    await expect(open(`${SECRET}!`, sealed, { context: "storage-1" })).rejects.toBeInstanceOf(SecretBoxError);
    await expect(open(SECRET, sealed, { context: "storage-2" })).rejects.toBeInstanceOf(SecretBoxError);
    await expect(open(SECRET, sealed)).rejects.toBeInstanceOf(SecretBoxError);
    await expect(open(SECRET, sealed, { context: "storage-1", info: `${STORAGE_CREDS_INFO}x` })).rejects.toBeInstanceOf(SecretBoxError);
  });

  it.each(["", "v1", "v1..", "v2.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA", "v1.AAAA.AAAAAAAAAAAAAAAAAAAAAA", "v1.AAAAAAAAAAAAAAAA.AAAA", "v1.!!!!.????", "a.b.c.d"])(
    "refuses the malformed value %j",
    async (value) => {
      await expect(open(SECRET, value)).rejects.toBeInstanceOf(SecretBoxError);
    },
  );

  it("derives the key with HKDF-SHA-256 (empty salt, the storage label) — checked against an independent derivation", async () => {
    const { hkdfSync, createDecipheriv } = await import("node:crypto");
    const sealed = await seal(SECRET, "interop", { context: "ctx" });
    const [, ivText, dataText] = sealed.split(".");
    const key = Buffer.from(hkdfSync("sha256", SECRET, Buffer.alloc(0), STORAGE_CREDS_INFO, 32));
    const data = Buffer.from(dataText, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(ivText, "base64url"));
    decipher.setAAD(Buffer.from("ctx"));
    decipher.setAuthTag(data.subarray(data.length - 16));
    const plain = Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]);
    expect(plain.toString("utf8")).toBe("interop");
  });
});
