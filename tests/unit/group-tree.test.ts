import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildTree,
  closureOf,
  decodeCursor,
  encodeCursor,
  MAX_GROUP_DEPTH,
  mergeRootTrees,
  previewRef,
  sortKeyOf,
  splitEntityPath,
  type FlatGroup,
  type GroupTreeNode,
  type MemberCursor,
} from "../../workers/services/library/group-tree";

const id = (n: number) => n.toString(16).padStart(32, "0");

describe("sortKeyOf", () => {
  it("folds Cyrillic and Latin case (SQLite's lower() would not fold Cyrillic)", () => {
    expect(sortKeyOf("Съёмка ЁЖ 2026 ABC")).toBe("съёмка ёж 2026 abc");
  });

  it("keeps emoji and other characters as they are", () => {
    expect(sortKeyOf("🎬 Кадр")).toBe("🎬 кадр");
  });
});

describe("page cursors", () => {
  const cursors: MemberCursor[] = [
    { s: "name", o: "asc", t: "asset", k: "съёмка 🎬.mp4", i: id(1) },
    { s: "mtime", o: "desc", t: "group", k: 1_763_000_000_000, i: id(2) },
    { s: "size", o: "asc", t: "asset", k: 0, i: id(3) },
  ];

  it.each(cursors)("round-trips %j", (cursor) => {
    const text = encodeCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text)).toEqual(cursor);
  });

  it("round-trips any name key", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: "binary" }), fc.constantFrom("asc", "desc"), (k, o) => {
        const cursor: MemberCursor = { s: "name", o: o as "asc" | "desc", t: "asset", k, i: id(7) };
        expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
      }),
      { numRuns: 100 },
    );
  });

  it.each([
    ["empty", ""],
    ["not base64url", "a+b/c="],
    ["not JSON", btoa("nope").replace(/=+$/, "")],
    ["wrong arity", encodeJson(["name", "asc", "asset", "x"])],
    ["unknown sort", encodeJson(["weight", "asc", "asset", "x", id(1)])],
    ["unknown order", encodeJson(["name", "up", "asset", "x", id(1)])],
    ["unknown type", encodeJson(["name", "asc", "user", "x", id(1)])],
    ["bad id", encodeJson(["name", "asc", "asset", "x", "xyz"])],
    ["number key for name", encodeJson(["name", "asc", "asset", 5, id(1)])],
    ["string key for mtime", encodeJson(["mtime", "asc", "asset", "5", id(1)])],
    ["fractional size", encodeJson(["size", "asc", "asset", 1.5, id(1)])],
    ["too long", "a".repeat(3000)],
  ])("rejects a cursor that is %s", (_what, text) => {
    expect(decodeCursor(text)).toBeNull();
  });

  it("never throws on arbitrary input", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const result = decodeCursor(text);
        expect(result === null || typeof result === "object").toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

function encodeJson(value: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

describe("buildTree", () => {
  const rows: FlatGroup[] = [
    { id: id(1), name: "Корень", parentId: null },
    { id: id(4), name: "б", parentId: id(1) },
    { id: id(2), name: "Б", parentId: id(1) },
    { id: id(3), name: "а", parentId: id(1) },
    { id: id(5), name: "внутри", parentId: id(3) },
    { id: id(6), name: "сирота", parentId: id(99) },
  ];

  it("nests children under parents, ordered by name case-insensitively then id", () => {
    const tree = buildTree(rows, id(1))!;
    expect(tree.isRoot).toBe(true);
    expect(tree.subGroups.map((g) => g.group_name)).toEqual(["а", "Б", "б"]);
    expect(tree.subGroups.map((g) => g.element_id)).toEqual([id(3), id(2), id(4)]);
    expect(tree.subGroups[0].subGroups).toEqual([
      { element_id: id(5), group_id: id(3), group_name: "внутри", isRoot: false, isOpen: false, subGroups: [] },
    ]);
  });

  it("leaves out groups whose parent is not listed", () => {
    const tree = buildTree(rows, id(1))!;
    const all: string[] = [];
    const walk = (n: GroupTreeNode) => {
      all.push(n.element_id);
      n.subGroups.forEach(walk);
    };
    walk(tree);
    expect(all).not.toContain(id(6));
    expect(all).toHaveLength(5);
  });

  it("answers null when the root is not in the rows", () => {
    expect(buildTree(rows, id(42))).toBeNull();
  });

  it("handles a chain 10,000 deep without recursion limits", () => {
    const chain: FlatGroup[] = Array.from({ length: 10_000 }, (_, i) => ({
      id: id(i + 1),
      name: `g${i}`,
      parentId: i === 0 ? null : id(i),
    }));
    let node = buildTree(chain, id(1))!;
    let depth = 0;
    while (node.subGroups.length > 0) {
      node = node.subGroups[0];
      depth++;
    }
    expect(depth).toBe(9_999);
  });
});

describe("splitEntityPath", () => {
  it("splits names", () => {
    expect(splitEntityPath("Съёмки/2026/clip 🎬.mp4")).toEqual(["Съёмки", "2026", "clip 🎬.mp4"]);
  });

  it.each(["", "/a", "a/", "a//b", "a/../b", "./a", "a/\u0000", "a/b\u0007", `${"x".repeat(256)}`])("rejects %j", (path) => {
    expect(splitEntityPath(path)).toBeNull();
  });

  it("limits the number of segments", () => {
    expect(
      splitEntityPath(
        Array(MAX_GROUP_DEPTH + 1)
          .fill("a")
          .join("/"),
      ),
    ).toHaveLength(MAX_GROUP_DEPTH + 1);
    expect(
      splitEntityPath(
        Array(MAX_GROUP_DEPTH + 2)
          .fill("a")
          .join("/"),
      ),
    ).toBeNull();
  });
});

describe("previewRef", () => {
  it("points at the asset calls' thumbnail", () => {
    expect(previewRef(id(1), 3)).toBe(`/api/asset/content/preview/${id(1)}/3/thumb`);
  });
});

describe("closureOf", () => {
  it("lists every ancestor pair with its depth, self rows included", () => {
    const parents = new Map<string, string | null>([
      ["r", null],
      ["a", "r"],
      ["b", "a"],
    ]);
    expect([...closureOf(parents)].sort()).toEqual(["a>a>0", "a>b>1", "r>a>1", "r>b>2", "r>r>0", "b>b>0"].sort());
  });

  it("throws on a cycle", () => {
    expect(() =>
      closureOf(
        new Map([
          ["a", "b"],
          ["b", "a"],
        ]),
      ),
    ).toThrow(/cycle/);
  });
});

describe("mergeRootTrees", () => {
  const ROOT = id(0xffff);
  const CAPS = { per_folder: 3, total: 10 };
  type Folder = { id: string; name: string; parent: string; files: number };

  /** What the tree form lists for a tree read whole: each folder's first files, breadth first, within the caps. */
  function capped(folders: Folder[], root: string, adopt: boolean): GroupTreeNode {
    const tree = buildTree(
      [{ id: ROOT, name: "Доступные Файлы", parentId: null }, ...folders.map((f) => ({ id: f.id, name: f.name, parentId: f.parent }))],
      root,
      adopt,
    )!;
    const files = new Map(folders.map((f) => [f.id, f.files]));
    let listed = 0;
    for (let i = 0, queue = [tree]; i < queue.length; i++) {
      const node = queue[i];
      queue.push(...node.subGroups);
      const has = files.get(node.element_id) ?? 0;
      const room = Math.min(CAPS.per_folder, CAPS.total - listed);
      const shown = Math.max(0, Math.min(has, room));
      node.assets = Array.from({ length: shown }, (_, k) => ({
        asset_id: `${node.element_id}:${k}`,
        name: `${k}`,
        mimetype: "image/jpeg",
        ver: 1,
      }));
      node.assets_more = room <= 0 || has > room;
      listed += shown;
    }
    tree.assets_cap = CAPS;
    return tree;
  }

  // Libraries of folders with files; each library's part capped on its own, then merged, equals the whole capped.
  const forest = fc.array(
    fc.array(fc.record({ parent: fc.nat(), name: fc.constantFrom("а", "Б", "в", "A"), files: fc.nat(5) }), { minLength: 1, maxLength: 6 }),
    {
      minLength: 1,
      maxLength: 4,
    },
  );

  it("gives each folder the files the whole tree read at once would, whatever the libraries' parts held", () => {
    fc.assert(
      fc.property(forest, (libraries) => {
        let n = 0;
        const parts = libraries.map((specs) => {
          const folders: Folder[] = [];
          for (const spec of specs) {
            const parent = folders.length === 0 ? ROOT : folders[spec.parent % folders.length].id;
            folders.push({ id: id(++n), name: spec.name, parent, files: spec.files });
          }
          return folders;
        });
        const merged = mergeRootTrees(
          parts.map((folders) => capped(folders, ROOT, false)),
          CAPS,
        );
        expect(merged).toEqual(capped(parts.flat(), ROOT, false));
      }),
    );
  });

  it("without caps, merges the libraries' top folders by name key, then id", () => {
    const part = (folders: Folder[]) => capped(folders, ROOT, false);
    const a = part([{ id: id(2), name: "Видео", parent: ROOT, files: 0 }]);
    const b = part([
      { id: id(1), name: "видео", parent: ROOT, files: 0 },
      { id: id(3), name: "Архив", parent: ROOT, files: 0 },
    ]);
    expect(mergeRootTrees([a, b]).subGroups.map((g) => g.element_id)).toEqual([id(3), id(1), id(2)]);
  });
});
