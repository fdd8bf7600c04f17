import { describe, expect, it } from "vitest";
import { buildTree, visiblePath } from "../../workers/services/library/group-tree";
import { SCREEN_VARIANT_TYPES, variantLevel } from "../../workers/services/library/variant-level";
import { VARIANT_TYPES } from "../../workers/db/schema/variants";

const ROOT = "f".repeat(32);
const node = (id: string) => ({ id, name: id });

describe("visiblePath (breadcrumbs never name a hidden folder)", () => {
  it("keeps the root and the unbroken readable run just above the entity", () => {
    const chain = [node(ROOT), node("projects"), node("shoots"), node("summer")];
    expect(visiblePath(chain, new Set(["shoots", "summer"]), ROOT).map((a) => a.id)).toEqual([ROOT, "shoots", "summer"]);
    // A readable folder above a hidden one is cut off too: the path would lead nowhere.
    expect(visiblePath(chain, new Set(["projects", "summer"]), ROOT).map((a) => a.id)).toEqual([ROOT, "summer"]);
    expect(visiblePath(chain, new Set(["projects", "shoots", "summer"]), ROOT).map((a) => a.id)).toEqual([
      ROOT,
      "projects",
      "shoots",
      "summer",
    ]);
    // The entity itself is always there (the caller read it to ask).
    expect(visiblePath(chain, new Set(), ROOT).map((a) => a.id)).toEqual([ROOT, "summer"]);
    expect(visiblePath([node(ROOT)], new Set(), ROOT).map((a) => a.id)).toEqual([ROOT]);
  });
});

describe("buildTree with adoptOrphans", () => {
  const rows = [
    { id: ROOT, name: "Доступные Файлы", parentId: null },
    { id: "shoots", name: "Фотосессии", parentId: "hidden" },
    { id: "summer", name: "Лето", parentId: "shoots" },
  ];
  it("hangs a group whose parent is hidden on the root, as the root listing shows it", () => {
    const tree = buildTree(rows, ROOT, true)!;
    expect(tree.subGroups.map((n) => [n.element_id, n.group_id])).toEqual([["shoots", ROOT]]);
    expect(tree.subGroups[0].subGroups.map((n) => n.element_id)).toEqual(["summer"]);
  });
  it("drops it without adoption (a subtree of a folder never shows a folder that is not in it)", () => {
    expect(buildTree(rows, ROOT)!.subGroups).toEqual([]);
  });
});

describe("variantLevel", () => {
  it("screen renditions need read, originals download", () => {
    for (const type of VARIANT_TYPES) expect(variantLevel(type)).toBe(SCREEN_VARIANT_TYPES.includes(type) ? "read" : "download");
    expect(["initial", "master", "untyped"].map((t) => variantLevel(t as (typeof VARIANT_TYPES)[number]))).toEqual([
      "download",
      "download",
      "download",
    ]);
    expect(["proxy_lowres", "proxy_highres"].map((t) => variantLevel(t as (typeof VARIANT_TYPES)[number]))).toEqual(["read", "read"]);
  });
});
