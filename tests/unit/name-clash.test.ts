import { describe, expect, it } from "vitest";
import type { PickedFile } from "../../app/lib/upload-engine/pick";
import { isLoose, resolveClashes, type AskClash, type ClashAnswer, type NameMatch } from "../../app/lib/upload-engine/name-clash";

/** The same-name rule of an upload batch: who is asked, how often, and what gets queued. */

const file = (name: string, folders: string[] = []): PickedFile => ({ file: new File(["x"], name), folders });
const match = (name: string, id: string): [string, NameMatch] => [name.toLowerCase(), { name, asset_id: id, asset_name: name, ver: 1 }];

/** An asker that answers from a script and records what it was asked. */
function scripted(answers: (ClashAnswer | null)[]) {
  const asked: { name: string; pending: string[] }[] = [];
  const ask: AskClash = async (name, pending) => {
    asked.push({ name, pending });
    return answers.shift() ?? null;
  };
  return { ask, asked };
}

describe("resolveClashes", () => {
  const clashes = new Map([match("a.jpg", "A".repeat(32)), match("b.jpg", "B".repeat(32))]);

  it("asks once for the whole batch when the answer applies to all: every clash becomes a new version", async () => {
    const batch = [file("a.jpg"), file("new.jpg"), file("B.JPG")];
    const { ask, asked } = scripted([{ choice: "version", all: true }]);
    const out = await resolveClashes(batch, clashes, ask);
    expect(asked).toEqual([{ name: "a.jpg", pending: ["a.jpg", "B.JPG"] }]);
    expect(out.map((p) => [p.file.name, p.versionOf ?? null])).toEqual([
      ["a.jpg", "A".repeat(32)],
      ["new.jpg", null],
      ["B.JPG", "B".repeat(32)],
    ]);
  });

  it("skip for all queues only the files without a clash; keep both queues everything as new files", async () => {
    const batch = [file("a.jpg"), file("b.jpg"), file("c.jpg")];
    expect((await resolveClashes(batch, clashes, scripted([{ choice: "skip", all: true }]).ask)).map((p) => p.file.name)).toEqual(["c.jpg"]);
    const both = await resolveClashes(batch, clashes, scripted([{ choice: "both", all: true }]).ask);
    expect(both.map((p) => [p.file.name, p.versionOf])).toEqual([
      ["a.jpg", undefined],
      ["b.jpg", undefined],
      ["c.jpg", undefined],
    ]);
  });

  it("asks about each clash in turn while the answers are not for all; a closed dialog skips that file", async () => {
    const batch = [file("a.jpg"), file("b.jpg")];
    const { ask, asked } = scripted([{ choice: "version", all: false }, null]);
    const out = await resolveClashes(batch, clashes, ask);
    expect(asked.map((q) => q.name)).toEqual(["a.jpg", "b.jpg"]);
    expect(asked[1].pending).toEqual(["b.jpg"]);
    expect(out.map((p) => p.file.name)).toEqual(["a.jpg"]);
  });

  it("never asks about files of dropped sub-folders nor files already meant as a new version", async () => {
    const batch = [file("a.jpg", ["Съёмка"]), { ...file("b.jpg"), versionOf: "C".repeat(32) }];
    const { ask, asked } = scripted([]);
    const out = await resolveClashes(batch, clashes, ask);
    expect(asked).toEqual([]);
    expect(out).toEqual(batch);
    expect(batch.map(isLoose)).toEqual([false, false]);
  });
});
