import { describe, expect, it } from "vitest";
import { localNameOf } from "../../helper/conflict-name";
import { MountBodySchema } from "../../helper/schemas";
import { invisibleCharIn, withoutInvisibleChars } from "../../shared/visible-name";

describe("invisible and direction-changing characters in names (issue 24)", () => {
  it.each([
    ["\u202Egpj.exe", "U+202E"],
    ["a\u200Bb", "U+200B"],
    ["x\u2066y\u2069", "U+2066"],
    ["\u2069", "U+2069"],
    ["\uFEFFотчёт.docx", "U+FEFF"],
    ["мяг\u00ADкий", "U+00AD"],
    ["a\u200Db", "U+200D"],
    ["left\u200Eright", "U+200E"],
    ["\u061C", "U+061C"],
    ["tag\u{E0041}", "U+E0041"],
    ["\u3164", "U+3164"],
    ["line\u2028break", "U+2028"],
  ])("finds %j as %s", (name, char) => {
    expect(invisibleCharIn(name)).toBe(char);
  });

  it.each(["Съёмка 2026 🎬", "Семья 👨‍👩‍👧.jpg", "❤️‍🔥", "👍🏽", "日本語 ファイル", "a b\u00A0c", "עברית.txt", "Ёлка_(2).png"])("leaves %j alone", (name) => {
    expect(invisibleCharIn(name)).toBeNull();
    expect(withoutInvisibleChars(name)).toBe(name);
  });

  it("the disk helper never writes a misleading local name, and refuses one for a mount", () => {
    expect(localNameOf("\u202Egpj.exe")).toBe("_gpj.exe");
    expect(localNameOf("a\u200Bb.txt")).toBe("a_b.txt");
    expect(localNameOf("Семья 👨‍👩‍👧.jpg")).toBe("Семья 👨‍👩‍👧.jpg");
    expect(MountBodySchema.safeParse({ group_id: "0".repeat(32), name: "Фото\u202E" }).success).toBe(false);
    expect(MountBodySchema.safeParse({ group_id: "0".repeat(32), name: "Фото" }).success).toBe(true);
  });
});
