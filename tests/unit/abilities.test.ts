import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { ACTION_LEVELS, canDo, denial, denialForAll, memberLevels, moveDenial, type Action } from "../../app/lib/abilities";
import { moveFocus, neighbours, selectRange, toggleOne } from "../../app/lib/selection";

const ACTIONS = Object.keys(ACTION_LEVELS) as Action[];

describe("canDo", () => {
  it("lets read alone do nothing that changes anything", () => {
    for (const action of ACTIONS) expect(canDo(["read"], action)).toBe(false);
  });

  it("asks for the level the API checks for each call", () => {
    expect(canDo(["read", "update"], "rename")).toBe(true);
    expect(canDo(["read", "update"], "tags")).toBe(true);
    expect(canDo(["read", "update"], "delete")).toBe(false);
    expect(canDo(["read", "create"], "upload")).toBe(true);
    expect(canDo(["read", "create"], "createFolder")).toBe(true);
    expect(canDo(["read", "delete"], "move")).toBe(true);
    expect(canDo(["read", "delete"], "restore")).toBe(true);
    expect(canDo(["acl"], "access")).toBe(true);
    expect(canDo(["acl"], "share")).toBe(false); // sharing needs read as well (decision 012)
    expect(canDo(["read", "acl"], "share")).toBe(true);
    expect(canDo(["download"], "copy")).toBe(false); // copying needs read and download
    expect(canDo(["read", "download"], "copy")).toBe(true);
    expect(canDo(["download"], "download")).toBe(true);
  });

  it("treats superuser as every level", () => {
    for (const action of ACTIONS) expect(canDo(["superuser"], action)).toBe(true);
  });

  it("allows nothing while the levels are unknown", () => {
    expect(canDo(null, "rename")).toBe(false);
    expect(canDo(undefined, "rename")).toBe(false);
  });
});

describe("moveDenial", () => {
  it("needs delete on the folder left and acl on every moved item (decision 026)", () => {
    const mine = { levels: ["read", "acl"], kind: "asset" as const };
    const foreign = { levels: ["read", "update", "delete"], kind: "asset" as const };
    expect(moveDenial(["read"], [mine])).toBe(ru.rights.denied.move("group"));
    expect(moveDenial(["read", "delete"], [mine])).toBeNull();
    expect(moveDenial(["read", "delete"], [foreign])).toBe(ru.rights.denied.relist("asset"));
    expect(moveDenial(["read", "delete"], [mine, foreign])).toBe(ru.rights.deniedSelection.relist);
    expect(moveDenial(["read", "delete"], [{ levels: ["superuser"], kind: "group" }])).toBeNull();
  });
});

describe("denial", () => {
  it("answers null when allowed and a Russian reason otherwise", () => {
    expect(denial(["read", "create"], "upload", "group")).toBeNull();
    expect(denial(["read"], "upload", "group")).toBe("Нет права на запись в эту папку");
    expect(denial(["read"], "delete", "asset")).toBe("Нет права на удаление этого файла");
    expect(denial(["read"], "rename", "group")).toBe("Нет права на изменение этой папки");
  });

  it("says the rights are being checked while they are unknown", () => {
    expect(denial(null, "delete", "asset")).toBe(ru.rights.checking);
  });

  it("speaks of the selection for several items and of the item for one", () => {
    const writable = { levels: ["read", "delete"], kind: "asset" as const };
    const readOnly = { levels: ["read"], kind: "group" as const };
    expect(denialForAll([writable, writable], "delete")).toBeNull();
    expect(denialForAll([readOnly], "delete")).toBe("Нет права на удаление этой папки");
    expect(denialForAll([writable, readOnly], "delete")).toBe(ru.rights.deniedSelection.delete);
    expect(denialForAll([writable, { levels: null, kind: "asset" }], "delete")).toBe(ru.rights.checking);
  });
});

describe("memberLevels", () => {
  it("prefers the member's own answer and falls back to the folder's levels", () => {
    const own = new Map([["a", ["read"]]]);
    expect(memberLevels(own, ["read", "delete"], "a")).toEqual(["read"]);
    expect(memberLevels(own, ["read", "delete"], "b")).toEqual(["read", "delete"]);
    expect(memberLevels(own, null, "b")).toBeNull();
  });
});

describe("selection", () => {
  const order = ["a", "b", "c", "d", "e"];

  it("adds the range between the anchor and the clicked item, either direction", () => {
    expect([...selectRange(order, new Set(), "b", "d")].sort()).toEqual(["b", "c", "d"]);
    expect([...selectRange(order, new Set(["a"]), "d", "b")].sort()).toEqual(["a", "b", "c", "d"]);
  });

  it("adds only the clicked item without an anchor on screen", () => {
    expect([...selectRange(order, new Set(), null, "c")]).toEqual(["c"]);
    expect([...selectRange(order, new Set(), "gone", "c")]).toEqual(["c"]);
  });

  it("toggles one item", () => {
    expect([...toggleOne(new Set(["a"]), "a")]).toEqual([]);
    expect([...toggleOne(new Set(["a"]), "b")].sort()).toEqual(["a", "b"]);
  });

  it("moves focus within the grid without wrapping", () => {
    // 5 items in 2 columns: a b / c d / e
    expect(moveFocus(-1, "ArrowDown", 2, 5)).toBe(0);
    expect(moveFocus(0, "ArrowRight", 2, 5)).toBe(1);
    expect(moveFocus(1, "ArrowDown", 2, 5)).toBe(3);
    expect(moveFocus(3, "ArrowDown", 2, 5)).toBe(3); // nothing below d
    expect(moveFocus(2, "ArrowDown", 2, 5)).toBe(4);
    expect(moveFocus(4, "ArrowUp", 2, 5)).toBe(2);
    expect(moveFocus(0, "ArrowLeft", 2, 5)).toBe(0);
    expect(moveFocus(4, "ArrowRight", 2, 5)).toBe(4);
    expect(moveFocus(2, "End", 2, 5)).toBe(4);
    expect(moveFocus(2, "Home", 2, 5)).toBe(0);
    expect(moveFocus(0, "ArrowDown", 1, 0)).toBe(-1);
  });

  it("finds a file's neighbours", () => {
    expect(neighbours(order, "a")).toEqual({ prev: null, next: "b", index: 0 });
    expect(neighbours(order, "c")).toEqual({ prev: "b", next: "d", index: 2 });
    expect(neighbours(order, "e")).toEqual({ prev: "d", next: null, index: 4 });
    expect(neighbours(order, "x")).toEqual({ prev: null, next: null, index: -1 });
  });
});
