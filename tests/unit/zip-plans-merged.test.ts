import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { uniqueEntryPath } from "../../workers/lib/zip-stream";
import { mergeZipPlans, type PlannedFile, type ZipPlan } from "../../workers/services/archive/zip-plan.service";

/** A plan as one library's planner makes it: paths unique within it (`uniqueEntryPath`), each file one entry. */
function planOf(entries: readonly { dir: string; name: string }[], extra: Partial<ZipPlan> = {}): ZipPlan {
  const taken = new Set<string>();
  const files: PlannedFile[] = entries.map(({ dir, name }, i) => ({
    assetId: `${dir}-${name}-${i}`,
    path: uniqueEntryPath(dir, name, taken),
    mtime: 0,
    size: 10,
    name,
    folderId: dir || null,
  }));
  return { files, skipped: [], bytes: files.length * 10, overflow: false, name: ru.zip.defaultName, ...extra };
}

describe("plans of several libraries merged into one archive", () => {
  it("renames a top-level folder or file another library's plan took, with everything below it", () => {
    const first = planOf([
      { dir: "Исходники", name: "a.jpg" },
      { dir: "", name: "Обложка.png" },
    ]);
    const second = planOf([
      { dir: "исходники", name: "a.jpg" },
      { dir: "исходники/Звук", name: "b.wav" },
      { dir: "", name: "обложка.PNG" },
      { dir: "Прочее", name: "c.txt" },
    ]);
    const merged = mergeZipPlans([first, second], 100);
    expect(merged.files.map((f) => f.path)).toEqual([
      "Исходники/a.jpg",
      "Обложка.png",
      "исходники (2)/a.jpg",
      "исходники (2)/Звук/b.wav",
      "обложка (2).PNG",
      "Прочее/c.txt",
    ]);
    expect(merged.bytes).toBe(60);
    expect(merged.name).toBe(ru.zip.defaultName);
  });

  it("carries the variants only when every plan does, and overflows past the limit over all of them", () => {
    const variant = { asset_id: "x", id: "v", storage_key: "k", content_size: 1 } as unknown as NonNullable<ZipPlan["variants"]>[number];
    const a = planOf([{ dir: "", name: "a" }], { variants: [variant] });
    const b = planOf([{ dir: "", name: "b" }], { variants: [] });
    expect(mergeZipPlans([a, b], 10).variants).toEqual([variant]);
    expect(mergeZipPlans([a, planOf([{ dir: "", name: "c" }])], 10).variants).toBeUndefined();
    expect(mergeZipPlans([a, b], 1).overflow).toBe(true);
    expect(mergeZipPlans([a, planOf([], { overflow: true })], 10).overflow).toBe(true);
    expect(mergeZipPlans([a], 10)).toBe(a);
  });

  it("keeps every file once, under its own folder, at a path no other entry has (any names, any libraries)", () => {
    const segment = fc.constantFrom("a", "A", "a.jpg", "A.JPG", "a (2).jpg", "Папка", "папка", "b.txt", "x");
    const entry = fc.record({ dir: fc.array(segment, { maxLength: 2 }).map((parts) => parts.join("/")), name: segment });
    fc.assert(
      fc.property(fc.array(fc.array(entry, { maxLength: 6 }), { minLength: 1, maxLength: 4 }), (libraries) => {
        const plans = libraries.map((entries) => planOf(entries));
        const merged = mergeZipPlans(plans, 1000);
        const paths = merged.files.map((f) => f.path.toLowerCase());
        expect(new Set(paths).size).toBe(paths.length);
        expect(merged.files.map((f) => f.assetId)).toEqual(plans.flatMap((p) => p.files.map((f) => f.assetId)));
        // Only the top-level entry may change: what lies below it stays as its library planned it.
        const below = (path: string) => path.slice(path.indexOf("/") + 1);
        plans
          .flatMap((p) => p.files)
          .forEach((file, i) => {
            if (file.path.includes("/")) expect(below(merged.files[i]!.path)).toBe(below(file.path));
          });
      }),
    );
  });
});
