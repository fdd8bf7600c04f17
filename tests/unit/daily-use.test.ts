import { describe, expect, it } from "vitest";
import { keepBothCandidates, keepBothName } from "../../app/lib/upload-engine/keep-both-name";
import { nameKeptBoth } from "../../app/lib/upload-engine/name-clash";
import type { PickedFile } from "../../app/lib/upload-engine/pick";
import { moveFocus } from "../../app/lib/selection";
import { MARK_END as E, MARK_START as S } from "../../workers/db/repositories/search.repository";
import { foldYo, restoreSnippet } from "../../workers/services/search/snippet";

/** Issue 28, a day of real use: the pure pieces. */

describe("keepBothName («Оставить оба»)", () => {
  it("numbers the new file before its extension, from (2) on, skipping taken names case-insensitively", () => {
    expect(keepBothName("diagram_1.png", () => false)).toBe("diagram_1 (2).png");
    const taken = new Set(["diagram_1 (2).png", "diagram_1 (3).png"]);
    expect(keepBothName("diagram_1.PNG", (n) => taken.has(n))).toBe("diagram_1 (4).PNG");
  });

  it("numbers a name without an extension, or one that is all extension, at its end", () => {
    expect(keepBothName("README", () => false)).toBe("README (2)");
    expect(keepBothName(".env", () => false)).toBe(".env (2)");
    expect(keepBothName("архив.tar.gz", () => false)).toBe("архив.tar (2).gz");
    expect(keepBothCandidates("a.txt", 5, 2)).toEqual(["a (5).txt", "a (6).txt"]);
  });
});

describe("nameKeptBoth", () => {
  const picked = (name: string, keepBoth = false): PickedFile => ({ file: new File(["x"], name), folders: [], keepBoth: keepBoth || undefined });

  it("gives each kept-both file the first name free in the folder and in the batch; other files keep theirs", async () => {
    const folder = new Set(["diagram_1.png", "diagram_1 (2).png", "b.png"]);
    const asked: string[][] = [];
    const out = await nameKeptBoth(
      [picked("diagram_1.png", true), picked("diagram_1 (3).png"), picked("b.png", true), picked("c.png")],
      async (names) => {
        asked.push([...names]);
        return new Set(names.map((n) => n.toLowerCase()).filter((n) => folder.has(n)));
      },
    );
    expect(out.map((p) => p.file.name)).toEqual(["diagram_1 (4).png", "diagram_1 (3).png", "b (2).png", "c.png"]);
    expect(out.every((p) => !p.keepBoth)).toBe(true);
    // The batch's own «diagram_1 (3).png» is never asked about: it is taken already.
    expect(asked[0]).not.toContain("diagram_1 (3).png");
    expect(await out[0].file.text()).toBe("x");
  });

  it("asks for further numbers when the first ten are all taken", async () => {
    const out = await nameKeptBoth([picked("a.txt", true)], async (names) => new Set(names.filter((n) => !n.includes("(12)")).map((n) => n.toLowerCase())));
    expect(out[0].file.name).toBe("a (12).txt");
  });
});

describe("restoreSnippet (search snippets in the original's ё)", () => {
  const text = "Итоги дня. Отчёт по съёмке на пляже: всё готово, Ёлки тоже.";

  it("reads a folded snippet back from the original text, marks kept", () => {
    expect(foldYo(text)).toBe("Итоги дня. Отчет по съемке на пляже: все готово, Елки тоже.");
    expect(restoreSnippet(text, `Итоги дня. ${S}Отчет${E} по ${S}съемке${E} на пляже: все готово, Елки тоже.`)).toBe(
      `Итоги дня. ${S}Отчёт${E} по ${S}съёмке${E} на пляже: всё готово, Ёлки тоже.`,
    );
  });

  it("keeps the cuts FTS5 marks with «…» and places the run inside the text", () => {
    expect(restoreSnippet(text, `…${S}Отчет${E} по съемке…`)).toBe(`…${S}Отчёт${E} по съёмке…`);
    expect(restoreSnippet(text, `…все готово, ${S}Елки${E} тоже.`)).toBe(`…всё готово, ${S}Ёлки${E} тоже.`);
  });

  it("answers a snippet it cannot place, or of a text without ё, as it is", () => {
    expect(restoreSnippet(text, `${S}чужой${E} текст`)).toBe(`${S}чужой${E} текст`);
    expect(restoreSnippet("Отчет", `${S}Отчет${E}`)).toBe(`${S}Отчет${E}`);
  });
});

describe("moveFocus PageUp/PageDown", () => {
  it("moves by whole rows of a screenful, keeping the column, and stops at the first or last row", () => {
    // 4 columns, 30 items, a page of 8 (two rows)
    expect(moveFocus(1, "PageDown", 4, 30, 8)).toBe(9);
    expect(moveFocus(25, "PageDown", 4, 30, 8)).toBe(29);
    expect(moveFocus(27, "PageDown", 4, 30, 8)).toBe(29);
    expect(moveFocus(9, "PageUp", 4, 30, 8)).toBe(1);
    expect(moveFocus(5, "PageUp", 4, 30, 8)).toBe(1);
    expect(moveFocus(3, "PageDown", 1, 5, 10)).toBe(4);
  });
});
