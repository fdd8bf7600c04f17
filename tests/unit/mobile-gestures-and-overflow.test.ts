import { describe, expect, it } from "vitest";
import { hideOrder } from "../../app/components/overflow-menu";
import { swipeDirection } from "../../app/lib/use-swipe";

describe("swipeDirection: which finger moves step through the folder", () => {
  it("a wide move to the left or right is a swipe that way", () => {
    expect(swipeDirection(-180, 10)).toBe("left");
    expect(swipeDirection(120, -20)).toBe("right");
  });
  it("a short move is a tap, not a swipe", () => {
    expect(swipeDirection(-30, 0)).toBeNull();
    expect(swipeDirection(49, 0)).toBeNull();
  });
  it("a mostly vertical move is a scroll, not a swipe", () => {
    expect(swipeDirection(-80, 70)).toBeNull();
    expect(swipeDirection(90, -300)).toBeNull();
  });
});

describe("hideOrder: which toolbar items give way first on a narrow screen", () => {
  const item = (name: string, priority = 0, keep = false) => ({ item: name, priority, keep });

  it("hides from the end, so the row keeps its beginning", () => {
    expect(hideOrder([item("a"), item("b"), item("c")])).toEqual(["c", "b", "a"]);
  });
  it("hides lower priorities first, whatever their place", () => {
    expect(hideOrder([item("sort"), item("order"), item("view"), item("create", 1), item("upload", 2)])).toEqual([
      "view",
      "order",
      "sort",
      "create",
      "upload",
    ]);
  });
  it("never hides a kept item", () => {
    expect(hideOrder([item("label", 0, true), item("move"), item("delete"), item("upload", 0, true)])).toEqual(["delete", "move"]);
  });
});
