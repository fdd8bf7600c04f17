import { describe, expect, it } from "vitest";
import { conflictName, uniqueName } from "../../helper/conflict-name";

const day = new Date("2026-11-26T15:00:00Z");

describe("conflictName", () => {
  it("puts the day before the extension", () => {
    expect(conflictName("Отчёт.docx", day, () => false)).toBe("Отчёт (конфликт 2026-11-26).docx");
  });

  it("numbers a second conflict of the same day", () => {
    const taken = new Set(["Отчёт (конфликт 2026-11-26).docx"]);
    expect(conflictName("Отчёт.docx", day, (n) => taken.has(n))).toBe("Отчёт (конфликт 2026-11-26 2).docx");
  });

  it("treats a name without an extension, or with only a leading dot, as all stem", () => {
    expect(conflictName("README", day, () => false)).toBe("README (конфликт 2026-11-26)");
    expect(conflictName(".env", day, () => false)).toBe(".env (конфликт 2026-11-26)");
    expect(conflictName("архив.tar.gz", day, () => false)).toBe("архив.tar (конфликт 2026-11-26).gz");
  });
});

describe("uniqueName", () => {
  it("answers the name itself when free, else the first free numbered name", () => {
    expect(uniqueName("a.txt", () => false)).toBe("a.txt");
    const taken = new Set(["a.txt", "a (2).txt"]);
    expect(uniqueName("a.txt", (n) => taken.has(n))).toBe("a (3).txt");
  });
});
